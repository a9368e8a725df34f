"""Picking among the screened candidates: a balanced pick by error type (module caps, one instance
per mutant, crash site and target test), each pick staged and checked for determinism through the
real validation path, the accepted ones written; what the dataset already holds is not picked again.
"""
from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import functools
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from .. import mine
from ..funnel import Candidate, Funnel, check_determinism, record_reference
from ..instances import STDLIB_CODEBASE, InstanceError, load_all, load_instance
from ..materialize import MaterializeError
from ..subjects import Subject, SubjectConfig
from .runs import Job
from .staging import id_base, slug, source_text, stage

# The error-type mix to aim for (the reference's): TypeError > AttributeError > ValueError >
# IndexError > KeyError > others. A share, not a quota: types without candidates leave room.
TYPE_WEIGHTS = {"TypeError": 0.30, "AttributeError": 0.22, "ValueError": 0.16, "IndexError": 0.12,
                "KeyError": 0.10, "other": 0.10}
RUN_TIMEOUT_S = 300.0        # one healrt run of the target test, in the determinism check
PER_FUNCTION = 2             # instances per crashing function
NOT_MATERIALIZED = "not materialized"
MAX_NOT_MATERIALIZED = 5     # in a row: the staging or the tooling is broken, not the mutants


@dataclasses.dataclass
class Accepted:
    id: str
    directory: Path
    type: str
    module: str


@dataclasses.dataclass
class Existing:
    changes: set[tuple[str, str]]   # (file, changed lines) of this code base's bug patches
    ids: set[str]
    id_bases: set[str]


def existing_instances(dataset_dir: Path, codebase: str) -> Existing:
    """Instances already in the dataset: their ids, and what the bug patches of this code base
    change. A rerun must not write the same mutant twice, nor another stdlib version the same
    edit of the same module again."""
    instances, _ = load_all(dataset_dir)
    changes = {_change(i.bug_patch.read_text(encoding="utf-8")) for i in instances
               if i.codebase == codebase and i.bug_patch is not None and i.bug_patch.is_file()}
    ids = {d.name for d in (dataset_dir / "instances").iterdir()} if (dataset_dir / "instances").is_dir() else set()
    return Existing(changes, ids, {re.sub(r"-\d+$", "", i) for i in ids})


def mutant_change(mutant: mine.Mutant, root: Path) -> tuple[str, str]:
    """What `_change` says of the mutant's patch, without diffing the whole file per mutant."""
    old = _lines(root, mutant.file)[mutant.start - 1: mutant.end]
    changed = ["-" + line.strip() for line in old] + ["+" + line.strip() for line in mutant.new.splitlines()]
    return mutant.file, "\n".join(changed)


@functools.lru_cache(maxsize=None)
def _lines(root: Path, relative: str) -> tuple[str, ...]:
    return tuple(source_text(root, relative).splitlines())


