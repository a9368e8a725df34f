"""A target test that skips itself or xfails in its call phase did not pass (plugin.py): neither a
heal nor a REFERENCE run may score a pass that way."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import read_outcome, run_healrt, write_project, write_spec

TARGETS = '''\
import pytest
import unittest

import skipmod


def test_skips_itself():
    skipmod.value()
    pytest.skip("not today")


@pytest.mark.xfail(reason="known")
def test_xfails():
    assert skipmod.value() == 2


class Case(unittest.TestCase):
    def test_skip_test(self):
        skipmod.value()
        self.skipTest("not today either")


def test_passes():
    assert skipmod.value() == 1
'''


def outcome(tmp_path: Path, test: str) -> dict:
    source_dir, target = write_project(tmp_path, "skipmod", "def value():\n    return 1\n", TARGETS)
    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["skipmod"], intercept=False,
                      pytest_args=[f"{target}::{test}", "-q", "-p", "no:cacheprovider"])
    run_healrt(spec, None)
    return read_outcome(spec)


@pytest.mark.parametrize("test, word", [("test_skips_itself", "skipped"), ("test_xfails", "xfailed"),
                                        ("Case::test_skip_test", "skipped")])
def test_a_skip_or_xfail_in_the_call_phase_is_not_a_pass(tmp_path: Path, test: str, word: str) -> None:
    result = outcome(tmp_path, test)
    assert result["ran"] is True and result["passed"] is False, result
    assert result["detail"].startswith(f"{word} in its call phase"), result


def test_a_plain_pass_still_passes(tmp_path: Path) -> None:
    result = outcome(tmp_path, "test_passes")
    assert result["ran"] is True and result["passed"] is True, result
