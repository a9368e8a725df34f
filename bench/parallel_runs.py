#!/usr/bin/env python3
"""Wall time of a whole standalone run at --parallel 1 and at --parallel N, and their ratio, in one invocation.

    python3 bench/parallel_runs.py [--parallel N] [--warmup] [-- RUN-OPTIONS...]

Each measured run is the main job as a user types it (`./healbench run --json --parallel P ...`), timed from the
command's start to its exit, build excluded (the launcher is run once first, on a one-instance slice, so the jar and
the subject caches exist). `--warmup` also runs the slice once before measuring, so both measured runs find every
REFERENCE run cached, which is the steady state; without it the first measured run also records them, which favours
the second. Options after `--` select the slice (default: the whole dataset), e.g. `-- --subject toolz --limit 20`.

Progress goes to stderr; the last stdout line is one JSON object with both wall times, the ratio and each run's
summary line.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "healbench"


def run(options: list[str], parallel: int, label: str = "parallel_runs") -> tuple[float, dict[str, Any]]:
    """One main-job run; its wall time in seconds and its --json summary line. `label` starts its progress lines."""
    command = [str(LAUNCHER), "run", "--json", "--parallel", str(parallel), *options]
    print(f"{label}: {' '.join(command[1:])}", file=sys.stderr, flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    seconds = time.monotonic() - started
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if not lines or not lines[-1].startswith("{"):
        sys.exit(f"{label}: the run at --parallel {parallel} ended with exit {done.returncode} and no summary line")
    summary = json.loads(lines[-1])
    print(f"{label}: --parallel {parallel}: {seconds:.1f} s, exit {done.returncode}, "
          f"{summary['attempts']} attempts, proceeded {summary['proceeded']}, failures {summary['failures']}",
          file=sys.stderr, flush=True)
    return seconds, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 2, help="the parallel run's attempts at once")
    parser.add_argument("--warmup", action="store_true", help="run the slice once first, unmeasured")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="after --: the run's slice options")
    args = parser.parse_args()
    options = [o for o in args.options if o != "--"]
    run(["--limit", "1"], 1)  # builds the launcher's jar if needed; not measured
    if args.warmup:
        run(options, args.parallel)
    serial_s, serial = run(options, 1)
    parallel_s, parallel = run(options, args.parallel)
    result = {
        "cores": os.cpu_count(),
        "slice": options or ["(the whole dataset)"],
        "attempts": serial["attempts"],
        "serial_s": round(serial_s, 1),
        "parallel": args.parallel,
        "parallel_s": round(parallel_s, 1),
        "speedup": round(serial_s / parallel_s, 3),
        "serial_summary": serial,
        "parallel_summary": parallel,
    }
    print(f"--parallel 1: {serial_s / 60:.1f} min; --parallel {args.parallel}: {parallel_s / 60:.1f} min; "
          f"speedup {result['speedup']:.2f}x on {os.cpu_count()} cores")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
