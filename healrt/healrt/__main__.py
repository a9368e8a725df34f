"""`python -m healrt --spec FILE`: run the target test under healrt and report the outcome.

The harness (pytest, healrt and everything they import) is imported here, from the pristine
standard library, before the project modules are swapped in at collection time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import pytest

from .intercept import install, overlayable
from .plugin import OutcomePlugin
from .runtime import Runtime
from .session import Session
from .spec import load_spec
from .trace import trace_counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m healrt")
    parser.add_argument("--spec", required=True, help="path of healrt-spec.json")
    args = parser.parse_args(argv)
    spec = load_spec(args.spec)
    started = time.monotonic()
    session = Session.from_environment()
    if session is not None:
        session.hello()
    runtime = Runtime(spec, session)

    def swap_in_project() -> None:
        excluded = [name for name in spec.project_modules if not overlayable(name)]
        for name in excluded:
            runtime.event("module_not_overlayable", module=name)
        names = [name for name in spec.project_modules if name not in excluded]
        install(spec.source_dir, names, runtime.table, runtime.hooks)

    plugin = OutcomePlugin(spec.target_file, spec.target_name, swap_in_project)
    exit_cause = "exited"
    exit_code = 1
    try:
        exit_code = int(pytest.main(list(spec.pytest_args), plugins=[plugin]))
    except BaseException as error:
        exit_cause = f"error: {type(error).__name__}: {error}"
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
        }
        if spec.outcome_file:
            with open(spec.outcome_file, "w", encoding="utf-8") as handle:
                json.dump(outcome, handle, indent=1)
        if session is not None:
            try:
                session.send({"type": "finished", "outcome": outcome})
            except OSError:
                pass  # the controller is gone; the outcome file still has the result
            session.close()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
