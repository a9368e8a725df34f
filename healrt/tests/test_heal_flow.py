"""End-to-end runs of `python -m healrt` on a small project, driven by a fake controller."""

from __future__ import annotations

import time
from typing import Any

from conftest import project_line
from helpers import Controller, reraise, run_healrt, write_project, write_spec


def heal_once(code: str, resume: str = "skip") -> Any:
    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        result = ctl.heal(code, resume)
        assert result["ok"], result
    return on_crash


def test_skip_heal_proceeds_with_correct_context(project):
    ctl = Controller(heal_once("acc = float(acc)"))
    run = run_healrt(project("test_skip"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    [context] = ctl.crashes
    crash_line = project_line("acc += int(x)")
    assert context["heal_point"] == 1
    assert context["exception_type"] == "ValueError"
    assert "invalid literal for int()" in context["exception_message"]
    statement = context["statement"]
    assert statement["source"] == "acc += int(x) * SCALE"
    assert (statement["line"], statement["kind"], statement["targets"]) == (crash_line, "augassign", ["acc"])
    assert statement["col"] == 8 and statement["end_col"] == 8 + len(statement["source"])
    assert context["in_function"] is True
    assert context["function_source"].startswith("def total(items):")
    assert any("def test_skip" in source for source in context["caller_sources"])
    locals_ = {entry["name"]: entry for entry in context["locals"]}
    assert locals_["x"]["repr"] == "'x'" and locals_["acc"]["repr"] == "1"
    assert not any(name.startswith("_healrt") for name in locals_)
    last = context["traceback"][-1]
    assert (last["function"], last["line"], last["project"]) == ("total", crash_line, True)
    assert any(entry["function"] == "test_skip" and not entry["project"] for entry in context["traceback"])
    [heal_result] = ctl.of_type("heal_result")
    assert heal_result["changed"] == ["acc"] and heal_result["resume"] == "skip"
    outcome = ctl.outcome
    assert outcome["proceeded"] is True and outcome["passed"] is True
    assert (outcome["heal_points"], outcome["heals_applied"], outcome["heals_rejected"]) == (1, 1, 0)
    assert outcome["trace"][f"healproj.py:{crash_line}"] == 3


def test_retry_reruns_the_statement_with_healed_locals(project):
    ctl = Controller(heal_once("x = '5'", resume="retry"))
    run = run_healrt(project("test_retry"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(ctl.crashes) == 1
    assert ctl.outcome["passed"] is True


def test_return_at_a_return_site(project):
    ctl = Controller(heal_once("_return_ = 42", resume="return"))
    run = run_healrt(project("test_return_at_return_site"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    [context] = ctl.crashes
    assert context["statement"]["kind"] == "return"
    assert ctl.outcome["passed"] is True


def test_return_from_the_middle_of_a_function(project):
    ctl = Controller(heal_once("_return_ = 99", resume="return"))
    run = run_healrt(project("test_return_mid_function"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ctl.outcome["passed"] is True


def test_return_without_assigning_the_slot_is_refused(project):
    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        results.append(ctl.heal("acc = 0", resume="return"))
        results.append(ctl.heal("acc = acc", resume="skip"))
    ctl = Controller(on_crash)
    run_healrt(project("test_skip"), ctl)
    assert results[0]["ok"] is False and results[0]["error"]["reason"] == "no_return_value"
    assert results[1]["ok"] is True and ctl.outcome["passed"] is True


def test_fork_probe_leaves_live_state_untouched(project):
    values: list[str | None] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        first = ctl.probe("print('probing'); items.append('9'); len(items)")
        assert first["ok"] and first["output"] == "probing\n", first
        values.append(first["value"])
        values.append(ctl.probe("len(items)")["value"])
        # Contrast: the same mutation in place does reach the live list (allowed with the guard off).
        values.append(ctl.probe("items.append('9'); len(items)", inplace=True)["value"])
        values.append(ctl.probe("len(items)")["value"])
        ctl.heal("acc = acc")
    ctl = Controller(on_crash)
    run_healrt(project("test_skip", guard={"mode": "off"}), ctl)
    assert values == ["4", "3", "4", "4"]
    assert ctl.outcome["proceeded"] is True and ctl.outcome["passed"] is False  # the in-place '9' counted


def test_a_probe_keeps_its_own_shorter_time_limit(project):
    probes: list[tuple[dict[str, Any], float]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        started = time.monotonic()
        probes.append((ctl.probe("while True: pass", timeout_s=0.5), time.monotonic() - started))
        ctl.heal("acc = float(acc)")
    ctl = Controller(on_crash)
    run_healrt(project("test_skip"), ctl)
    (reply, took), = probes
    assert reply["ok"] is False and "timed out" in reply["error"].lower(), reply
    assert took < 10, f"the probe ran {took:.1f} s: its 0.5 s limit did not hold (the default is 20 s)"


def test_an_inplace_probe_is_refused_while_the_guard_is_on(project):
    probes: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        probes.append(ctl.probe("items.append('9'); len(items)", inplace=True))
        probes.append(ctl.probe("len(items)", inplace=False))
        ctl.heal("acc = float(acc)")
    ctl = Controller(on_crash)
    run_healrt(project("test_skip"), ctl)  # the default guard mode, enforce
    refused, after = probes
    assert refused["ok"] is False and "allowed only with HealGuard off" in refused["error"], refused
    assert after["value"] == "3", "the refused probe changed nothing"
    assert ctl.outcome["passed"] is True


def test_heal_that_raises_changes_nothing_and_runtime_stays_paused(project):
    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        results.append(ctl.heal("items.append('7'); acc = 100; 1 / 0"))
        results.append(ctl.probe("(len(items), acc)"))
        results.append(ctl.heal("acc = acc"))
    ctl = Controller(on_crash)
    run = run_healrt(project("test_skip"), ctl)
    failed, probe, healed = results
    assert failed["ok"] is False and failed["error"]["reason"] == "raised"
    assert "ZeroDivisionError" in failed["traceback"] and failed["changed"] == []
    assert probe["value"] == "(3, 1)"
    assert healed["ok"] is True
    assert ctl.outcome["passed"] is True, run.stdout  # a leaked '7' would make the total 10


def test_reraise_propagates_the_original_exception(project):
    ctl = Controller(reraise)
    run = run_healrt(project("test_through_caller"), ctl)
    assert len(ctl.crashes) == 1  # not paused again in the project caller run_total
    assert "ValueError: invalid literal" in run.stdout
    outcome = ctl.outcome
    assert outcome["proceeded"] is False and outcome["passed"] is False
    assert outcome["heal_points"] == 1 and outcome["heals_applied"] == 0
    assert run.returncode == 1


def test_exceptions_the_program_catches_are_not_intercepted(project):
    ctl = Controller(heal_once("acc = acc"))
    run = run_healrt(project("test_caught"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    # Only wrong_catch's ValueError (its handler is for KeyError) pauses.
    [context] = ctl.crashes
    assert [e["function"] for e in context["traceback"][-2:]] == ["wrong_catch", "total"]
    assert ctl.outcome["passed"] is True


def test_assert_raises_in_a_unittest_test_is_not_intercepted(project):
    ctl = Controller(reraise)
    run = run_healrt(project("CaughtByUnittest::test_assert_raises"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ctl.crashes == []
    assert ctl.outcome["passed"] is True


def test_a_crash_under_a_unittest_subtest_is_intercepted(project):
    # subTest swallows the exception only to record it as a failure: the test would fail, so healrt pauses.
    ctl = Controller(reraise)
    run = run_healrt(project("CaughtByUnittest::test_in_a_subtest"), ctl)
    [context] = ctl.crashes
    assert context["exception_type"] == "ValueError", context
    assert ctl.outcome["passed"] is False, "after a reraise the subtest records the failure as before"
    assert run.returncode != 0


def test_successive_crashes_are_numbered(project):
    ctl = Controller(heal_once("acc = acc"))
    run = run_healrt(project("test_two_crashes"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [c["heal_point"] for c in ctl.crashes] == [1, 2]
    assert [c["locals"] for c in ctl.crashes][1][1]["repr"] == "'y'" or any(
        entry["repr"] == "'y'" for entry in ctl.crashes[1]["locals"])
    assert (ctl.outcome["heal_points"], ctl.outcome["heals_applied"]) == (2, 2)


def test_heal_point_cap(project):
    ctl = Controller(heal_once("acc = acc"))
    run_healrt(project("test_two_crashes", max_heal_points=1), ctl)
    assert len(ctl.crashes) == 1
    assert ctl.outcome["heal_points"] == 1 and ctl.outcome["proceeded"] is False
    assert any(e["kind"] == "heal_point_cap" for e in ctl.of_type("event"))


def test_forbidden_heals_never_run(project, tmp_path):
    canary = tmp_path / "canary"
    write = f"open({str(canary)!r}, 'w').write('1')"
    forbidden = [f"{write}; exec('pass')", f"import subprocess\n{write}", f"{write}; f = lambda: 0"]
    results: list[dict[str, Any]] = []
    exists_after: list[bool] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        for code in forbidden:
            results.append(ctl.heal(code))
            exists_after.append(canary.exists())
        results.append(ctl.heal(write))
        exists_after.append(canary.exists())
    ctl = Controller(on_crash)
    run_healrt(project("test_skip", guard={"mode": "observe"}), ctl)  # enforce would refuse the file write
    assert [r["ok"] for r in results] == [False, False, False, True]
    assert all(r["error"]["reason"] == "forbidden" for r in results[:3])
    assert exists_after == [False, False, False, True]
    assert ctl.outcome["heals_rejected"] == 3 and ctl.outcome["heals_applied"] == 1


def test_module_level_crash_is_healed_in_the_module_namespace(project):
    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        assert context["in_function"] is False and context["function_source"] is None
        results.append(ctl.heal("_return_ = 1", resume="return"))
        results.append(ctl.heal("LIMIT = 5"))
    ctl = Controller(on_crash)
    run = run_healrt(project("test_module_level_crash"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert results[0]["error"]["reason"] == "bad_resume"
    assert results[1]["ok"] and results[1]["changed"] == ["LIMIT"]
    assert ctl.outcome["passed"] is True


MANAGED = '''\
class Archive:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False

    def name(self, parts):
        return parts[0]
'''

MANAGED_TARGET = '''\
import managed


def test_under_a_project_manager():
    with managed.Archive() as archive:
        assert archive.name([]) == "x"
'''


def test_a_crash_under_an_instrumented_manager_that_never_suppresses_is_intercepted(tmp_path):
    # The project's own __exit__ is instrumented: its bytecode returns through healrt's slots, but its source only
    # ever returns False, so the `with` in the test cannot swallow the IndexError and healrt pauses.
    source_dir, target = write_project(tmp_path, "managed", MANAGED, MANAGED_TARGET)
    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["managed"],
                      pytest_args=[f"{target}::test_under_a_project_manager", "-q", "-p", "no:cacheprovider"])
    ctl = Controller(reraise)
    run = run_healrt(spec, ctl)
    [context] = ctl.crashes
    assert context["exception_type"] == "IndexError", run.stdout + run.stderr
    assert not any(e.get("decision") == "assumed_caught" for e in ctl.of_type("event"))


SURROGATE = '''\
def name(raw):
    return raw.decode("utf-8", "surrogateescape")
'''

SURROGATE_TARGET = '''\
import surrogate


def test_undecodable_name():
    assert surrogate.name(b"na\\xc3") == "na"
'''


def test_an_outcome_holding_lone_surrogates_is_still_reported(tmp_path):
    # The assertion's message quotes 'na\udcc3': the outcome must reach the controller all the same.
    source_dir, target = write_project(tmp_path, "surrogate", SURROGATE, SURROGATE_TARGET)
    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["surrogate"],
                      pytest_args=[f"{target}::test_undecodable_name", "-q", "-p", "no:cacheprovider", "--tb=no", "-rN"])
    ctl = Controller(reraise)
    run = run_healrt(spec, ctl)
    outcome = ctl.outcome
    assert outcome["proceeded"] is True and outcome["passed"] is False, run.stdout + run.stderr
    assert "\udcc3" in outcome["detail"], outcome["detail"]
