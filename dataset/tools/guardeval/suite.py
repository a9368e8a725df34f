"""The suite's course: instances -> heal sites (calibrate.py) -> pairs of cases -> runs -> results.

Work runs `jobs` at a time (threads, each waiting on one child process). Every instance is
materialized once under the run root; every run works on a copy that is deleted afterwards
unless `keep` is set. Sites that several instances share (the same interpreter, file, line and
location: e.g. one library frame where several bugs first pause) are used once.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import math
import random
import re
import shutil
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from hbdata import healrt_module
from hbdata.instances import POLICIES_DIR, codebase_of, load_all

from . import calibrate, cases, runner, shapes
from .cases import Case
from .score import CaseResult
from .sites import HealSite
from .static import StaticStage

T = TypeVar("T")
R = TypeVar("R")
_policy = healrt_module("policy")


def merged_policy(name: str) -> dict[str, Any]:
    """The named policy of dataset/policies merged onto the default, as healrt's spec takes it."""
    return _policy.merged_policy(name, POLICIES_DIR)


@dataclasses.dataclass(frozen=True)
class Instance:
    id: str
    dir: Path
    digest: str
    codebase: str
    tier: str
    policy: str
    python: str


def load_instances(only: Iterable[str] = ()) -> list[Instance]:
    loaded, problems = load_all()
    for problem in problems:
        print(f"guard eval: skipping a malformed instance: {problem}", file=sys.stderr)
    wanted = set(only)
    return [Instance(i.id, i.dir, i.digest, codebase_of(i.subject), str(i.provenance.get("kind", "")), i.policy, i.python)
            for i in sorted(loaded, key=lambda i: i.id) if not wanted or i.id in wanted]


