"""Δk: the locations a heal changed or wrote, computed around a run of its code."""

from __future__ import annotations

import ast
from typing import Any

from healrt import delta


class Config:
    def __init__(self) -> None:
        self.name = "a"
        self.data = {"k": 1, "other": [1, 2]}


def heal_delta(code: str, namespace: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], bool]:
    tree = ast.parse(code)
    before = delta.snapshot(namespace)
    exec(compile(tree, "<heal>", "exec"), namespace)
    entries, truncated = delta.compute(tree, before, namespace)
    by_location = {entry["location"]: entry for entry in entries}
    assert len(by_location) == len(entries)
    return by_location, truncated


def test_attribute_of_a_local_object() -> None:
    found, truncated = heal_delta("cfg.name = 'b'", {"cfg": Config()})
    assert found == {"attr:cfg.name": {"location": "attr:cfg.name", "kind": "both", "before": "'a'", "after": "'b'"}}
    assert truncated is False


def test_item_of_a_dict_reached_through_an_attribute() -> None:
    found, _ = heal_delta("self.data['k'] = 2", {"self": Config()})
    assert found["item:self.data['k']"] == {
        "location": "item:self.data['k']", "kind": "both", "before": "1", "after": "2"}
    assert set(found) == {"item:self.data['k']"}


def test_a_global_and_a_local() -> None:
    found, _ = heal_delta("SCALE = 3\nacc = acc + 1", {"SCALE": 1, "acc": 41, "items": ["x"]})
    assert {k: (v["kind"], v["before"], v["after"]) for k, v in found.items()} == {
        "name:SCALE": ("both", "1", "3"), "name:acc": ("both", "41", "42")}


def test_writing_the_same_value_is_written_not_changed() -> None:
    found, _ = heal_delta("acc = acc\ncfg.name = 'a'\nlabel = 'ab'[:1] + 'c'",
                          {"acc": 1000, "cfg": Config(), "label": "ac"})
    assert {k: v["kind"] for k, v in found.items()} == {
        "name:acc": "written", "attr:cfg.name": "written", "name:label": "written"}
    assert found["name:acc"]["before"] == found["name:acc"]["after"] == "1000"


def test_mutation_through_a_method_call() -> None:
    found, _ = heal_delta("lst.append(1)\ncfg.data['other'].pop()", {"lst": [5, 6, 7], "cfg": Config()})
    assert found == {
        "item:lst[3]": {"location": "item:lst[3]", "kind": "changed", "before": None, "after": "1"},
        "item:cfg.data['other'][1]": {"location": "item:cfg.data['other'][1]", "kind": "changed",
                                      "before": "2", "after": None},
    }


def test_new_attribute_deletion_and_rebinding() -> None:
    cfg = Config()
    found, _ = heal_delta("cfg.extra = 1\ndel cfg.data['k']\ncfg.data = {}", {"cfg": cfg})
    kinds = {k: (v["kind"], v["before"], v["after"]) for k, v in found.items()}
    assert kinds["attr:cfg.extra"] == ("both", None, "1")
    assert kinds["attr:cfg.data"][0] == "both"
    # The old dict, no longer reachable, still lost its key: a change at its first path.
    assert kinds["item:cfg.data['k']"][0] in ("changed", "both")


def test_shared_objects_are_reported_at_their_first_path_with_their_other_names() -> None:
    shared = {"v": 1}
    found, _ = heal_delta("b['v'] = 2", {"a": shared, "b": shared})
    assert set(found) == {"item:a['v']"}
    assert found["item:a['v']"]["kind"] == "both"
    assert found["item:a['v']"]["also"] == ["b"]  # the static stage must not clear it by one name


def test_an_alias_made_before_the_crash_is_named_with_the_heal_source() -> None:
    job = Config()
    found, _ = heal_delta("job.name = 'out'", {"job": job, "view": job, "other": Config()})
    assert found["attr:job.name"]["also"] == ["view"]
    alone, _ = heal_delta("cfg.name = 'b'", {"cfg": Config(), "other": Config()})
    assert "also" not in alone["attr:cfg.name"], "no alias, no note"


def test_the_walk_is_bounded() -> None:
    big = [[i] for i in range(delta.MAX_ITEMS * 3)]
    found, truncated = heal_delta("big[0].append(1)", {"big": big})
    assert truncated is True
    assert "item:big[0][1]" in found
    deep: Any = [0]
    for _ in range(delta.MAX_DEPTH + 3):
        deep = [deep]
    assert heal_delta("x = 1", {"x": 0, "deep": deep})[1] is True
    assert heal_delta("x = 1", {"x": 0, "flat": [1, 2, 3]})[1] is False


def test_heal_result_carries_the_dry_run_delta(project) -> None:
    from helpers import Controller, run_healrt

    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        results.append(ctl.heal("acc = acc + 0\nitems.append('9')\nSCALE = 1"))

    ctl = Controller(on_crash)
    run_healrt(project("test_skip"), ctl)
    [result] = results
    assert result["ok"] and result["delta_truncated"] is False
    kinds = {entry["location"]: (entry["kind"], entry["before"], entry["after"]) for entry in result["delta"]}
    assert kinds == {"name:acc": ("written", "1", "1"), "name:SCALE": ("written", "1", "1"),
                     "item:items[3]": ("changed", None, "'9'")}
