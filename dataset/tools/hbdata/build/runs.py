"""Running a selection of a subject's tests on a workspace (REFERENCE, or one mutant applied), with
results cached across builds: the baselines (which tests pass on REFERENCE, how long they take) and
the mutant runs (which of those tests each mutant makes fail).
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from .. import HEALRT_DIR, mine, procgroup, sourcetree, suiterun
from ..funnel import Funnel
from ..materialize import BASE_ENV, place_project
from ..subjects import Subject, SubjectConfig
from ..suiterun import SuiteResult, run_suite
from .selection import Unit

DETERMINISM = {"PYTHONHASHSEED": "0"}
BASELINE_LIMIT_S = 40.0      # a module whose tests take longer on REFERENCE is not mined (mutants x runs)


@dataclasses.dataclass(frozen=True)
class Job:
    mutant: mine.Mutant
    unit: Unit
    tests: tuple[str, ...]         # test files, relative to the subject root
    baseline: SuiteResult


def _workspace(subject: Subject, unit: Unit, work: Path, mutant: mine.Mutant | None) -> Path:
    """The unit's roots placed as materialize places them (a copy of pandas per mutant run would
    cost more than the run); the mutated file gets its own copy first."""
    workspace = Path(tempfile.mkdtemp(prefix="ws-", dir=work))
    source = workspace / "src"
    place_project(subject, unit.roots, source)
    if mutant is not None:
        path = source / mutant.file
        sourcetree.detach([path])
        path.write_text(mutant.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
    return workspace


def _suite(subject: Subject, config: SubjectConfig, unit: Unit, tests: tuple[str, ...], workspace: Path,
           timeout_s: float) -> SuiteResult:
    source = workspace / "src"
    # A test inside a project root runs from the overlay, as materialize resolves target tests.
    paths = [str(source / t) if (source / t).is_file() else str(Path(subject.root) / t) for t in tests]
    args = [*config.pytest_args, *(f"--deselect={d}" for d in config.deselect)]
    return run_suite(python=str(subject.python), workspace=workspace, subject_root=Path(subject.root),
                     project_modules=list(unit.modules), project_roots=list(unit.roots),
                     import_root=config.import_root, tests=paths,
                     pytest_args=args, pythonpath=[str(p) for p in subject.pythonpath],
                     env={**BASE_ENV, **DETERMINISM}, healrt_dir=HEALRT_DIR, timeout_s=timeout_s)


def _cached(path: Path, compute: Callable[[], SuiteResult]) -> SuiteResult:
    """Suite results are kept: a rerun of the builder (a new seed, a larger limit) reuses them."""
    try:
        return SuiteResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    result = compute()
    if result.status != "error":  # a runner that could not start says nothing about the mutant
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result.to_json()), encoding="utf-8")
    return result


# A cached suite result is only as good as the runner that produced it.
_RUNNER_VERSION = hashlib.sha256(b"".join(Path(module.__file__).read_bytes() for module in (suiterun, procgroup))).hexdigest()


def _key(*parts: Iterable[str] | str) -> str:
    text = "\0".join(p if isinstance(p, str) else "\1".join(p) for p in [_RUNNER_VERSION, *parts])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _run_in_workspace(subject: Subject, config: SubjectConfig, unit: Unit, tests: tuple[str, ...], work: Path,
                      mutant: mine.Mutant | None, timeout_s: float) -> SuiteResult:
    workspace = _workspace(subject, unit, work, mutant)
    try:
        return _suite(subject, config, unit, tests, workspace, timeout_s)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def baselines(subject: Subject, config: SubjectConfig, wanted: dict[tuple[str, ...], Unit], work: Path,
              jobs: int) -> dict[tuple[str, ...], SuiteResult]:
    """REFERENCE runs of each test selection: which tests pass on the pristine subject, and how long
    they take. A selection that times out, errors, or passes nothing is unusable."""
    def run(tests: tuple[str, ...]) -> tuple[tuple[str, ...], SuiteResult]:
        unit = wanted[tests]
        key = _key(str(subject.python), unit.roots, tests, config.pytest_args, config.deselect)
        return tests, _cached(work / "baseline" / f"{key}.json",
                              lambda: _run_in_workspace(subject, config, unit, tests, work, None, BASELINE_LIMIT_S))

    usable = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for tests, result in pool.map(run, sorted(wanted)):
            passing = sum(1 for o in result.outcomes.values() if o == "passed")
            if result.status == "ok" and passing:
                usable[tests] = result
            else:
                print(f"  baseline unusable ({result.status}, {passing} passing): {' '.join(tests)} "
                      f"{result.detail[-300:]}", file=sys.stderr)
    return usable


def run_mutants(subject: Subject, config: SubjectConfig, jobs: list[Job], work: Path, parallel: int,
                funnel: Funnel) -> list[tuple[str, list]]:
    def run(job: Job) -> tuple[Job, SuiteResult]:
        key = _key(str(subject.python), job.mutant.key, job.tests, config.pytest_args, config.deselect)
        # A mutant may loop forever (an index that never reaches the end): allow a few times the
        # REFERENCE run's time, not more.
        timeout = min(BASELINE_LIMIT_S * 2, max(12.0, 5 * job.baseline.seconds + 5))
        return job, _cached(work / "runs" / f"{key}.json",
                            lambda: _run_in_workspace(subject, config, job.unit, job.tests, work, job.mutant, timeout))

    runs = []
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for job, result in pool.map(run, jobs):
            done += 1
            if done % 25 == 0:
                print(f"  ran {done}/{len(jobs)} mutants", file=sys.stderr)
            if result.status != "ok":
                funnel.mutants[f"mutant runs: {result.status}"] += 1
                continue
            passing = {test for test, outcome in job.baseline.outcomes.items() if outcome == "passed"}
            funnel.enter("run", len(result.failures))
            new = [f for f in result.failures if f.test in passing]
            if len(result.failures) > len(new):
                funnel.drop("run", "fails on REFERENCE too", len(result.failures) - len(new))
            if not new:
                funnel.mutants["mutant runs: no new failure"] += 1
            runs.append((job.mutant.key, new))
    return runs
