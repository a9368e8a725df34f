"""Which heal sites a run uses: code bases in turn, bugs before their other versions, calibrated lazily."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from guardeval.sites import HealSite
from guardeval.suite import Instance, first_sites, sampled_pairs, spread
from guardeval import shapes


def instance(name: str, codebase: str, python: str = "3.11.7") -> Instance:
    return Instance(name, Path(name), "d", codebase, "real-bug", "default", python)


def site(line: int) -> HealSite:
    # Names and attributes in turn: a pre-crash alias needs an attribute (or item) to alias the owner of.
    return HealSite("m.py", line, line, 4, "assign", "f", "x", "name") if line % 2 else \
        HealSite("m.py", line, line, 4, "assign", "f", "self.x", "attr")


class FakeSuite:
    """Suite.site and Suite.sites without runs: every instance but those named `bad*` has a site (its
    line given); `slow*` instances take a while, as a large code base does."""

    jobs = 2

    def __init__(self, lines: dict[str, int]) -> None:
        self.lines = lines
        self.calibrated: list[str] = []

    def site(self, instance: Instance) -> HealSite | None:
        self.calibrated.append(instance.id)
        if instance.id.startswith("slow"):
            time.sleep(1.0)
        return None if instance.id.startswith("bad") else site(self.lines.get(instance.id, 1))

    def sites(self, instances: list[Instance]) -> dict[str, Any]:
        found = {i.id: self.site(i) for i in instances}
        return {i.id: (i, found[i.id]) for i in instances if found[i.id] is not None}


def test_spread_alternates_code_bases_and_takes_other_versions_last() -> None:
    pool = [instance("cpython3117-a", "cpython-stdlib"), instance("cpython3121-a", "cpython-stdlib", "3.12.1"),
            instance("cpython3117-b", "cpython-stdlib"), instance("toolz-x", "toolz"), instance("toolz-y", "toolz"),
            instance("tornado-z", "tornado")]
    assert [i.id for i in spread(pool)] == ["cpython3117-a", "toolz-x", "tornado-z", "cpython3117-b", "toolz-y",
                                           "cpython3121-a"]


def test_first_sites_calibrates_only_as_far_as_needed_and_skips_duplicates() -> None:
    ordered = [instance(n, "c") for n in ("a1", "bad", "a2", "dup", "a3", "a4", "a5")]
    suite = FakeSuite({"a1": 1, "a2": 2, "dup": 2, "a3": 3, "a4": 4, "a5": 5})
    chosen = first_sites(suite, ordered, 3)  # type: ignore[arg-type]
    assert [i.id for i, _ in chosen] == ["a1", "a2", "a3"]
    # In order, at most jobs (2) at a time, none started once the found and the running make 3.
    assert sorted(suite.calibrated) == ["a1", "a2", "a3", "bad", "dup"]
    assert [i.id for i, _ in first_sites(FakeSuite({"a1": 1, "a2": 2}), ordered[:3], 0)] == ["a1", "a2"]  # type: ignore[arg-type]
    assert [i.id for i, _ in first_sites(FakeSuite({"a1": 1, "a2": 2, "dup": 2}), ordered[:4], 0)] == ["a1", "a2"]  # type: ignore[arg-type]


def test_a_worker_does_not_wait_for_a_slow_calibration_on_the_other() -> None:
    ordered = [instance(n, "c") for n in ("slow1", "a1", "a2", "slow2", "a3")]
    suite = FakeSuite({"slow1": 8, "a1": 1, "a2": 2, "slow2": 9, "a3": 3})
    started = time.monotonic()
    chosen = first_sites(suite, ordered, 5)  # type: ignore[arg-type]
    # In order, though the slow ones ended last. Calibrated two at a time in batches, the two slow ones
    # would take two seconds in a row; the second worker takes slow2 while the first is on slow1.
    assert [i.id for i, _ in chosen] == ["slow1", "a1", "a2", "slow2", "a3"]
    assert time.monotonic() - started < 1.7


def test_a_sample_is_balanced_pairs_with_every_shape() -> None:
    ordered = [instance(f"i{n}", "c") for n in range(30)]
    suite = FakeSuite({f"i{n}": n + 1 for n in range(30)})
    pairs = sampled_pairs(suite, ordered, 40, 7, shapes.SHAPES)  # type: ignore[arg-type]
    assert len(pairs) == 20 and all(u.unsafe and not s.unsafe and u.pair == s.pair for u, s in pairs)
    assert len({u.instance for u, _ in pairs}) == 20 and {u.shape for u, _ in pairs} == set(shapes.SHAPES)
    assert [u.id for u, _ in pairs] == [u.id for u, _ in sampled_pairs(FakeSuite(suite.lines), ordered, 40, 7, shapes.SHAPES)]  # type: ignore[arg-type]
    assert all(shapes.applies(u.shape, u.site.location_kind) for u, _ in pairs)
