"""The outcome's `crash` without a controller: exception type and innermost frame inside source_dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import read_outcome, run_healrt, write_spec

ERRORS = '''\
class Outer:
    class Inner(Exception):
        pass
'''

CORE = '''\
import json

from .errors import Outer


def ratio(a, b):
    return a / b  # @ratio


def average(values):
    return ratio(sum(values), len(values))  # @average


def decode(text):
    return json.loads(text)  # @decode


def nested():
    raise Outer.Inner("nested")  # @nested
'''

TESTS = '''\
from crashpkg import core


def test_builtin():
    core.average([])


def test_library_error():
    core.decode("{")


def test_custom_nested():
    core.nested()


def test_in_test_only():
    raise KeyError("outside the project")


def test_passes():
    assert core.average([2, 4]) == 3
'''


def _line(marker: str) -> int:
    return next(n for n, text in enumerate(CORE.splitlines(), 1) if text.endswith(f"# @{marker}"))


@pytest.fixture
def crashing_project(tmp_path: Path) -> Path:
    package = tmp_path / "src" / "crashpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "errors.py").write_text(ERRORS)
    (package / "core.py").write_text(CORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_crashes.py").write_text(TESTS)
    return tmp_path


def _outcome(root: Path, test_name: str) -> dict[str, Any]:
    node = f"{root / 'tests' / 'test_crashes.py'}::{test_name}"
    spec = write_spec(root, source_dir=str(root / "src"), project_modules=["crashpkg"],
                      pytest_args=[node, "-q", "-p", "no:cacheprovider"], intercept=False)
    run = run_healrt(spec, None)
    assert run.returncode in (0, 1, 4), run.stdout + run.stderr  # 4: pytest found no such test
    return read_outcome(spec)


@pytest.mark.parametrize(("test_name", "expected"), [
    ("test_builtin", {"type": "ZeroDivisionError", "file": "crashpkg/core.py", "function": "ratio",
                      "line": _line("ratio")}),
    # Raised inside the stdlib's json: the innermost frame inside source_dir is the project's caller.
    ("test_library_error", {"type": "json.decoder.JSONDecodeError", "file": "crashpkg/core.py",
                            "function": "decode", "line": _line("decode")}),
    ("test_custom_nested", {"type": "crashpkg.errors.Outer.Inner", "file": "crashpkg/core.py",
                            "function": "nested", "line": _line("nested")}),
    ("test_in_test_only", {"type": "KeyError", "file": None, "function": None, "line": None}),
])
def test_crash_names_type_and_innermost_project_frame(crashing_project: Path, test_name: str,
                                                      expected: dict[str, Any]) -> None:
    outcome = _outcome(crashing_project, test_name)
    assert (outcome["ran"], outcome["passed"]) == (True, False)
    assert outcome["crash"] == expected


def test_passing_target_has_no_crash(crashing_project: Path) -> None:
    outcome = _outcome(crashing_project, "test_passes")
    assert (outcome["ran"], outcome["passed"]) == (True, True)
    assert outcome["crash"] is None


def test_a_target_that_never_ran(crashing_project: Path) -> None:
    outcome = _outcome(crashing_project, "test_nosuch")
    assert (outcome["ran"], outcome["passed"], outcome["crash"]) == (False, False, None)
