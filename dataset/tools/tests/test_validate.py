"""validate and stats, with real runs through healrt on the stdlib subject."""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Callable

import pytest

from conftest import OWN_TEST, STATISTICS
from hbdata.__main__ import _delegated, main
from hbdata.instances import Instance, load_instance
from hbdata.materialize import materialize
from hbdata.runner import run_target
from hbdata.stats import summarize, upstream_reference
from hbdata.validate import read_record, record_path, stratified_sample, validate_instance

RUN_TIMEOUT_S = 120


def test_a_committed_instance_validates_and_is_recorded(copy_instance: Callable[..., Path],
                                                         private_cache: Path) -> None:
    instance = load_instance(copy_instance(STATISTICS))
    verdict = validate_instance(instance, runs=2, timeout_s=RUN_TIMEOUT_S)
    assert verdict.passed, verdict.reason
    assert verdict.reason.startswith("KeyError at statistics.py:_sum:194: KeyError: 1")
    assert read_record(instance) is None  # validate_instance decides; validate_many records
    assert main(["validate", "--runs", "1", "--dataset", str(instance.dir.parent.parent), STATISTICS]) == 0
    record = read_record(instance)
    assert record_path(instance) == private_cache / "validation" / f"{STATISTICS}-{instance.digest}.json"
    assert record is not None and record["passed"] is True and record["digest"] == instance.digest


