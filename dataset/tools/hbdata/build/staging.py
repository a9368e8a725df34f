"""A candidate written as an instance directory (instance.yaml and bug.patch) under staging/, with a
fresh id of the form <codebase>-<module>-<error>-<function>[-N].
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .. import mine
from ..funnel import Candidate
from ..subjects import Subject, SubjectConfig
from .runs import Job


def id_base(prefix: str, candidate: Candidate, jobs: dict[str, Job]) -> str:
    crash = candidate.failure.crash
    unit = jobs[candidate.mutant_key].unit
    root = mine.root_of(crash["file"] or "", list(unit.roots)) or unit.roots[0]
    parts = mine.module_name(crash["file"] or "", root).split(".")
    if prefix != "stdlib" and len(parts) > 1:
        parts = parts[1:]  # `toolz-itertoolz`, not `toolz-toolz.itertoolz`
    module = slug("".join(parts))
    error = slug(candidate.failure.type.rsplit(".", 1)[-1])
    function = slug(crash["function"] or "module")
    return f"{prefix}-{module}-{error}-{function}"


def slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9.-]", "-", text.lower().replace("_", "-"))).strip("-.")


def _yaml_scalar(text: str) -> str:
    return text if re.fullmatch(r"[A-Za-z0-9_./:-]+", text) and ": " not in text else json.dumps(text)


def stage(subject: Subject, config: SubjectConfig, candidate: Candidate, job: Job, prefix: str, ids: set[str],
          staging: Path) -> Path:
    """The candidate as an instance directory (instance.yaml + bug.patch) under staging/."""
    base = id_base(prefix, candidate, {candidate.mutant_key: job})
    identifier, n = base, 1
    while identifier in ids:
        n += 1
        identifier = f"{base}-{n}"
    ids.add(identifier)
    directory = staging / identifier
    directory.mkdir()
    mutant, failure, crash = job.mutant, candidate.failure, candidate.failure.crash
    (directory / "bug.patch").write_text(mine.bug_patch(mutant, source_text(Path(subject.root), mutant.file)),
                                         encoding="utf-8")
    test_name = failure.test.rpartition("::")[2]
    description = (f"{mutant.describe().removesuffix('.')}; {test_name} then raises {failure.type.rsplit('.', 1)[-1]} "
                   f"in {crash['function']}.")
    roots = ", ".join(job.unit.roots)
    (directory / "instance.yaml").write_text(f"""\
id: {identifier}
subject: {config.subject}
python: "{config.python}"
project_roots: [{roots}]
bug_patch: bug.patch
target_test: {_yaml_scalar(failure.test)}
expected_crash:
  type: {failure.type}
  file: {crash['file']}
  function: {_yaml_scalar(crash['function'])}
  line: {crash['line']}
policy: {config.policy}
provenance:
  kind: injected
  operator: {mutant.operator}
  description: {json.dumps(description)}
determinism:
  PYTHONHASHSEED: "0"
""", encoding="utf-8")
    return directory


def source_text(root: Path, relative: str) -> str:
    return (root / relative).read_text(encoding="utf-8")
