"""The dynamic guard end to end: flow shapes from a healed value to a protected operation.

One healrt run per mode covers every shape (taint_project.py): unsafe shapes must be blocked
before their effect in enforce mode and only recorded in observe mode; their look-alike safe twins
must run untouched; `off` must do nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taint_project import FLOWS, Run, marker_lines, run_flows

SINKS = marker_lines("SINK")
SAFE = marker_lines("SAFE")
# The output file each unsafe shape writes when its operation runs (None: it writes none).
UNSAFE_OUTPUTS = {
    "direct": "direct.out", "arithmetic": "arith-7.out", "fstring": "fstring.out", "percent": "percent.out",
    "dotformat": "dotformat.out", "joined": "joined.out", "strcall": "n7.out", "container": "container.out",
    "attribute": "attribute.out", "alias": "alias.out", "callee": "CALLEE.out", "global": "healed-global.out",
    "loop": "looped.out", "exception": "exception.out", "path": "path.out", "bool": "flag.out", "none": "none.out",
    "process": "process.out", "database": "database.out", "network": "network.out", "protected": "protected_call.out",
    "environment": "environment.out", "shell": "shell.out",
    "check": "checked.out", "check_item": "checked_item.out", "fork": "forks.out",
}
SAFE_OUTPUTS = {
    "direct": "direct_safe.out", "arithmetic": "arith_safe-7.out", "fstring": "fstring_safe.out",
    "percent": "percent_safe.out", "dotformat": "dotformat_safe.out", "joined": "joined_safe.out", "strcall": "n8.out",
    "container": "container_safe.out", "attribute": "box_safe.out", "alias": "alias_safe.out",
    "callee": "CALLEE_SAFE.out", "global": "global_safe.out", "loop": "loop_safe.out",
    "exception": "exception_safe.out", "path": "path_safe.out", "none": "none_safe.out",
    "process": "process_safe.out", "database": "database_safe.out", "network": "network_safe.out",
    "protected": "protected_call_safe.out", "check": "checked_safe.out",
    "check_item": "checked_item_safe.out", "environment": "environment_safe.out",
    "shell": "shell_safe.out",
}


def crash_line(function: str) -> int:
    """Line of the `CONFIG["<function>"]` crash statement in FLOWS."""
    for number, line in enumerate(FLOWS.splitlines(), start=1):
        if f'CONFIG["{function}"]' in line:
            return number
    raise AssertionError(function)


def violations_by_line(run: Run) -> dict[int, list[dict[str, Any]]]:
    """Violations of the program's operations (not of heal code) by sink line."""
    found: dict[int, list[dict[str, Any]]] = {}
    for event in run.events("guard_violation"):
        if event["sink"]["file"].endswith("flows.py") and event["rule"] != "heal_code":
            found.setdefault(event["sink"]["line"], []).append(event)
    return found


