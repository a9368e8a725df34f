"""A conftest inside the project (numpy/conftest.py, pandas/conftest.py) imports the project before
any test is collected: it must get the same, instrumented modules the tests get, so a crash reached
through a conftest's fixture still pauses."""

from __future__ import annotations

from pathlib import Path

from helpers import Controller, read_outcome, reraise, run_healrt, write_spec

CORE = '''\
def ratio(a, b):
    return a / b


def average(values):
    return ratio(sum(values), len(values))
'''

CONFTEST = '''\
import pytest

from crashpkg import core


@pytest.fixture
def conftest_core():
    return core
'''

TESTS = '''\
from crashpkg import core


def test_average_through_the_fixture(conftest_core):
    assert conftest_core is core, (conftest_core.__file__, core.__file__)
    conftest_core.average([])
'''


def test_a_project_conftest_imports_the_instrumented_project(tmp_path: Path) -> None:
    package = tmp_path / "src" / "crashpkg"
    (package / "tests").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(CORE)
    (package / "conftest.py").write_text(CONFTEST)
    (package / "tests" / "__init__.py").write_text("")
    (package / "tests" / "test_core.py").write_text(TESTS)
    node = f"{package / 'tests' / 'test_core.py'}::test_average_through_the_fixture"
    spec = write_spec(tmp_path, source_dir=str(tmp_path / "src"), project_modules=["crashpkg"],
                      pytest_args=[node, "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)])
    ctl = Controller(reraise)
    run = run_healrt(spec, ctl)
    assert run.returncode == 1, run.stdout + run.stderr
    outcome = read_outcome(spec)
    # Not an AssertionError from the identity check: the conftest's module is the tests' module.
    assert outcome["crash"] == {"type": "ZeroDivisionError", "file": "crashpkg/core.py", "function": "ratio",
                                "line": 2}
    # And it is instrumented: the crash paused before it was given back.
    assert [c["exception_type"] for c in ctl.crashes] == ["ZeroDivisionError"]