class Suite:
    def __init__(self, root: Path, jobs: int, timeout_s: float, keep: bool, stage: StaticStage,
                 log: Callable[[str], None], guard_mode: str = "enforce") -> None:
        self.root = root
        self.guard_mode = guard_mode  # the cases' runs; anything but enforce is for checking the canaries
        self.jobs = jobs
        self.timeout_s = timeout_s
        self.keep = keep
        self.stage = stage
        self.log = log
        self.code_cache = root / "healrt-code"
        self._bases: dict[str, tuple[Path, dict[str, Any]]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._policies: dict[str, dict[str, Any]] = {}

    # ---------------------------------------------------------------- helpers

    def parallel(self, function: Callable[[T], R], items: list[T]) -> list[R]:
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(function, items))

    def policy(self, instance: Instance) -> dict[str, Any]:
        with self._lock:
            if instance.policy not in self._policies:
                self._policies[instance.policy] = merged_policy(instance.policy)
            return self._policies[instance.policy]

    def base(self, instance: Instance) -> tuple[Path, dict[str, Any]]:
        with self._lock:
            lock = self._locks.setdefault(instance.id, threading.Lock())
        with lock:
            if instance.id not in self._bases:
                workspace = self.root / "base" / instance.id
                self._bases[instance.id] = (workspace, runner.materialize(instance.dir, workspace))
            return self._bases[instance.id]

    # ---------------------------------------------------------------- sites

    def site(self, instance: Instance) -> HealSite | None:
        record = calibrate.load_record(instance.id, instance.digest)
        if record is None:
            try:
                base, plan = self.base(instance)
            except runner.WorkspaceError as error:
                self.log(f"site {instance.id}: cannot materialize: {error}")
                return None
            scratch = self.root / "calibration" / instance.id
            record = calibrate.calibrate(base, plan, scratch, self.policy(instance), self.timeout_s, self.code_cache)
            shutil.rmtree(scratch, ignore_errors=True)
            if "error" in record:
                self.log(f"site {instance.id}: {record['error']}")
                return None
            calibrate.save_record(instance.id, instance.digest, record)
        if "refused" in record:
            self.log(f"site {instance.id}: refused: {record['refused']}")
            return None
        site = HealSite.from_json(record["site"])
        self.log(f"site {instance.id}: {site.file}:{site.line} heals `{site.location}`")
        return site

    def sites(self, instances: list[Instance]) -> dict[str, tuple[Instance, HealSite]]:
        """Every usable site of `instances`, by instance id (duplicates too: first_sites drops them)."""
        found = self.parallel(self.site, instances)
        return {i.id: (i, s) for i, s in zip(instances, found) if s is not None}

    # ---------------------------------------------------------------- cases

    def run_case(self, case: Case, instance: Instance) -> CaseResult:
        result = CaseResult(case.id, case.pair, case.instance, case.codebase, case.tier, case.shape, case.sink,
                            case.unsafe)
        try:
            base, plan = self.base(instance)
        except runner.WorkspaceError as error:
            result.invalid = f"materialize: {error}"
            return result
        workspace = self.root / "cases" / case.id
        shutil.rmtree(workspace, ignore_errors=True)
        try:
            self._run_case(case, instance, base, plan, workspace, result)
        finally:
            if not self.keep:
                shutil.rmtree(workspace, ignore_errors=True)
        verdict = "INVALID " + result.invalid if result.invalid else (
            f"{'flagged' if result.dynamic else 'allowed'}" + (" (bool/None rule waived)" if result.waived else "")
            + (f" static={result.static}" if result.static else "") + (" LEAKED" if result.leaked else ""))
        self.log(f"case {case.id} [{case.sink}]: {verdict}")
        return result

    def _run_case(self, case: Case, instance: Instance, base: Path, plan: dict[str, Any], workspace: Path,
                  result: CaseResult) -> None:
        moved = runner.copy_workspace(base, plan, workspace)
        site = case.site
        patched_file = Path(moved["source_dir"]) / site.file
        original = patched_file.read_text(encoding="utf-8")
        block, helpers = case.block(str(workspace))
        patched = cases.insert(original, site, block, helpers, case.prelude())
        problem = calibrate.apply_patch(cases.unified_diff(original, patched.text, site.file), Path(moved["source_dir"]),
                                        moved["python"], patched_file)
        if problem:
            result.invalid = problem
            return
        heal = runner.Heal(case.heal_code(str(workspace)), str(patched_file), patched.statement_line,
                           analyze=self.stage.available)
        policy = self.policy(instance)
        # The static stage runs where the sandbox runs it: between the dry run and the commit, whose
        # static_verdict the dynamic stage then uses (a CLEAN one waives the bool/None rule).
        static = (lambda analysis: self.stage.analyze(analysis, heal.code, policy)) if self.stage.available else None
        run = runner.run(moved, workspace, heal, {"mode": self.guard_mode, "policy": policy}, self.timeout_s,
                         self.code_cache, static)
        result.leaked = any(workspace.glob(case.canary_prefix() + "*"))
        result.effect = any(workspace.glob(case.effect_prefix() + "*"))
        block_lines = range(patched.block_first, patched.block_last + 1)
        for event in run.decisions():
            sink = event.get("sink") or {}
            if _same_file(sink.get("file"), patched_file) and sink.get("line") in block_lines:
                if event.get("kind") == "guard_violation":
                    result.dynamic, result.rule = True, str(event.get("rule"))
                else:
                    result.waived = True
                break
        result.invalid = _invalid(case, run, site, patched.body_line, result)
        answer = run.static_answer
        if answer is not None:
            result.static = str(answer.get("verdict"))
            sink = answer.get("sink") or {}
            if result.static == "TAINTED":
                result.static_sink = f"{sink.get('op')} {sink.get('file')}:{sink.get('line')}"
                result.static_elsewhere = sink.get("file") != site.file or sink.get("line") not in block_lines
            if result.static == "ERROR":
                self.log(f"case {case.id}: AnalyzeHeal failed: {answer.get('error')}")


def _invalid(case: Case, run: runner.RunResult, site: HealSite, body_line: int, result: CaseResult) -> str:
    """Why the run says nothing about the guard ("" when it does)."""
    if run.error:
        return f"run: {run.error}"
    if run.heal_result is None:
        crash = (run.first_crash or {}).get("statement") or {}
        return f"heal not sent: first pause at {crash.get('file')}:{crash.get('line')}"
    if not run.heal_result.get("ok"):
        return f"heal failed: {json.dumps(run.heal_result.get('error'))}"
    reached = (run.outcome or {}).get("trace", {}).get(f"{site.file}:{body_line}", 0)
    if reached == 0:
        return "block not reached after the heal"
    if case.shape == shapes.BOOL_NONE and reached > 1:
        return f"block ran {reached} times (the gate passed before the heal)"
    if case.unsafe and not result.dynamic and not result.leaked:
        return "unsafe operation neither blocked nor run"
    if not case.unsafe and not result.dynamic and not result.effect:
        return "safe operation allowed but without effect"
    return ""


def _same_file(reported: Any, path: Path) -> bool:
    try:
        return reported is not None and Path(str(reported)).resolve() == path.resolve()
    except OSError:
        return False


def _identity(instance: Instance, site: HealSite) -> tuple[str, str, int, str]:
    """Sites with one identity are one site (suite docstring)."""
    return instance.python, site.file, site.line, site.location


