"""Record-and-replay mode: phase 1 finds the crash site, phase 2 wraps only it; a new site restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import Controller, read_outcome, run_healrt, write_spec

PROJECT = '''\
def parse_all(items):
    return [int(x) for x in items]


def average(values):
    total = sum(values)
    return total / len(values)


def mean_of(items):
    values = parse_all(items)
    return average(values)


def scaled(items, factor):
    result = []
    for x in items:
        result.append(int(x) * factor)
    return result
'''

TESTS = '''\
import replproj


def test_two_sites():
    assert replproj.mean_of(["x"]) == 7


def test_one_site():
    assert replproj.scaled(["1", "x", "3"], 2) == [2, 4, 6]
'''


def line_of(fragment: str) -> int:
    return next(n for n, line in enumerate(PROJECT.splitlines(), start=1) if fragment in line)


@pytest.fixture
def replay_spec(tmp_path: Path) -> Any:
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    (source_dir / "replproj.py").write_text(PROJECT)
    (tmp_path / "test_repl.py").write_text(TESTS)

    def make(test_name: str) -> Path:
        node = f"{tmp_path / 'test_repl.py'}::{test_name}"
        return write_spec(tmp_path, source_dir=str(source_dir), project_modules=["replproj"], mode="replay",
                          pytest_args=[node, "-q", "-p", "no:cacheprovider"], code_cache="")
    return make


def test_replay_wraps_only_the_recorded_site_and_heals_it(replay_spec: Any) -> None:
    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        assert ctl.probe("x")["value"] == "'x'"
        assert ctl.heal("x = '2'", resume="retry")["ok"]

    ctl = Controller(on_crash)
    spec = replay_spec("test_one_site")
    run = run_healrt(spec, ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    [context] = ctl.crashes
    crash_line = line_of("result.append(int(x) * factor)")
    assert context["heal_point"] == 1 and context["exception_type"] == "ValueError"
    assert context["statement"]["source"] == "result.append(int(x) * factor)"
    assert context["statement"]["line"] == crash_line
    outcome = ctl.outcome
    assert outcome["passed"] is True and outcome["mode"] == "replay" and outcome["trace_complete"] is False
    assert outcome["replay"] == {"sites": 1, "restarts": 0, "record_reused": False}
    assert outcome["trace"] == {f"replproj.py:{crash_line}": 3}  # only the wrapped statement is traced
    assert len(ctl.of_type("hello")) == 1

    # The record is reused by the next run of the same sources and arguments.
    ctl = Controller(on_crash)
    run_healrt(spec, ctl)
    assert ctl.outcome["replay"]["record_reused"] is True and ctl.outcome["passed"] is True


def test_a_crash_at_a_new_site_restarts_and_replays_earlier_heals(replay_spec: Any) -> None:
    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        if context["heal_point"] == 1:
            assert context["exception_type"] == "ValueError"
            assert ctl.heal("_return_ = []", resume="return")["ok"]
        else:
            assert context["exception_type"] == "ZeroDivisionError"
            assert context["statement"]["source"] == "return total / len(values)"
            assert ctl.heal("_return_ = 7", resume="return")["ok"]

    ctl = Controller(on_crash)
    run = run_healrt(replay_spec("test_two_sites"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [c["heal_point"] for c in ctl.crashes] == [1, 2]
    assert len(ctl.of_type("hello")) == 1  # one session across the restart
    kinds = [m["kind"] for m in ctl.of_type("event")]
    assert kinds.index("replay_restart") < kinds.index("replayed")
    outcome = ctl.outcome
    assert outcome["passed"] is True
    assert (outcome["heal_points"], outcome["heals_applied"]) == (2, 2)
    assert outcome["replay"]["restarts"] == 1 and outcome["replay"]["sites"] == 2


def test_record_phase_without_controller_leaves_the_crash_alone(replay_spec: Any) -> None:
    spec = replay_spec("test_one_site")
    run = run_healrt(spec, None)
    outcome = read_outcome(spec)
    assert run.returncode == 1
    assert outcome["proceeded"] is False and "ValueError" in outcome["detail"]
    assert outcome["replay"]["sites"] == 1 and outcome["heal_points"] == 0
