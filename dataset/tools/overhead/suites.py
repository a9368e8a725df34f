"""The code the benchmark runs: stdlib modules with their own CPython test files, and a Debian source package."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sysconfig
from pathlib import Path

# hbdata owns subject fetching: the same cache and apt setup as the dataset.
from hbdata import subjects


@dataclasses.dataclass(frozen=True)
class Suite:
    name: str
    python: str
    source_dir: str
    project_modules: tuple[str, ...]
    tests: str  # the test file or directory given to pytest
    # Whether runs pause at crashes (a controller answers `reraise`). A whole directory of test
    # files has no single target file whose frames end the "would it be caught?" walk, so
    # directory suites run with intercept off: instrumentation and trace only.
    intercept: bool


def stdlib_suite(module: str, work: Path, python: str) -> Suite | None:
    """`module`.py copied into an overlay, tested by CPython's own test/test_<module>.py."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    source, tests = stdlib / f"{module}.py", stdlib / "test" / f"test_{module}.py"
    if not source.is_file() or not tests.is_file():
        return None
    overlay = work / f"stdlib-{module}"
    overlay.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, overlay / source.name)
    return Suite(module, python, str(overlay), (module,), str(tests), True)


def toolz_suite() -> tuple[Suite | None, str]:
    """toolz from Debian's source package (hbdata's subject catalog fetches it into the cache),
    tested with its own tests by Debian's python3."""
    try:
        subject = subjects.resolve("toolz")
    except (subjects.SubjectError, subjects.FetchError) as error:
        return None, str(error)
    probe = subprocess.run([str(subject.python), "-c", "import pytest"], capture_output=True, timeout=60)
    if probe.returncode != 0:
        return None, f"pytest missing for {subject.python} (apt-get install python3-pytest)"
    # toolz/tests is inside the package: intercept.py leaves test code uninstrumented.
    return Suite("toolz", str(subject.python), str(subject.root), ("toolz", "tlz"),
                 str(subject.root / "toolz" / "tests"), False), f"{subject.spec} at {subject.root}"