def spread(instances: list[Instance]) -> list[Instance]:
    """Instances round-robin over code bases; within one, every bug's first interpreter version
    before any bug's second (cpython3117-x and cpython3121-x are one bug)."""
    by_codebase: dict[str, list[tuple[int, str, Instance]]] = {}
    versions: dict[str, int] = {}
    for instance in sorted(instances, key=lambda i: i.id):
        bug = re.sub(r"^cpython\d+-", "", instance.id)
        versions[bug] = versions.get(bug, -1) + 1
        by_codebase.setdefault(instance.codebase, []).append((versions[bug], bug, instance))
    queues = [sorted(entries, key=lambda e: e[:2]) for _, entries in sorted(by_codebase.items())]
    order: list[Instance] = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0)[2])
    return order


def first_sites(suite: Suite, ordered: list[Instance], limit: int) -> list[tuple[Instance, HealSite]]:
    """The first `limit` distinct usable sites in `ordered` (0: all of them); of a site that several
    instances share, the first instance's."""
    found = suite.sites(ordered) if not limit else _calibrate_until(suite, ordered, limit)
    chosen, seen = [], set()
    for instance in ordered:  # of sites shared by several instances, the first in order
        if instance.id in found and (identity := _identity(*found[instance.id])) not in seen:
            seen.add(identity)
            chosen.append(found[instance.id])
    return chosen[:limit] if limit else chosen


def _calibrate_until(suite: Suite, ordered: list[Instance], limit: int) -> dict[str, tuple[Instance, HealSite]]:
    """Calibrates instances in order, `jobs` at a time, only as far as needed: the next one starts
    when a worker is free and the distinct sites found plus the calibrations running could still
    fall short of `limit`. So a worker never waits for a heavy instance on the other, and the
    instances calibrated are always a prefix of `ordered`: which calibration ends first does not
    change the result."""
    found: dict[str, tuple[Instance, HealSite]] = {}
    pending = iter(ordered)
    with concurrent.futures.ThreadPoolExecutor(max_workers=suite.jobs) as pool:
        running: dict[concurrent.futures.Future[HealSite | None], Instance] = {}
        while True:
            distinct = len({_identity(*pair) for pair in found.values()})
            while len(running) < suite.jobs and distinct + len(running) < limit:
                instance = next(pending, None)
                if instance is None:
                    break
                running[pool.submit(suite.site, instance)] = instance
            if not running:
                break
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                instance = running.pop(future)
                site = future.result()
                if site is not None:
                    found[instance.id] = (instance, site)
    return found


def pair_of(instance: Instance, site: HealSite, shape: str) -> tuple[Case, Case]:
    return (Case(instance.id, instance.codebase, instance.tier, site, shape, True),
            Case(instance.id, instance.codebase, instance.tier, site, shape, False))


def all_pairs(suite: Suite, instances: list[Instance], sites: int, shape_names: tuple[str, ...]) -> list[tuple[Case, Case]]:
    """Every shape at the first `sites` usable sites in spread order (0: every usable site)."""
    return [pair_of(instance, site, shape) for instance, site in first_sites(suite, spread(instances), sites)
            for shape in shape_names if shapes.applies(shape, site.location_kind)]


def sampled_pairs(suite: Suite, instances: list[Instance], sample: int, seed: int,
                  shape_names: tuple[str, ...]) -> list[tuple[Case, Case]]:
    """`sample` cases (rounded up to pairs): one pair per instance where possible, shapes in a
    seeded rotation so every shape appears; instances are calibrated only as far as needed."""
    rng = random.Random(seed)
    order = list(instances)
    rng.shuffle(order)
    need = math.ceil(sample / 2)
    usable = first_sites(suite, order, need)
    rotation = list(shape_names)
    rng.shuffle(rotation)
    chosen: list[tuple[Case, Case]] = []
    pending: list[str] = []  # the shapes of the rotation not used yet in this turn
    for _ in range(len(rotation)):  # more turns over the sites when there are fewer sites than pairs
        for instance, site in usable:
            if len(chosen) == need:
                return chosen
            taken = {case.shape for case, _twin in chosen if case.instance == instance.id}

            def fits() -> list[str]:
                # Shapes still pending that apply to this site's location (a pre-crash alias needs an owner).
                return [shape for shape in pending if shape not in taken and shapes.applies(shape, site.location_kind)]

            if not fits():
                pending += [shape for shape in rotation if shape not in pending]
            if fits():
                shape = fits()[0]
                pending.remove(shape)
                chosen.append(pair_of(instance, site, shape))
    return chosen
