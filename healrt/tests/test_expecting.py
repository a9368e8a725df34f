"""Test frameworks' managers expecting an exception, decided without running program code."""

from __future__ import annotations

import unittest

import pytest

from healrt import expecting


class Shouting(ValueError):
    def __str__(self) -> str:
        return "LOUD"


class _Case(unittest.TestCase):
    def runTest(self) -> None:
        pass


def test_unittest_context_objects() -> None:
    case = _Case()
    raises = case.assertRaises((KeyError, ValueError))
    found = expecting.of_manager(raises)
    assert found is not None
    assert expecting.catches(ValueError("x"), found) == (True, "")
    assert expecting.catches(TypeError("x"), found) == (False, "")
    regex = expecting.of_manager(case.assertRaisesRegex(ValueError, "^bad"))
    assert regex is not None
    assert expecting.catches(ValueError("bad value"), regex) == (True, "")
    assert expecting.catches(ValueError("good value"), regex) == (False, "")
    assert expecting.of_manager(case.assertWarns(UserWarning)) is None


def test_pytest_manager_object() -> None:
    found = expecting.of_manager(pytest.raises(ValueError, match="bad"))
    assert found is not None
    assert expecting.catches(ValueError("so bad"), found) == (True, "")
    assert expecting.catches(ValueError("fine"), found) == (False, "")
    assert expecting.catches(KeyError("bad"), found) == (False, "")


def test_factory_calls() -> None:
    assert expecting.is_factory(unittest.TestCase.assertRaises)
    assert expecting.is_factory(pytest.raises)
    assert not expecting.is_factory(unittest.TestCase.assertWarns)
    found = expecting.of_call(pytest.raises, (KeyError,), {"match": "k"})
    assert found == expecting.Expectation(KeyError, "k")
    assert expecting.of_call(unittest.TestCase.assertRaisesRegex, (KeyError, "k"), {"msg": "m"}) == \
        expecting.Expectation(KeyError, "k")
    # With a callable the call runs it and returns no manager.
    assert expecting.of_call(unittest.TestCase.assertRaises, (KeyError, print), {}) is None


def test_message_patterns_run_no_program_code() -> None:
    pattern = expecting.Expectation(ValueError, "LOUD")
    caught, why = expecting.catches(Shouting(), pattern)
    assert caught is None and "program code" in why
    assert expecting.catches(ValueError(Shouting()), pattern)[0] is None  # str() of the argument
    noted = ValueError("LOUD")
    noted.add_note("a note")
    assert expecting.catches(noted, pattern)[0] is None
    assert expecting.catches(KeyError("LOUD"), expecting.Expectation(KeyError, "'LOUD'")) == (True, "")
    assert expecting.catches(ValueError("x"), expecting.Expectation(ValueError, check=True))[0] is None
    assert expecting.catches(ValueError("x"), expecting.Expectation((), "x")) == (True, "")