def _change(patch: str) -> tuple[str, str]:
    """A patch's file and its removed and added lines, without positions or indentation."""
    lines = patch.splitlines()
    file = next((line[6:].strip() for line in lines if line.startswith("--- a/")), "")
    changed = [line[0] + line[1:].strip() for line in lines
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return file, "\n".join(changed)


def _type_bucket(name: str) -> str:
    return name if name in TYPE_WEIGHTS else "other"


def accept(subject: Subject, config: SubjectConfig, candidates: list[Candidate], jobs: dict[str, Job],
           existing: Existing, options: dict[str, Any], work: Path, dataset_dir: Path, funnel: Funnel,
           rng: random.Random) -> list[Accepted]:
    """Stages 6-7 over a balanced pick: the error-type bucket furthest below its share goes next;
    within a bucket, modules take turns and crash sites new to the dataset come first."""
    prefix = "stdlib" if config.codebase == STDLIB_CODEBASE else slug(config.codebase)
    queues: dict[str, list[Candidate]] = collections.defaultdict(list)
    for candidate in rng.sample(candidates, len(candidates)):
        bucket = _type_bucket(candidate.failure.type)
        if options["types"] and bucket not in options["types"]:
            funnel.enter("picked")
            funnel.drop("picked", "error type not asked for")
            continue
        queues[bucket].append(candidate)
    for bucket, queue in queues.items():
        # Fresh id bases first, then spread over modules (the k-th candidate of each module before
        # the k+1-th of any).
        seen: collections.Counter[str] = collections.Counter()
        ranked = []
        for candidate in queue:
            module = candidate.failure.crash.get("file") or ""
            ranked.append(((id_base(prefix, candidate, jobs) in existing.id_bases), seen[module], candidate))
            seen[module] += 1
        queues[bucket] = [c for _, _, c in sorted(ranked, key=lambda r: (r[0], r[1]))]
    accepted: list[Accepted] = []
    taken = {"mutants": set(), "sites": set(), "tests": set()}
    per_module: collections.Counter[str] = collections.Counter()
    per_function: collections.Counter[tuple[str, str]] = collections.Counter()
    staging = work / "staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    ids = set(existing.ids)

    def next_candidate() -> Candidate | None:
        while True:
            open_buckets = [b for b in queues if queues[b]]
            if not open_buckets:
                return None
            counts = collections.Counter(a.type for a in accepted)
            bucket = min(open_buckets, key=lambda b: (counts[b] + pending_types[b]) / TYPE_WEIGHTS[b])
            candidate = queues[bucket].pop(0)
            crash = candidate.failure.crash
            reason = _cap_reason(candidate, crash, taken, per_module, per_function, options)
            funnel.enter("picked")
            if reason:
                funnel.drop("picked", reason)
                continue
            taken["mutants"].add(candidate.mutant_key)
            taken["sites"].add((crash["file"], crash["line"]))
            taken["tests"].add(candidate.failure.test)
            per_module[crash["file"]] += 1
            per_function[(crash["file"], crash["function"])] += 1
            return candidate

    pending_types: collections.Counter[str] = collections.Counter()
    limit = options["limit"]
    broken = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=options["jobs"]) as pool:
        pending: dict[concurrent.futures.Future, tuple[Candidate, Path]] = {}
        while True:
            while len(pending) < options["jobs"] and len(accepted) + len(pending) < limit:
                candidate = next_candidate()
                if candidate is None:
                    break
                directory = stage(subject, config, candidate, jobs[candidate.mutant_key], prefix, ids, staging)
                pending_types[_type_bucket(candidate.failure.type)] += 1
                pending[pool.submit(_determinism, directory, candidate)] = (candidate, directory)
            if not pending:
                break
            finished, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                candidate, directory = pending.pop(future)
                bucket = _type_bucket(candidate.failure.type)
                pending_types[bucket] -= 1
                funnel.enter("deterministic")
                ok, reason = future.result()
                broken = broken + 1 if reason == NOT_MATERIALIZED else 0
                if broken >= MAX_NOT_MATERIALIZED:
                    raise BuildError(f"{broken} candidates in a row could not be materialized (see above)")
                if not ok:
                    funnel.drop("deterministic", reason)
                    _release(candidate, taken, per_module, per_function)
                    shutil.rmtree(directory)
                    ids.discard(directory.name)
                    continue
                funnel.enter("recorded")
                target = directory
                if options["write"]:
                    target = dataset_dir / "instances" / directory.name
                    shutil.copytree(directory, target)
                accepted.append(Accepted(directory.name, target, bucket, candidate.failure.crash["file"]))
                print(f"  accepted {directory.name}: {candidate.failure.type} ({reason})", file=sys.stderr)
    # Candidates still queued when the limit was reached were never picked.
    leftover = sum(len(q) for q in queues.values())
    if leftover:
        funnel.enter("picked", leftover)
        funnel.drop("picked", "limit reached", leftover)
    return accepted


def _cap_reason(candidate: Candidate, crash: dict[str, Any], taken: dict[str, set], per_module: collections.Counter,
                per_function: collections.Counter, options: dict[str, Any]) -> str | None:
    if not crash.get("file") or not crash.get("line"):
        return "no crash frame in the overlay"
    if candidate.mutant_key in taken["mutants"]:
        return "one instance per mutant"
    if (crash["file"], crash["line"]) in taken["sites"]:
        return "one instance per crash site"
    if candidate.failure.test in taken["tests"]:
        return "one instance per target test"
    if per_module[crash["file"]] >= options["max_per_module"]:
        return "module cap"
    if per_function[(crash["file"], crash["function"])] >= PER_FUNCTION:
        return "function cap"
    return None


def _release(candidate: Candidate, taken: dict[str, set], per_module: collections.Counter,
             per_function: collections.Counter) -> None:
    """A candidate that failed the determinism check frees its mutant, site, test and caps."""
    crash = candidate.failure.crash
    taken["mutants"].discard(candidate.mutant_key)
    taken["sites"].discard((crash["file"], crash["line"]))
    taken["tests"].discard(candidate.failure.test)
    per_module[crash["file"]] -= 1
    per_function[(crash["file"], crash["function"])] -= 1


class BuildError(RuntimeError):
    """Something wrong with every candidate alike (the tooling, not the mutant): stop."""


def _determinism(directory: Path, candidate: Candidate) -> tuple[bool, str]:
    try:
        instance = load_instance(directory)
        result = check_determinism(instance, candidate.failure.message, RUN_TIMEOUT_S)
    except (InstanceError, MaterializeError, OSError) as error:
        print(f"  {directory.name}: {error}", file=sys.stderr)
        return False, NOT_MATERIALIZED
    if result.ok:
        record_reference(instance, result)
    return result.ok, result.reason
