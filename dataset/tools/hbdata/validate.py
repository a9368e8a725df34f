"""`hbdata validate` (docs/dataset.md §7): BUGGY raises expected_crash on every run, BUGGY pauses
at it under healrt's interception (an agent gets a real attempt), REFERENCE passes on every run. Each result is recorded in `<cache>/validation/<id>-<digest>.json`: a fact
about this machine, never committed; `stats` reads the records.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from . import subjects
from .instances import DATASET_DIR, Crash, Instance, InstanceError, load_all, load_instance
from .materialize import MaterializeError, materialize
from .runner import RunResult, run_target

DEFAULT_RUNS = 3
DEFAULT_JOBS = 2
DEFAULT_TIMEOUT_S = 300.0
# What a record's verdict checked: a record of other checks (an older validate) is no record at all,
# so `stats` validates the instance again rather than count a verdict that never saw it pause.
CHECKS = "buggy,pause,reference"


@dataclasses.dataclass(frozen=True)
class Verdict:
    instance: Instance
    passed: bool
    reason: str          # why it failed; on success, what BUGGY raised
    seconds: float

    def record(self, runs: int) -> dict[str, Any]:
        inst = self.instance
        return {"id": inst.id, "digest": inst.digest, "passed": self.passed, "reason": self.reason,
                "tier": inst.tier, "subject": inst.subject, "codebase": inst.codebase, "python": inst.python,
                "expected_crash": inst.expected_crash.as_dict(), "runs": runs, "checks": CHECKS,
                "seconds": round(self.seconds, 1),
                "validated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def record_path(instance: Instance) -> Path:
    return subjects.cache_dir() / "validation" / f"{instance.id}-{instance.digest}.json"


def read_record(instance: Instance) -> dict[str, Any] | None:
    try:
        record = json.loads(record_path(instance).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("checks") == CHECKS else None


def _write_record(instance: Instance, record: dict[str, Any]) -> None:
    path = record_path(instance)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    scratch.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(scratch, path)  # readers never see half a record


def validate_instance(instance: Instance, runs: int, timeout_s: float) -> Verdict:
    started = time.monotonic()
    try:
        passed, reason = _check(instance, runs, timeout_s)
    except MaterializeError as error:
        passed, reason = False, str(error)
    except Exception as error:  # one instance's unexpected trouble must not end the others' validation
        passed, reason = False, f"{type(error).__name__}: {error}"
    return Verdict(instance, passed, reason, time.monotonic() - started)


def _check(instance: Instance, runs: int, timeout_s: float) -> tuple[bool, str]:
    expected = instance.expected_crash
    with tempfile.TemporaryDirectory(prefix=f"hbdata-{instance.id}-") as scratch:
        buggy = materialize(instance, "buggy", Path(scratch) / "buggy")
        raised = ""
        for run in range(1, runs + 1):
            result = run_target(buggy, timeout_s)
            problem = _buggy_problem(result, expected)
            if problem:
                return False, f"BUGGY run {run}/{runs}: {problem}"
            raised = result.detail
        problem = _pause_problem(run_target(buggy, timeout_s, pause=True), expected)
        if problem:
            return False, f"BUGGY under interception: {problem}"
        reference = materialize(instance, "reference", Path(scratch) / "reference")
        for run in range(1, runs + 1):
            result = run_target(reference, timeout_s)
            if not result.passed:
                return False, f"REFERENCE run {run}/{runs}: {_failure(result)}"
    return True, f"{expected}: {raised[:100]}"


def _buggy_problem(result: RunResult, expected: Crash) -> str | None:
    if not result.ran:
        return _failure(result)
    if result.passed:
        return f"the target test passed; expected {expected}"
    got = result.crash or {}
    if got != expected.as_dict():
        return f"raised {_where(got)}, expected {expected} ({result.detail[:200]})"
    return None


def _pause_problem(result: RunResult, expected: Crash) -> str | None:
    """An agent's attempt is its pauses: the expected exception must pause, and `reraise` must
    give the program's own outcome back."""
    log = result.pause_log
    assert log is not None
    if not log.pauses:
        undecided = f"; undecided catching: {', '.join(log.undecided[:3])}" if log.undecided else ""
        connected = "" if log.connected else "; the runtime never reached the controller"
        return f"it never paused, so an agent would get no attempt{connected}{undecided}"
    # Pauses name the class alone (context.py). Earlier pauses of another type may come first
    # (an error the program goes on to handle, under a construct healrt could not decide).
    expected_name = expected.type.rsplit(".", 1)[-1]
    if expected_name not in log.pauses:
        return f"it paused at {', '.join(log.pauses[:3])}, never at the expected {expected_name}"
    problem = _buggy_problem(result, expected)
    return f"after reraise: {problem}" if problem else None


