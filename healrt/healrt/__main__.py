"""`python -m healrt --spec FILE`: run the target test under healrt and report the outcome.

The harness (pytest, healrt and everything they import) is imported here, from the pristine
standard library, before the project modules are swapped in (just before pytest loads the first conftest).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from . import guard, replay
from .codecache import CodeCache, cache_dir
from .intercept import install, overlayable
from .plugin import OutcomePlugin
from .runtime import Runtime
from .session import Session
from .spec import Spec, load_spec
from .trace import trace_counts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m healrt")
    parser.add_argument("--spec", required=True, help="path of healrt-spec.json")
    # Replay mode's phase 1 (internal): run uninstrumented, write the crash sites to this file.
    parser.add_argument("--record", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    spec = load_spec(args.spec)
    if spec.mode == "replay" or args.record:
        seeded_env = replay.fixed_hash_seed_env()
        if seeded_env is not None:  # hash randomisation is fixed at interpreter start only
            os.execve(sys.executable, [sys.executable, "-m", "healrt", *argv], seeded_env)
    if args.record:
        return _record(spec, args.record)
    started = float(os.environ.get(replay.STARTED_ENV) or time.monotonic())
    restart_state = os.environ.pop(replay.RESTART_ENV, None)
    session = Session.from_environment()
    if session is not None and restart_state is None:
        session.hello()
    pytest_args = list(spec.pytest_args)
    recorded: list[replay.CrashSite] = []
    script, restarts, record_reused = None, 0, False
    directory = record_path = key = ""
    if spec.mode == "replay":
        directory = replay.replay_dir(spec, args.spec)
        record_path = os.path.join(directory, "record.json")
        key = replay.record_key(spec)
        found = replay.read_record(record_path, key)
        record_reused = found is not None
        if found is None:
            replay.run_record_phase(args.spec, record_path)
            found = replay.read_record(record_path, key)  # None if phase 1 failed: nothing is wrapped
        recorded = found or []
        if restart_state is not None:
            decisions, restarts = replay.read_restart_state(restart_state)
            script = replay.Script(decisions)
        pytest_args = replay.pytest_args(spec, directory)
        replay.seed_random()
    runtime = Runtime(spec, session, replay.selection(recorded) if spec.mode == "replay" else None, script)
    plugin = OutcomePlugin(spec.target_file, spec.target_name, spec.source_dir, lambda: _swap_in_project(spec, runtime))
    crash_sites = replay.CrashSitePlugin(replay.target_predicate(spec), replay.SiteFinder(runtime.table.is_instrumented))
    exit_cause = "exited"
    harness_error = ""  # the test runner itself raised: said in the detail, the cause is "error"
    exit_code = 1
    try:
        exit_code = int(pytest.main(pytest_args, plugins=[plugin, crash_sites] if spec.mode == "replay" else [plugin]))
        new_sites = [site for site in crash_sites.sites if site.key not in {known.key for known in recorded}]
        if new_sites and session is not None and spec.intercept and restarts < spec.max_heal_points \
                and runtime.counters.heal_points < spec.max_heal_points:
            # A crash at a statement this run did not wrap: restart with it wrapped (replay.py).
            replay.write_record(record_path, key, recorded + new_sites)
            state_path = os.path.join(directory, "restart.json")
            replay.write_restart_state(state_path, runtime.decisions, restarts + 1)
            runtime.report_repeats()
            runtime.event("replay_restart", file=new_sites[0].file, line=new_sites[0].line,
                          exception=new_sites[0].exception, restarts=restarts + 1)
            replay.restart(argv, session.fileno(), state_path, started)
    except BaseException as error:
        exit_cause = "error"
        harness_error = f"the test runner raised {type(error).__name__}: {error}"
        raise
    finally:
        outcome: dict[str, Any] = {
            **plugin.outcome_fields(),
            "heal_points": runtime.counters.heal_points,
            "heals_applied": runtime.counters.heals_applied,
            "heals_rejected": runtime.counters.heals_rejected,
            "rejections": runtime.counters.rejections,
            "exit_cause": exit_cause,
            "exit_code": exit_code,
            "wall_time_ms": int((time.monotonic() - started) * 1000),
            "trace": trace_counts(runtime.table, spec.source_dir),
            "mode": spec.mode,
            "trace_complete": spec.mode == "full",
            **guard.outcome_fields(),
        }
        if harness_error:
            outcome["detail"] = "; ".join(part for part in (harness_error, outcome.get("detail")) if part)

        if spec.mode == "replay":
            outcome["replay"] = {"sites": len(recorded), "restarts": restarts, "record_reused": record_reused}
        if spec.outcome_file:
            with guard.internal(), open(spec.outcome_file, "w", encoding="utf-8") as handle:
                json.dump(outcome, handle, indent=1)
        if session is not None:
            try:
                runtime.report_repeats()
                with guard.internal():
                    session.send({"type": "finished", "outcome": outcome})
            except OSError:
                pass  # the controller is gone; the outcome file still has the result
            session.close()
    return exit_code


def _swap_in_project(spec: Spec, runtime: Runtime) -> None:
    excluded = [name for name in spec.project_modules if not overlayable(name)]
    for name in excluded:
        runtime.event("module_not_overlayable", module=name)
    names = [name for name in spec.project_modules if name not in excluded]
    install(spec.source_dir, names, runtime.table, runtime.module_hooks, CodeCache(cache_dir(spec.code_cache), _shared_cache(spec)),
            guard.rewriter())


def _shared_cache(spec: Spec) -> Path | None:
    return Path(spec.shared_code_cache) if spec.shared_code_cache else None


def _record(spec: Spec, record_path: str) -> int:
    """Replay mode's phase 1: the target test with nothing wrapped; its crash sites go to record_path."""
    runtime = Runtime(spec, None, selection={})
    plugin = OutcomePlugin(spec.target_file, spec.target_name, spec.source_dir, lambda: _swap_in_project(spec, runtime))
    crash_sites = replay.CrashSitePlugin(replay.target_predicate(spec), replay.SiteFinder(runtime.table.is_instrumented))
    replay.seed_random()
    exit_code = int(pytest.main(replay.pytest_args(spec, os.path.dirname(record_path)), plugins=[plugin, crash_sites]))
    replay.write_record(record_path, replay.record_key(spec), crash_sites.sites)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