@pytest.fixture(scope="module")
def enforce(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_flows(tmp_path_factory.mktemp("enforce"), "enforce")


@pytest.fixture(scope="module")
def observe(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_flows(tmp_path_factory.mktemp("observe"), "observe")


def test_the_project_marks_every_shape() -> None:
    assert set(SINKS) == set(UNSAFE_OUTPUTS) and set(SAFE) == set(SAFE_OUTPUTS)


def test_enforce_blocks_every_unsafe_shape_before_its_effect(enforce: Run) -> None:
    by_line = violations_by_line(enforce)
    for shape, line in SINKS.items():
        events = by_line.get(line, [])
        assert len(events) == 1, (shape, line, events)
        assert events[0]["verdict"] == "blocked" and events[0]["mode"] == "enforce", events
        assert UNSAFE_OUTPUTS[shape] not in enforce.written(), shape


def test_enforce_lets_every_safe_twin_run(enforce: Run) -> None:
    by_line = violations_by_line(enforce)
    for shape, line in SAFE.items():
        assert line not in by_line, (shape, by_line[line])
        assert SAFE_OUTPUTS[shape] in enforce.written(), shape


def test_violations_name_the_rule_and_key_input(enforce: Run) -> None:
    by_line = violations_by_line(enforce)
    rules = {shape: by_line[line][0]["rule"] for shape, line in SINKS.items()}
    assert rules.pop("bool") == "conservative" and rules.pop("none") == "conservative"
    assert rules.pop("check") == "check" and rules.pop("check_item") == "check"
    assert rules.pop("fork") == "no_key_input"
    assert set(rules.values()) == {"taint"}, rules
    direct = by_line[SINKS["direct"]][0]
    assert direct["op"] == "open" and direct["key_input"]["name"] == "file"
    assert direct["key_input"]["value"].endswith("direct.out'")
    assert by_line[SINKS["path"]][0]["op"] == "pathlib.Path.write_text"
    assert by_line[SINKS["process"]][0]["op"] == "subprocess.Popen"
    assert by_line[SINKS["database"]][0]["op"] == "sqlite3.Connection.execute"
    assert by_line[SINKS["network"]][0]["op"] == "socket.socket.send"
    assert by_line[SINKS["protected"]][0]["op"] == "flows.store"
    assert by_line[SINKS["environment"]][0]["op"] == "os.environ.__setitem__"
    assert by_line[SINKS["shell"]][0]["op"] == "os.system"  # also through `from os import system`
    assert by_line[SINKS["check"]][0]["op"] == "check:STRICT"
    assert by_line[SINKS["check_item"]][0]["op"] == 'check:SETTINGS["strict"]'


def _steps(event: dict[str, Any]) -> list[str]:
    return [step["op"] for step in event["flow"] if step["kind"] == "step"]


def test_flow_paths_go_from_the_heal_source_through_each_step_to_the_sink(enforce: Run) -> None:
    by_line = violations_by_line(enforce)
    direct = by_line[SINKS["direct"]][0]
    source, sink = direct["flow"][0], direct["flow"][-1]
    assert source["kind"] == "source" and source["location"] == "name:name"
    assert (source["line"], source["heal_point"]) == (crash_line("direct"), direct["heal_point"])
    assert sink == {"kind": "sink", "op": "open", "file": direct["sink"]["file"], "line": SINKS["direct"],
                    "key_input": "file"}
    assert "f-string" in _steps(by_line[SINKS["fstring"]][0])
    assert "%" in _steps(by_line[SINKS["percent"]][0])
    assert "format()" in _steps(by_line[SINKS["dotformat"]][0])
    assert "join()" in _steps(by_line[SINKS["joined"]][0])
    assert _steps(by_line[SINKS["arithmetic"]][0])[:3] == ["*", "+", "str()"]
    assert "upper" in _steps(by_line[SINKS["callee"]][0])
    assert "+" in _steps(by_line[SINKS["loop"]][0])
    assert "str()" in _steps(by_line[SINKS["exception"]][0])
    attribute = by_line[SINKS["attribute"]][0]["flow"][0]
    assert attribute["location"] == "attr:box.name" and attribute["line"] == crash_line("attribute")
    assert by_line[SINKS["global"]][0]["flow"][0]["location"] == "name:PREFIX"
    assert by_line[SINKS["loop"]][0]["flow"][0]["location"] == "item:parts[2]"
    conservative = by_line[SINKS["bool"]][0]["flow"]
    assert conservative[0]["location"] == "name:force" and conservative[1]["op"] == "reads name:force"
    for event in enforce.events("guard_violation"):  # every step names a place in the program
        assert all(step.get("file") and step.get("line") for step in event["flow"] if step["kind"] != "elided")


def test_bool_and_none_written_by_heals_are_recorded(enforce: Run) -> None:
    recorded = {(e["reason"], e["location"]) for e in enforce.events("guard_conservative")}
    assert recorded == {("bool", "name:force"), ("None", "attr:SHARED.alias"), ("bool", "name:STRICT"),
                        ("bool", "item:SETTINGS['strict']")}


def test_heal_code_reaching_a_protected_operation_is_refused_in_enforce(enforce: Run, tmp_path: Path) -> None:
    results: dict[str, Any] = {}
    run = run_flows(tmp_path, "enforce", order=["direct", "heal_code"],
                    on_result=lambda function, result: results.setdefault(function, result))
    refused = results["heal_code"]
    assert refused["ok"] is False and refused["error"]["reason"] == "guard"
    assert run.written() == {"heal_code_after.out"}  # neither the heal's write nor direct's
    rules = [event["rule"] for event in run.events("guard_violation")]
    assert rules == ["taint", "heal_code"]


def test_outcome_counts_violations_and_keeps_the_events(enforce: Run) -> None:
    outcome = enforce.controller.outcome
    assert outcome["guard_mode"] == "enforce"
    # Every unsafe shape, and the heal whose own code writes a file (refused in its dry run).
    assert outcome["guard_violations"] == len(SINKS) + 1 == len(enforce.events("guard_violation"))
    kinds = [record["kind"] for record in outcome["guard_events"]]
    assert kinds.count("guard_violation") == len(SINKS) + 1 and kinds.count("guard_conservative") == 4
    assert [e["rule"] for e in enforce.events("guard_violation")].count("heal_code") == 1
    assert outcome["passed"] is True


def test_observe_records_every_violation_and_lets_it_run(observe: Run) -> None:
    by_line = violations_by_line(observe)
    # Let through, each check's branch also writes a file under the healed bool: the conservative rule.
    in_branches = {SINKS["check"] + 1, SINKS["check_item"] + 1}
    assert set(by_line) == {*SINKS.values(), *in_branches}
    assert all([event["rule"] for event in by_line[line]] == ["conservative"] for line in in_branches)
    assert all(len(events) == 1 and events[0]["verdict"] == "observed" for events in by_line.values())
    written = observe.written()
    assert set(UNSAFE_OUTPUTS.values()) <= written and set(SAFE_OUTPUTS.values()) <= written
    assert "heal_code.out" in written  # the heal's own write ran (recorded: rule heal_code)
    assert [e["rule"] for e in observe.events("guard_violation")].count("heal_code") == 1
    assert observe.controller.outcome["guard_violations"] == len(SINKS) + 1 + len(in_branches)


def test_off_does_nothing(tmp_path: Path) -> None:
    run = run_flows(tmp_path, "off")
    assert not [e for e in run.controller.of_type("event") if e["kind"].startswith("guard")]
    written = run.written()
    assert set(UNSAFE_OUTPUTS.values()) <= written and set(SAFE_OUTPUTS.values()) <= written
    outcome = run.controller.outcome
    assert (outcome["guard_mode"], outcome["guard_violations"], outcome["guard_events"]) == ("off", 0, [])


def test_events_and_records_are_capped_but_every_violation_counted(tmp_path: Path) -> None:
    run = run_flows(tmp_path, "observe", order=["many"])
    assert len(run.events("guard_violation")) == 100
    outcome = run.controller.outcome
    assert outcome["guard_violations"] == 150 and len(outcome["guard_events"]) == 100
    assert len(run.written()) == 150