def _failure(result: RunResult) -> str:
    if not result.ran:
        # The end of the output says why (a traceback's last line); one line per instance.
        return f"the target test did not run ({result.exit_cause}): {' '.join(result.detail.split())[-400:]}"
    crash = f" ({_where(result.crash)})" if result.crash else ""
    return f"the target test failed{crash}: {result.detail[:300]}"


def _where(crash: dict[str, Any] | None) -> str:
    if not crash:
        return "no exception (an assertion or setup failure)"
    if crash.get("file") is None:
        return f"{crash.get('type')} outside the project sources"
    return f"{crash.get('type')} at {crash.get('file')}:{crash.get('function')}:{crash.get('line')}"


def validate_many(instances: list[Instance], runs: int, jobs: int, timeout_s: float,
                  report: Callable[[Verdict], None]) -> list[Verdict]:
    """Validates in parallel (each job is one instance; the work itself is in child processes),
    records every verdict and reports each as it completes."""
    verdicts = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(validate_instance, instance, runs, timeout_s) for instance in instances]
        for future in concurrent.futures.as_completed(futures):
            verdict = future.result()
            _write_record(verdict.instance, verdict.record(runs))
            report(verdict)
            verdicts.append(verdict)
    return verdicts


def stratified_sample(instances: list[Instance], size: int, seed: int) -> list[Instance]:
    """`size` instances drawn at random, spread evenly over the (tier, code base) strata: the strata
    take turns in a random order, each giving one random instance per turn until it runs out."""
    rng = random.Random(seed)
    strata: dict[tuple[str, str], list[Instance]] = defaultdict(list)
    for instance in sorted(instances, key=lambda i: i.id):
        strata[(instance.tier, instance.codebase)].append(instance)
    queues = [strata[key] for key in sorted(strata)]
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    sample: list[Instance] = []
    while len(sample) < size and any(queues):
        for queue in queues:
            if queue and len(sample) < size:
                sample.append(queue.pop())
    return sample


def print_verdict(verdict: Verdict, stream: TextIO) -> None:
    inst = verdict.instance
    print(f"{'PASS' if verdict.passed else 'FAIL'}  {inst.id}  [{inst.tier}, {inst.codebase}, "
          f"{verdict.seconds:.1f}s]  {verdict.reason}", file=stream, flush=True)


def _select(args: argparse.Namespace, out: TextIO) -> tuple[list[Instance], list[InstanceError]]:
    if args.ids:
        loaded, errors = [], []
        for name in args.ids:
            directory = Path(name) if os.sep in name else args.dataset / "instances" / name
            try:
                loaded.append(load_instance(directory))
            except InstanceError as error:
                errors.append(error)
    else:
        loaded, errors = load_all(args.dataset)
    if args.subject:
        loaded = [i for i in loaded if args.subject in (i.subject, i.codebase)]
    if args.tier:
        loaded = [i for i in loaded if i.tier == args.tier]
    if args.sample is not None:
        print(f"sample: {args.sample} of {len(loaded)} instance(s), seed {args.seed}", file=out)
        loaded = stratified_sample(loaded, args.sample, args.seed)
    return loaded, errors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", metavar="ID", help="instance ids or directories (default: all)")
    parser.add_argument("--sample", type=int, help="validate a stratified random sample of this many")
    parser.add_argument("--seed", type=int, help="seed of --sample (default: a random one, printed)")
    parser.add_argument("--subject", help="only instances of this subject string or code base")
    parser.add_argument("--tier", choices=["real-bug", "injected"], help="only instances of this tier")
    add_run_arguments(parser)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", type=Path, default=DATASET_DIR,
                        help="dataset directory holding instances/ (default: this checkout's)")
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help=f"instances at once (default {DEFAULT_JOBS})")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"runs per variant (default {DEFAULT_RUNS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds per test run (default {DEFAULT_TIMEOUT_S:g})")


def validate_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up at call time: tests capture sys.stdout
    if args.sample is not None and args.seed is None:
        args.seed = random.randrange(2**31)
    instances, errors = _select(args, out)
    for error in errors:
        print(f"FAIL  {error}", file=out)
    if not instances and not errors:
        print("no instances selected", file=out)
        return 1
    verdicts = validate_many(instances, args.runs, args.jobs, args.timeout, lambda v: print_verdict(v, out))
    failed = sum(not v.passed for v in verdicts) + len(errors)
    total = len(verdicts) + len(errors)
    print(f"summary: {total - failed}/{total} valid, {failed} failed ({args.runs} BUGGY + {args.runs} REFERENCE "
          f"runs each{'' if args.sample is None else f'; sample seed {args.seed}'})", file=out)
    return 1 if failed else 0


def unvalidated(instances: Iterable[Instance]) -> list[Instance]:
    return [instance for instance in instances if read_record(instance) is None]
