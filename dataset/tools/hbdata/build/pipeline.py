"""The builder's course: mine the units' mutants, drop those the dataset has, run the rest's tests
against REFERENCE then against each sampled mutant, screen the failures through the funnel, pick
and check the candidates."""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from .. import mine
from ..funnel import Funnel, screen
from ..instances import STDLIB_CODEBASE
from ..subjects import Subject, SubjectConfig, cache_dir
from . import picking, runs, selection
from .picking import Accepted
from .runs import Job
from .selection import Unit
from .staging import slug


def build(subject: Subject, config: SubjectConfig, options: dict[str, Any],
          dataset_dir: Path) -> tuple[Funnel, list[Accepted]]:
    funnel = Funnel()
    rng = random.Random(options["seed"])
    work = cache_dir() / "build" / slug(subject.spec)
    work.mkdir(parents=True, exist_ok=True)
    root = Path(subject.root)
    units = selection.units(subject, config, options["only"])
    index = selection.test_index(root, config, subject.kind == STDLIB_CODEBASE)
    unit_of: dict[str, Unit] = {}
    mutants: list[mine.Mutant] = []
    for unit in units:
        for mutant in mine.enumerate_mutants(root, list(unit.roots), tuple(options["operators"])):
            unit_of[mutant.file] = unit
            mutants.append(mutant)
    funnel.mutants["mutants mined"] = len(mutants)
    existing = picking.existing_instances(dataset_dir, config.codebase)
    patched = {file for file, _ in existing.changes}
    fresh = [m for m in mutants if m.file not in patched or picking.mutant_change(m, root) not in existing.changes]
    funnel.mutants["mutants already in the dataset"] = len(mutants) - len(fresh)
    selections = {file: selection.select_tests(file, unit_of[file], index) for file in {m.file for m in fresh}}
    print(f"{subject.spec}: {len(fresh)} mutants in {len(units)} unit(s)", file=sys.stderr)
    # REFERENCE first: a module whose tests do not pass (or take too long) is not mined.
    baselines = runs.baselines(subject, config, {selections[m.file]: unit_of[m.file] for m in fresh if selections[m.file]},
                               work, options["jobs"])
    usable = [m for m in fresh if selections[m.file] in baselines]
    funnel.mutants["mutants without usable tests"] = len(fresh) - len(usable)
    sample = selection.sample_mutants(usable, options, rng)
    funnel.mutants["mutants run"] = len(sample)
    jobs = [Job(m, unit_of[m.file], selections[m.file], baselines[selections[m.file]]) for m in sample]
    failures = runs.run_mutants(subject, config, jobs, work, options["jobs"], funnel)
    candidates = screen(funnel, failures)
    jobs_by_key = {job.mutant.key: job for job in jobs}
    accepted = picking.accept(subject, config, candidates, jobs_by_key, existing, options, work, dataset_dir, funnel, rng)
    return funnel, accepted
