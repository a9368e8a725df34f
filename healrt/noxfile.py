"""healrt's tests on every interpreter it supports, against the installed package.

    nox -f healrt/noxfile.py                     every interpreter, two at a time
    nox -f healrt/noxfile.py -s tests-3.12.1     one of them
    nox -f healrt/noxfile.py -- -k heal_flow     arguments after `--` go to pytest

A session makes a fresh environment with that interpreter (under <cache>/nox, the cache being
$HEALBENCH_CACHE or ~/.cache/healbench), installs the package there (`pip install ./healrt`, which
brings pytest, from the local wheelhouses only) and runs healrt/tests from a scratch directory, so
that `import healrt` finds the installed package and not the source tree
(tests/test_installed_package.py checks it, with HEALRT_TESTS_INSTALLED=1).

The supported interpreters are the dataset tooling's list (hbdata/subjects.py: Debian's python3
and the pyenv versions), found where hbdata finds them. A missing interpreter fails its session.
nox itself comes from `python3 -m hbdata preflight --for tests`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nox

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "dataset" / "tools"))

from hbdata.wheels import wheelhouse_indexes  # noqa: E402  (the path above)
from hbdata.subjects import DEBIAN_PYTHON_VERSION, PYENV_VERSIONS, SubjectError, cache_dir, interpreter  # noqa: E402

nox.needs_version = ">=2026.8.17"  # --parallel and allow_parallel
nox.options.download_python = "never"  # offline: only the interpreters on this machine
nox.options.parallel = 2  # two sessions at a time (the machine has two cores)
nox.options.error_on_missing_interpreters = True
nox.options.envdir = str(cache_dir() / "nox")  # the environments live in HealBench's cache, not in the source tree


def _interpreter(version: str) -> str:
    """The interpreter's path; its version when it is missing (the session then fails, naming it)."""
    try:
        return str(interpreter(version))
    except SubjectError:
        return version


def tests(session: nox.Session) -> None:
    # Installed from the session's own copy of the source: pip builds a source tree in place
    # (its build/ directory), and two sessions building one tree at once collide there.
    source = Path(session.create_tmp()) / "healrt-source"
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
    session.install(*wheelhouse_indexes(), str(source))
    scratch = Path(session.create_tmp()) / "run"
    scratch.mkdir(exist_ok=True)
    session.chdir(scratch)
    session.run("python", "-m", "pytest", "-c", str(HERE / "pytest.ini"), "--rootdir", str(HERE), "-q",
                str(HERE / "tests"), *session.posargs, env={"HEALRT_TESTS_INSTALLED": "1"})


for _version in (DEBIAN_PYTHON_VERSION, *PYENV_VERSIONS):
    nox.session(tests, name=f"tests-{_version}", python=_interpreter(_version), allow_parallel=True)
