"""The builder's funnel (dataset/README.md, "Injected tier"): which failures of a mutated subject
become instances.

Stages, each counted (kept, and dropped by reason):
1. the mutant's run: a test that passes on REFERENCE fails on BUGGY;
2. a runtime error (not an assertion, import, syntax, warning, environment or configuration error;
   first, so that a failed unittest assertion counts as an assertion, not as unittest's code);
3. raised in project code (not in test code, third-party code, setup or teardown);
4. resumable (not a signal, RecursionError, MemoryError, SystemExit);
5. unique by (test, message);
then, for the candidates the builder picks:
6. deterministic: through the real validation path (materialize + runner.run_target, i.e. under
   healrt), BUGGY raises the same (type, file, function, line, message) on 3 runs and REFERENCE
   passes 3 of 3;
7. the REFERENCE run recorded under `<cache>/reference/<id>-<digest>.json`.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

from .subjects import cache_dir
from .instances import Instance
from .materialize import materialize
from .runner import RunResult, run_target
from .suiterun import Failure

STAGES = (
    ("run", "BUGGY fails, REFERENCE passes"),
    ("runtime", "a runtime error"),
    ("project", "raised in project code"),
    ("resumable", "can resume"),
    ("unique", "unique (test, message)"),
    ("picked", "picked (mix and caps)"),
    ("deterministic", "deterministic over 3 runs"),
    ("recorded", "reference run recorded"),
)

# Not a runtime error of the program. Matched against the exception's MRO, first hit wins.
EXCLUDED_TYPES = (
    ("AssertionError", "assertion"),
    ("ImportError", "import"),
    ("SyntaxError", "syntax"),
    ("Warning", "warning"),
    ("OSError", "environment"),
    ("_pytest.config.exceptions.UsageError", "configuration"),
    ("unittest.case.SkipTest", "configuration"),
)
# A heal cannot resume after these (the process or the stack is gone or unusable).
NON_RESUMABLE = (
    ("KeyboardInterrupt", "signal"),
    ("SystemExit", "SystemExit"),
    ("GeneratorExit", "GeneratorExit"),
    ("RecursionError", "RecursionError"),
    ("MemoryError", "MemoryError"),
)
RUNS = 3


class Funnel:
    """Counts per stage: how many items entered, and why each dropped one left."""

    def __init__(self) -> None:
        self.entered: collections.Counter[str] = collections.Counter()
        self.dropped: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.mutants: collections.Counter[str] = collections.Counter()

    def enter(self, stage: str, count: int = 1) -> None:
        self.entered[stage] += count

    def drop(self, stage: str, reason: str, count: int = 1) -> None:
        self.dropped[stage][reason] += count

    def kept(self, stage: str) -> int:
        return self.entered[stage] - sum(self.dropped[stage].values())

    def table(self) -> str:
        rows = [("stage", "in", "kept", "dropped (by reason)")]
        rows += [(label, str(n), "", "") for label, n in self.mutants.items()]
        for index, (stage, label) in enumerate(STAGES, 1):
            reasons = ", ".join(f"{reason} {n}" for reason, n in self.dropped[stage].most_common())
            rows.append((f"{index}. {label}", str(self.entered[stage]), str(self.kept(stage)), reasons or "-"))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        return "\n".join(f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}".rstrip()
                         for r in rows)

    def as_dict(self) -> dict[str, Any]:
        return {"mutants": dict(self.mutants),
                "stages": {stage: {"in": self.entered[stage], "kept": self.kept(stage),
                                   "dropped": dict(self.dropped[stage])} for stage, _ in STAGES}}


def rejection(failure: Failure) -> tuple[str, str] | None:
    """(stage, reason) for a failure the funnel drops at stages 2-4, None for one it keeps."""
    for name, reason in EXCLUDED_TYPES:
        if name in failure.bases:
            return "runtime", reason
    if failure.when != "call":
        return "project", f"in {failure.when}"
    if failure.raised_in == "test":
        return "project", "raised in test code"
    if failure.raised_in != "project":
        return "project", "raised in third-party code"
    for name, reason in NON_RESUMABLE:
        if name in failure.bases:
            return "resumable", reason
    if "Exception" not in failure.bases:
        return "resumable", "not an Exception"
    return None


@dataclasses.dataclass(frozen=True)
class Candidate:
    mutant_key: str
    failure: Failure


def screen(funnel: Funnel, runs: Iterable[tuple[str, list[Failure]]]) -> list[Candidate]:
    """Stages 2 to 5 over the new failures of each mutant (stage 1 is counted by the caller)."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for mutant_key, failures in runs:
        for failure in failures:
            verdict = rejection(failure)
            stages = [stage for stage, _ in STAGES]
            last = stages.index(verdict[0]) if verdict else stages.index("unique")
            for stage in stages[stages.index("runtime"): last + 1]:
                funnel.enter(stage)
            if verdict:
                funnel.drop(*verdict)
                continue
            key = (failure.test, failure.message)
            if key in seen:
                funnel.drop("unique", "same test and message")
                continue
            seen.add(key)
            kept.append(Candidate(mutant_key, failure))
    return kept


@dataclasses.dataclass(frozen=True)
class Determinism:
    ok: bool
    reason: str                         # why not, or what BUGGY raised
    reference_runs: list[RunResult]
    reference_outcome: dict[str, Any] | None   # healrt's outcome file of the last REFERENCE run


def check_determinism(instance: Instance, message: str, timeout_s: float, runs: int = RUNS) -> Determinism:
    """BUGGY raises the instance's expected_crash with the suite run's message on every run, and
    REFERENCE passes on every run, through the real validation path."""
    expected = instance.expected_crash.as_dict()
    with tempfile.TemporaryDirectory(prefix=f"hbdata-det-{instance.id}-") as scratch:
        buggy = materialize(instance, "buggy", Path(scratch) / "buggy")
        details = set()
        for run in range(1, runs + 1):
            result = run_target(buggy, timeout_s)
            if not result.ran:
                return Determinism(False, f"BUGGY: target did not run ({result.exit_cause})", [], None)
            if result.passed:
                return Determinism(False, "BUGGY: passed alone", [], None)
            if result.crash != expected:
                return Determinism(False, "BUGGY: other crash than in the suite run" if run == 1
                                   else "BUGGY: crash differs between runs", [], None)
            if message not in result.detail:
                return Determinism(False, "BUGGY: other message than in the suite run", [], None)
            details.add(result.detail)
        if len(details) != 1:
            return Determinism(False, "BUGGY: message differs between runs", [], None)
        reference = materialize(instance, "reference", Path(scratch) / "reference")
        results = []
        for _ in range(runs):
            result = run_target(reference, timeout_s)
            results.append(result)
            if not result.passed:
                return Determinism(False, f"REFERENCE: {'did not run' if not result.ran else 'failed'}", results, None)
        try:
            outcome = json.loads((reference.workspace / "outcome.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            outcome = None
    return Determinism(True, details.pop()[:200], results, outcome)


def reference_record_path(instance: Instance) -> Path:
    return cache_dir() / "reference" / f"{instance.id}-{instance.digest}.json"


def record_reference(instance: Instance, determinism: Determinism) -> Path:
    path = reference_record_path(instance)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"id": instance.id, "digest": instance.digest, "variant": "reference",
              "runs": [dataclasses.asdict(r) for r in determinism.reference_runs],
              "outcome": determinism.reference_outcome}
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    scratch.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(scratch, path)
    return path
