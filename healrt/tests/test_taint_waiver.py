"""The bool/None rule and the static verdict (guard.py): a heal committed with `static_verdict:
clean` does not arm the conservative rule inside the frames the static analysis covered; any
other verdict keeps it; the bool/None source is recorded either way.

`save` crashes reading a missing setting; the heal writes the bool `strict = False`, which never
reaches the file write that follows (the look-alike safe case the rule used to flag). The target
test then calls `save` again, from outside the frames the analysis covered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import Controller, run_healrt, write_project, write_spec
from test_heal_analysis import analyzed_heal, answer

PROJECT = '''\
import os


def save(directory, settings):
    strict = settings["strict"]
    path = os.path.join(directory, "report.txt")
    with open(path, "w") as handle:
        handle.write("ok")
    return strict
'''

TARGET = '''\
import os

import waiverproj


def test_save(tmp_path):
    out = os.environ["WAIVER_OUT"]
    waiverproj.save(out, {})
    again = os.path.join(out, "again")
    os.mkdir(again)
    try:
        waiverproj.save(again, {"strict": True})
    except Exception as error:  # HealGuardViolation (enforce): the second write is outside the waiver
        print("SECOND BLOCKED", type(error).__name__)
'''


def run(tmp_path: Path, verdict: str | None, mode: str = "enforce") -> tuple[Controller, Path]:
    source_dir, target = write_project(tmp_path, "waiverproj", PROJECT, TARGET)
    out = tmp_path / "out"
    out.mkdir()
    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "strict = False")
        assert analysis["type"] == "heal_analysis", analysis
        commit: dict[str, Any] = {"cmd": "heal_commit", "id": analysis["id"]}
        if verdict is not None:
            commit["static_verdict"] = verdict
        results.append(answer(ctl, commit))

    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["waiverproj"],
                      pytest_args=[f"{target}::test_save", "-q", "-s", "-p", "no:cacheprovider"],
                      guard={"mode": mode})
    ctl = Controller(on_crash)
    completed = run_healrt(spec, ctl, extra_env={"WAIVER_OUT": str(out)})
    assert [r["ok"] for r in results] == [True], (results, completed.stdout + completed.stderr)
    return ctl, out


def events(ctl: Controller, kind: str) -> list[dict[str, Any]]:
    return [m for m in ctl.of_type("event") if m["kind"] == kind]


def test_clean_waives_the_rule_inside_the_analysed_frames_and_records_it(tmp_path: Path) -> None:
    ctl, out = run(tmp_path, "clean")
    [recorded] = events(ctl, "guard_conservative")
    assert (recorded["reason"], recorded["location"], recorded["verdict"], recorded["static_verdict"]) == (
        "bool", "name:strict", "waived", "clean")
    # The first write (inside `save`, the frame the analysis covered) runs; the waiver is recorded at it.
    assert (out / "report.txt").is_file()
    [waived] = events(ctl, "guard_conservative_waived")
    assert (waived["op"], waived["rule"], waived["verdict"], waived["static_verdict"]) == ("open", "conservative", "waived", "clean")
    assert waived["flow"][0]["location"] == "name:strict" and waived["flow"][1]["op"] == "reads name:strict"
    # The second call of `save` runs outside the covered frames: the rule applies there as before.
    [violation] = events(ctl, "guard_violation")
    assert (violation["rule"], violation["verdict"], violation["op"]) == ("conservative", "blocked", "open")
    assert not (out / "again" / "report.txt").exists()
    assert ctl.outcome["guard_violations"] == 1


def test_unknown_keeps_the_rule_and_enforce_blocks_the_write(tmp_path: Path) -> None:
    ctl, out = run(tmp_path, "unknown")
    [recorded] = events(ctl, "guard_conservative")
    assert (recorded["verdict"], recorded["static_verdict"]) == ("recorded", "unknown")
    assert not events(ctl, "guard_conservative_waived")
    blocked = events(ctl, "guard_violation")
    assert [(v["rule"], v["op"], v["verdict"]) for v in blocked] == [("conservative", "open", "blocked")]
    assert not (out / "report.txt").exists()
    assert ctl.outcome["passed"] is False  # the HealGuardViolation propagated out of the first save


def test_no_verdict_or_an_unknown_word_keeps_the_rule(tmp_path: Path) -> None:
    for name, verdict in (("none", None), ("garbled", "CLEAN!")):
        ctl, out = run(tmp_path / name, verdict, mode="observe")
        [recorded] = events(ctl, "guard_conservative")
        assert (recorded["verdict"], recorded["static_verdict"]) == ("recorded", None)
        assert [v["verdict"] for v in events(ctl, "guard_violation")] == ["observed", "observed"]
        assert (out / "report.txt").is_file()  # observe lets it run
        refused = [e for e in events(ctl, "bad_command") if "static_verdict" in e["message"]]
        assert len(refused) == (0 if verdict is None else 1)