def test_runner_reports_the_crash_and_a_pass(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    instance = load_instance(copy_instance(STATISTICS))
    buggy = run_target(materialize(instance, "buggy", tmp_path / "buggy"), RUN_TIMEOUT_S)
    assert (buggy.ran, buggy.passed) == (True, False)
    assert buggy.crash == {"type": "KeyError", "file": "statistics.py", "function": "_sum", "line": 194}
    reference = run_target(materialize(instance, "reference", tmp_path / "reference"), RUN_TIMEOUT_S)
    assert (reference.ran, reference.passed, reference.crash) == (True, True, None)


def test_a_target_that_does_not_exist_did_not_run(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    instance = load_instance(copy_instance(STATISTICS, lambda t: t.replace("::test_ints", "::test_nosuch")))
    result = run_target(materialize(instance, "reference", tmp_path / "ws"), RUN_TIMEOUT_S)
    assert (result.ran, result.passed) == (False, False)
    verdict = validate_instance(instance, runs=1, timeout_s=RUN_TIMEOUT_S)
    assert verdict.reason.startswith("BUGGY run 1/1: the target test did not run (exited): ")
    assert "test_nosuch" in verdict.reason  # pytest's own word on it, not a generic message


def test_a_run_past_its_timeout_is_killed(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    instance = load_instance(copy_instance(STATISTICS))
    result = run_target(materialize(instance, "reference", tmp_path / "ws"), 0.05)
    assert (result.ran, result.exit_cause) == (False, "timeout")


def test_own_real_bug_instance_validates(own_real_bug: Path) -> None:
    verdict = validate_instance(load_instance(own_real_bug), runs=1, timeout_s=RUN_TIMEOUT_S)
    assert verdict.passed, verdict.reason
    assert verdict.reason.startswith("TypeError at colorsys.py:rgb_to_hls:")


def test_wrong_expected_line_fails_with_both_locations(copy_instance: Callable[..., Path]) -> None:
    instance = load_instance(copy_instance(STATISTICS, lambda t: t.replace("line: 194", "line: 195")))
    verdict = validate_instance(instance, runs=3, timeout_s=RUN_TIMEOUT_S)
    assert not verdict.passed
    assert verdict.reason.startswith("BUGGY run 1/3: raised KeyError at statistics.py:_sum:194, "
                                     "expected KeyError at statistics.py:_sum:195 (KeyError: 1)"), verdict.reason


def test_the_pause_run_reraises_and_keeps_the_programs_outcome(own_real_bug: Path, tmp_path: Path) -> None:
    plan = materialize(load_instance(own_real_bug), "buggy", tmp_path / "buggy")
    result = run_target(plan, RUN_TIMEOUT_S, pause=True)
    assert result.pause_log is not None and result.pause_log.pauses == ["TypeError"]
    assert result.crash is not None and (result.crash["function"], result.passed) == ("rgb_to_hls", False)


def test_a_crash_that_never_pauses_fails_naming_the_undecided_construct(own_real_bug: Path) -> None:
    # The crash propagates out of the test, but under a manager whose type healrt cannot know
    # before the call: it assumes the manager may catch, so an agent would never be asked.
    (own_real_bug / "test_own.py").write_text(OWN_TEST.replace("def test_none_channel_is_black():\n", """\
import contextlib


def a_manager():
    return contextlib.nullcontext()


def test_none_channel_is_black():
    with a_manager():
""").replace("    assert colorsys", "        assert colorsys"))
    verdict = validate_instance(load_instance(own_real_bug), runs=1, timeout_s=RUN_TIMEOUT_S)
    assert not verdict.passed
    assert verdict.reason.startswith("BUGGY under interception: it never paused, so an agent would get no attempt; "
                                     "undecided catching: with a_manager(): the manager's type is not known"), verdict.reason


def test_a_bug_that_also_breaks_the_reference_is_caught(own_real_bug: Path) -> None:
    # A fix patch that fixes nothing: REFERENCE still crashes.
    patch = own_real_bug / "fix.patch"
    patch.write_text(patch.read_text().replace("r = 0.0 if r is None else r", "g = 0.0 if g is None else g"))
    verdict = validate_instance(load_instance(own_real_bug), runs=1, timeout_s=RUN_TIMEOUT_S)
    assert not verdict.passed
    assert verdict.reason.startswith("REFERENCE run 1/1: the target test failed (TypeError at colorsys.py:rgb_to_hls:")


def test_a_patch_that_does_not_apply_fails_naming_it(copy_instance: Callable[..., Path]) -> None:
    directory = copy_instance(STATISTICS)
    (directory / "bug.patch").write_text((directory / "bug.patch").read_text().replace("partials = {}", "partials = []"))
    verdict = validate_instance(load_instance(directory), runs=1, timeout_s=RUN_TIMEOUT_S)
    assert not verdict.passed
    assert "bug.patch: does not apply to cpython-stdlib@3.11.7 (buggy)" in verdict.reason


def test_cli_reports_a_malformed_field_and_fails(copy_instance: Callable[..., Path], dataset: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    directory = copy_instance(STATISTICS, lambda t: t.replace("line: 194", "line: abc"))
    assert main(["validate", "--dataset", str(dataset)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {directory / 'instance.yaml'}: expected_crash.line: must be an integer >= 1, got 'abc'" in out
    assert "summary: 0/1 valid, 1 failed" in out


def _fake(instance: Instance, number: int, tier: str, subject: str) -> Instance:
    return dataclasses.replace(instance, id=f"fake-{number}", subject=subject, provenance={"kind": tier})


def test_stratified_sample_spreads_over_tiers_and_subjects(copy_instance: Callable[..., Path]) -> None:
    base = load_instance(copy_instance(STATISTICS))
    strata = [("injected", "cpython-stdlib@3.11.7"), ("real-bug", "cpython-stdlib@3.11.7"),
              ("injected", "local:/nowhere/alpha"), ("injected", "local:/nowhere/beta")]
    # Unequal strata: 20 instances in the first, 2 in each of the others.
    pool = [_fake(base, n, *strata[0]) for n in range(20)]
    pool += [_fake(base, 100 + 10 * k + n, *stratum) for k, stratum in enumerate(strata[1:]) for n in range(2)]
    sample = stratified_sample(pool, 8, seed=7)
    assert len(sample) == 8 and len({i.id for i in sample}) == 8
    counts = {stratum: sum((i.tier, i.subject) == stratum for i in sample) for stratum in strata}
    assert counts == {strata[0]: 2, strata[1]: 2, strata[2]: 2, strata[3]: 2}
    assert [i.id for i in stratified_sample(pool, 8, seed=7)] == [i.id for i in sample]
    seeds = {tuple(i.id for i in stratified_sample(pool, 8, seed=s)) for s in range(10)}
    assert len(seeds) > 1
    assert len(stratified_sample(pool, 100, seed=1)) == len(pool)


def test_stats_validates_what_has_no_record_then_counts(copy_instance: Callable[..., Path], dataset: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    copy_instance(STATISTICS)
    copy_instance(STATISTICS, lambda t: t.replace("line: 194", "line: 195"), new_name="stdlib-statistics-wrong-line")
    args = ["stats", "--json", "--runs", "1", "--dataset", str(dataset)]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "validating 2 instance(s)" in captured.err and "FAIL  stdlib-statistics-wrong-line" in captured.err
    lines = captured.out.strip().splitlines()
    summary = json.loads(lines[-1])
    keys = ("instances", "validated", "failed", "real_bug", "upstream_issues", "injected", "subjects",
            "reference_codebases", "reference_error_order")
    assert {k: summary[k] for k in keys} == {"instances": 2, "validated": 1, "failed": 1, "real_bug": 0,
                                            "upstream_issues": 0, "injected": 1, "subjects": 1,
                                            "reference_codebases": 0, "reference_error_order": False}
    assert any(line.split() == ["cpython-stdlib", "injected", "KeyError", "1"] for line in lines)
    assert main(args) == 0
    again = capsys.readouterr()
    assert "validating" not in again.err  # every digest has its record now
    assert json.loads(again.out.strip().splitlines()[-1]) == summary


def test_upstream_issues_count_a_github_number_once_per_code_base(copy_instance: Callable[..., Path]) -> None:
    base = load_instance(copy_instance(STATISTICS))

    def real_bug(issue: str) -> Instance:
        return dataclasses.replace(base, provenance={"kind": "real-bug", "issue": issue})

    one = [real_bug("GH 2785"), real_bug("gh-2785"), real_bug("cpython#2785"), real_bug("PR 2785")]
    assert {upstream_reference(i) for i in one} == {(base.codebase, "github 2785")}
    assert upstream_reference(real_bug("bpo-2785")) == (base.codebase, "bpo-2785")
    assert upstream_reference(real_bug("isodate@F3a1b2c")) == (base.codebase, "isodate@f3a1b2c")
    assert upstream_reference(dataclasses.replace(base, provenance={"kind": "injected", "issue": "GH 1"})) is None
    elsewhere = dataclasses.replace(real_bug("GH 2785"), subject="local:/nowhere/alpha")
    summary = summarize(one + [real_bug("bpo-2785"), real_bug("GH 12"), elsewhere], total=7)
    assert summary["real_bug"] == 7 and summary["upstream_issues"] == 4


def test_a_command_whose_module_is_missing_fails_alone(capsys: pytest.CaptureFixture[str]) -> None:
    top = argparse.ArgumentParser()
    commands = top.add_subparsers(dest="command", required=True)
    _delegated(commands, "absent", "no_such_module", "run_command", "a command without its module",
               lambda parser: parser.add_argument("--subject", required=True))
    args = top.parse_args(["absent", "--subject", "x"])
    assert args.run(args) == 2
    assert ("hbdata absent: not available: hbdata.no_such_module.run_command cannot be loaded "
            "(ModuleNotFoundError: No module named 'hbdata.no_such_module')") in capsys.readouterr().err
