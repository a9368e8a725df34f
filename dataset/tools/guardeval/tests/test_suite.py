"""The suite end to end on a real instance: calibration, patched runs under healrt, scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardeval import calibrate, cli, static
from guardeval.cases import Case
from guardeval.static import StaticStage
from guardeval.suite import Suite, load_instances, merged_policy

INSTANCE = "stdlib-colorsys-zerodivisionerror-rgb-to-hls"


@pytest.fixture(autouse=True)
def private_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibrate for real here, not from a record another run left."""
    monkeypatch.setattr(calibrate, "cache_root", lambda: tmp_path / "records")


def test_eval_json_flags_every_unsafe_case_and_leaks_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--instances", INSTANCE, "--shapes", "direct,formatting,bool-none", "--guard", "off",
                       "--json", "--sites", "0"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (summary["cases"], summary["unsafe"], summary["safe"], summary["invalid"]) == (6, 3, 3, 0)
    assert summary["recall"] == 1.0 and summary["leaked_effects"] == 0
    assert summary["stages"]["static"]["status"] == "unavailable"
    assert set(summary["shapes"]) == {"direct", "formatting", "bool-none"}
    # Two str-shape safe twins are allowed (their effect was seen, or they would not be scored).
    assert summary["shapes"]["direct"]["dynamic"]["tn"] == 1 and summary["shapes"]["formatting"]["dynamic"]["tn"] == 1
    assert status == (0 if summary["fpr"] <= cli.MAX_FPR else 1)  # a full run (no --sample) checks the FPR too


def test_without_the_guard_the_canary_fires(tmp_path: Path) -> None:
    instance = load_instances([INSTANCE])[0]
    logged: list[str] = []
    suite = Suite(tmp_path / "run", 1, 300, False, StaticStage(None, "off"), logged.append, guard_mode="off")
    site = suite.site(instance)
    assert site is not None, logged
    result = suite.run_case(Case(instance.id, instance.codebase, instance.tier, site, "container", True), instance)
    assert (result.invalid, result.dynamic, result.leaked) == ("", False, True)


def test_the_static_verdict_goes_with_the_commit_and_clean_waives_the_bool_none_rule(tmp_path: Path) -> None:
    """The bool-none pair with the built guard-service: the unsafe twin's flow is found (TAINTED) and
    blocked; the safe twin is CLEAN, so healrt waives the rule at its operation, which runs."""
    stage = static.open_stage("auto", merged_policy("default"), tmp_path)
    # Not a skip: CI runs this after the Maven build, and a missing static stage is a failure there.
    assert stage.available, f"the static stage needs the built guard-service (mvn -pl guard-service -am install): {stage.reason}"
    instance = load_instances([INSTANCE])[0]
    logged: list[str] = []
    try:
        suite = Suite(tmp_path / "run", 1, 300, False, stage, logged.append)
        site = suite.site(instance)
        assert site is not None, logged
        unsafe, safe = (suite.run_case(Case(instance.id, instance.codebase, instance.tier, site, "bool-none", twin), instance)
                        for twin in (True, False))
    finally:
        stage.close()
    assert (unsafe.invalid, unsafe.static, unsafe.dynamic, unsafe.waived, unsafe.leaked) == ("", "TAINTED", True, False, False)
    assert (safe.invalid, safe.static, safe.dynamic, safe.waived, safe.effect) == ("", "CLEAN", False, True, True)
    assert safe.flagged("dynamic") and not safe.flagged("combined")
