"""A real stdlib module as the subject: configparser with an injected bug, under CPython's own test."""

from __future__ import annotations

import sysconfig
from pathlib import Path
from typing import Any

import pytest

from helpers import Controller, read_outcome, run_healrt, write_spec

STDLIB = Path(sysconfig.get_paths()["stdlib"])
TEST_FILE = STDLIB / "test" / "test_configparser.py"
NODE = f"{TEST_FILE}::CoverageOneHundredTestCase::test_sectionproxy_repr"
CORRECT = "return '<Section: {}>'.format(self._name)"
BUGGY = "return '<Section: {}>'.format(self._nam)"



@pytest.fixture
def buggy_configparser(tmp_path: Path) -> Path:
    # Debian ships the stdlib's tests separately (libpython3.11-testsuite, installed by python-envs.sh).
    assert TEST_FILE.exists(), f"CPython's test suite is not installed for this interpreter: {TEST_FILE}"
    source = (STDLIB / "configparser.py").read_text()
    assert source.count(CORRECT) == 1
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    (source_dir / "configparser.py").write_text(source.replace(CORRECT, BUGGY))
    return write_spec(tmp_path, source_dir=str(source_dir), project_modules=["configparser"],
                      pytest_args=[NODE, "-q", "-p", "no:cacheprovider"])


def test_injected_bug_fails_without_healrt_control(buggy_configparser: Path) -> None:
    run = run_healrt(buggy_configparser, None)
    outcome = read_outcome(buggy_configparser)
    assert run.returncode == 1
    assert "AttributeError" in outcome["detail"] and outcome["proceeded"] is False
    assert outcome["heal_points"] == 0
    assert any(key.startswith("configparser.py:") for key in outcome["trace"])


def test_heal_with_return_fixes_the_stdlib_subject(buggy_configparser: Path) -> None:
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        seen.append(context)
        probe = ctl.probe("self._name")
        assert probe["value"] == "'section'", probe
        result = ctl.heal("_return_ = '<Section: {}>'.format(self._name)", resume="return")
        assert result["ok"], result

    ctl = Controller(on_crash)
    run = run_healrt(buggy_configparser, ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    [context] = seen
    assert context["exception_type"] == "AttributeError"
    assert context["statement"]["source"] == BUGGY
    assert context["traceback"][-1]["function"] == "__repr__"
    assert context["traceback"][-1]["qualname"] == "SectionProxy.__repr__"
    assert context["statement"]["file"].endswith("src/configparser.py")
    assert ctl.outcome["proceeded"] is True and ctl.outcome["passed"] is True
