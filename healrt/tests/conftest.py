"""Fixtures: a small project (`healproj`) in a tmp source_dir and a target test file for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from helpers import write_spec

PROJECT = '''\
"""A tiny project with crash sites."""

import contextlib

SCALE = 1


def total(items):
    acc = 0
    for x in items:
        acc += int(x) * SCALE
    return acc


def parse(text):
    return int(text)


def run_total(items):
    result = total(items)
    return result


def safe_total(items):
    try:
        return total(items)
    except ValueError:
        return -1


def wrong_catch(items):
    try:
        return total(items)
    except KeyError:
        return -2


def suppressed(items):
    with contextlib.suppress(ValueError):
        return total(items)
    return -3


def safe_int(text):
    try:
        value = int(text)
    except (TypeError, ValueError):
        value = 0
    return value
'''

MODULE_LEVEL = '''\
LIMIT = int("five")
DOUBLE = LIMIT * 2
'''

TARGET_TESTS = '''\
import unittest

import pytest

import healproj


def test_skip():
    assert healproj.total(["1", "x", "2"]) == 3


def test_retry():
    assert healproj.total(["1", "x", "2"]) == 8


def test_return_at_return_site():
    assert healproj.parse("x") == 42


def test_return_mid_function():
    assert healproj.total(["1", "x", "2"]) == 99


def test_through_caller():
    assert healproj.run_total(["1", "x"]) == 1


def test_two_crashes():
    assert healproj.total(["x", "1", "y"]) == 1


def test_caught():
    assert healproj.safe_total(["x"]) == -1
    assert healproj.safe_int("x") == 0
    assert healproj.suppressed(["x"]) == -3
    with pytest.raises(ValueError):
        healproj.total(["x"])
    assert healproj.wrong_catch(["1", "x"]) == 1


def test_module_level_crash():
    import healmod
    assert healmod.LIMIT == 5


class CaughtByUnittest(unittest.TestCase):
    def test_assert_raises(self):
        with self.assertRaises(ValueError):
            healproj.total(["x"])
        self.assertEqual(healproj.total(["1"]), 1)

    def test_in_a_subtest(self):
        for values in (["1"], ["x"]):
            with self.subTest(values=values):
                self.assertEqual(healproj.total(values), 1)
'''


@pytest.fixture(autouse=True, scope="session")
def _code_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """healrt runs of this suite share one compiled-rewrite cache, away from the user's ~/.cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("HEALRT_CACHE", str(tmp_path_factory.mktemp("healrt-code")))
    yield
    patch.undo()


@pytest.fixture
def project(tmp_path: Path) -> Callable[..., Path]:
    """Returns make_spec(test_name, **spec_fields) -> path of a healrt spec for that target test."""
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    (source_dir / "healproj.py").write_text(PROJECT)
    (source_dir / "healmod.py").write_text(MODULE_LEVEL)
    test_dir = tmp_path / "tests"
    test_dir.mkdir()
    (test_dir / "test_target.py").write_text(TARGET_TESTS)

    def make_spec(test_name: str, **fields: Any) -> Path:
        node = f"{test_dir / 'test_target.py'}::{test_name}"
        return write_spec(tmp_path, source_dir=str(source_dir), project_modules=["healproj", "healmod"],
                          pytest_args=[node, "-q", "-p", "no:cacheprovider"], **fields)

    return make_spec


def project_line(fragment: str) -> int:
    """1-based line in PROJECT of the first line containing fragment."""
    for number, line in enumerate(PROJECT.splitlines(), start=1):
        if fragment in line:
            return number
    raise AssertionError(fragment)


