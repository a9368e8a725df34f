"""Would the program catch it? Decided from the live stack, end to end under `python -m healrt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import Controller, reraise, run_healrt, write_spec

PROJECT = '''\
import contextlib


def bad():
    value = int("x")
    return value


def caller_matching():
    try:
        return bad()
    except ValueError:
        return -1


def caller_not_matching():
    try:
        return bad()
    except KeyError:
        return -1


def finally_only():
    try:
        return bad()
    finally:
        cleanup = 1


def suppress_matching():
    with contextlib.suppress(KeyError, ValueError):
        return bad()


def suppress_not_matching():
    with contextlib.suppress(KeyError):
        return bad()


def try_around_def_does_not_guard_the_nested_body():
    try:
        def inner():
            return int("x")
    except ValueError:
        return -1
    return inner()


def nested_caught_by_enclosing_function():
    def inner():
        return int("x")
    try:
        return inner()
    except ValueError:
        return -1


def raised_in_except_block():
    try:
        return int("x")
    except ValueError:
        return int("still not a number")


def caller_of_raised_in_except_block():
    try:
        return raised_in_except_block()
    except ValueError:
        return -1


def gen():
    yield 1
    yield int("x")


def for_over_generator_caught():
    try:
        for _ in gen():
            pass
    except ValueError:
        return -1


def list_of_generator_caught():
    try:
        return list(gen())
    except ValueError:
        return -1


def for_over_generator_uncaught():
    total = 0
    for value in gen():
        total += value
    return total


class Maybe:
    def __init__(self, swallow):
        self.swallow = swallow

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return self.swallow


def maybe_block(swallow):
    with Maybe(swallow):
        return bad()


def deferred(swallow):
    result = maybe_block(swallow)
    return result


@contextlib.contextmanager
def cleanup_only():
    try:
        yield
    finally:
        pass


@contextlib.contextmanager
def swallowing():
    try:
        yield
    except ValueError:
        pass


def generator_manager_without_except():
    with cleanup_only():
        return bad()


def generator_manager_with_except():
    with swallowing():
        return bad()


def file_manager():
    with open(__file__):
        return bad()


class Odd(Exception):
    def __str__(self):
        return "odd"


def odd():
    raise Odd()
'''

TESTS = '''\
import contextlib
import unittest

import pytest

import catchproj


def test_caller_matching():
    assert catchproj.caller_matching() == -1


def test_caller_not_matching():
    catchproj.caller_not_matching()


def test_test_frame_matching():
    try:
        catchproj.bad()
    except ValueError:
        pass


def test_test_frame_not_matching():
    try:
        catchproj.bad()
    except (KeyError, TypeError):
        pass


def test_finally_only():
    catchproj.finally_only()


def test_test_frame_finally_only():
    try:
        catchproj.bad()
    finally:
        pass


def test_suppress_matching():
    assert catchproj.suppress_matching() is None


def test_suppress_not_matching():
    catchproj.suppress_not_matching()


def test_test_frame_suppress_matching():
    with contextlib.suppress(ValueError):
        catchproj.bad()


def test_test_frame_suppress_not_matching():
    with contextlib.suppress(KeyError):
        catchproj.bad()


def test_try_around_def():
    catchproj.try_around_def_does_not_guard_the_nested_body()


def test_nested_caught():
    assert catchproj.nested_caught_by_enclosing_function() == -1


def test_raised_in_except_block():
    catchproj.raised_in_except_block()


def test_raised_in_except_block_caught_by_caller():
    assert catchproj.caller_of_raised_in_except_block() == -1


def test_for_over_generator_caught():
    assert catchproj.for_over_generator_caught() == -1


def test_list_of_generator_caught():
    assert catchproj.list_of_generator_caught() == -1


def test_for_over_generator_uncaught():
    catchproj.for_over_generator_uncaught()


def test_undecided_deferred_and_swallowed():
    assert catchproj.deferred(True) is None


def test_undecided_deferred_then_intercepted_outside():
    catchproj.deferred(False)


def test_undecided_with_nothing_further_out():
    catchproj.maybe_block(False)


def test_generator_manager_without_except():
    catchproj.generator_manager_without_except()


def test_generator_manager_with_except():
    catchproj.generator_manager_with_except()


def test_file_manager():
    catchproj.file_manager()


def test_pytest_raises():
    with pytest.raises(ValueError):
        catchproj.bad()


def test_pytest_raises_not_matching():
    with pytest.raises(KeyError):
        catchproj.bad()


def test_pytest_raises_match():
    with pytest.raises(ValueError, match="invalid literal"):
        catchproj.bad()


def test_pytest_raises_match_not_matching():
    with pytest.raises(ValueError, match="no such message"):
        catchproj.bad()


def test_pytest_raises_callable():
    pytest.raises(ValueError, catchproj.bad)


def test_pytest_raises_callable_not_matching():
    pytest.raises(KeyError, catchproj.bad)


def helper_calling_bad():
    return catchproj.bad()


def test_helper_in_test_file_caught_by_test():
    with pytest.raises(ValueError):
        helper_calling_bad()


def test_helper_in_test_file_not_caught():
    helper_calling_bad()


class TestUnit(unittest.TestCase):
    def test_callable(self):
        self.assertRaises(ValueError, catchproj.bad)

    def test_callable_tuple(self):
        self.assertRaises((KeyError, ValueError), catchproj.bad)

    def test_callable_not_matching(self):
        self.assertRaises(KeyError, catchproj.bad)

    def test_with(self):
        with self.assertRaises(ValueError):
            catchproj.bad()

    def test_with_not_matching(self):
        with self.assertRaises(KeyError):
            catchproj.bad()

    def test_regex_callable(self):
        self.assertRaisesRegex(ValueError, "invalid literal", catchproj.bad)

    def test_regex_callable_not_matching(self):
        self.assertRaisesRegex(ValueError, "no such message", catchproj.bad)

    def test_regex_with(self):
        with self.assertRaisesRegex(ValueError, "invalid literal"):
            catchproj.bad()

    def test_regex_own_message(self):
        self.assertRaisesRegex(catchproj.Odd, "odd", catchproj.odd)
'''

# test -> (source of the statement that pauses, or None; decision of catch_undecided events, or None)
CASES: dict[str, tuple[str | None, str | None]] = {
    "test_caller_matching": (None, None),
    "test_caller_not_matching": ('value = int("x")', None),
    "test_test_frame_matching": (None, None),
    "test_test_frame_not_matching": ('value = int("x")', None),
    "test_finally_only": ('value = int("x")', None),
    "test_test_frame_finally_only": ('value = int("x")', None),
    "test_suppress_matching": (None, None),
    "test_suppress_not_matching": ('value = int("x")', None),
    "test_test_frame_suppress_matching": (None, None),
    "test_test_frame_suppress_not_matching": ('value = int("x")', None),
    "test_try_around_def": ('return int("x")', None),
    "test_nested_caught": (None, None),
    "test_raised_in_except_block": ('return int("still not a number")', None),
    "test_raised_in_except_block_caught_by_caller": (None, None),
    "test_for_over_generator_caught": (None, None),
    "test_list_of_generator_caught": (None, None),
    "test_for_over_generator_uncaught": ('yield int("x")', None),
    "test_undecided_deferred_and_swallowed": (None, "deferred"),
    "test_undecided_deferred_then_intercepted_outside": ("result = maybe_block(swallow)", "deferred"),
    "test_undecided_with_nothing_further_out": ('value = int("x")', "intercepted"),
    "test_generator_manager_without_except": ('value = int("x")', None),
    "test_generator_manager_with_except": ('value = int("x")', "intercepted"),
    "test_file_manager": ('value = int("x")', None),
    # Test frameworks' managers expecting an exception: decided by type (and message pattern).
    "test_pytest_raises": (None, None),
    "test_pytest_raises_not_matching": ('value = int("x")', None),
    "test_pytest_raises_match": (None, None),
    "test_pytest_raises_match_not_matching": ('value = int("x")', None),
    "test_pytest_raises_callable": (None, None),
    "test_pytest_raises_callable_not_matching": ('value = int("x")', None),
    # A helper defined in the test file is walked through to the test that called it.
    "test_helper_in_test_file_caught_by_test": (None, None),
    "test_helper_in_test_file_not_caught": ('value = int("x")', None),
    "TestUnit::test_callable": (None, None),
    "TestUnit::test_callable_tuple": (None, None),
    "TestUnit::test_callable_not_matching": ('value = int("x")', None),
    "TestUnit::test_with": (None, None),
    "TestUnit::test_with_not_matching": ('value = int("x")', None),
    "TestUnit::test_regex_callable": (None, None),
    "TestUnit::test_regex_callable_not_matching": ('value = int("x")', None),
    "TestUnit::test_regex_with": (None, None),
    # The message comes from the project's own __str__: not run, so undecided.
    "TestUnit::test_regex_own_message": ("raise Odd()", "intercepted"),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("catching")
    (root / "src").mkdir()
    (root / "src" / "catchproj.py").write_text(PROJECT)
    (root / "tests").mkdir()
    (root / "tests" / "test_target.py").write_text(TESTS)
    return root


@pytest.mark.parametrize("test_name", list(CASES))
def test_catch_decision(workspace: Path, tmp_path: Path, test_name: str) -> None:
    expected_statement, expected_decision = CASES[test_name]
    node = f"{workspace / 'tests' / 'test_target.py'}::{test_name}"
    spec = write_spec(tmp_path, source_dir=str(workspace / "src"), project_modules=["catchproj"],
                      pytest_args=[node, "-q", "-p", "no:cacheprovider"])

    ctl = Controller(reraise)
    run = run_healrt(spec, ctl)
    statements = [crash["statement"]["source"] for crash in ctl.crashes]
    assert statements == ([expected_statement] if expected_statement else []), run.stdout + run.stderr
    decisions = {event["decision"] for event in ctl.of_type("event") if event["kind"] == "catch_undecided"}
    assert decisions == ({expected_decision} if expected_decision else set()), [
        (event.get("reason"), event.get("line")) for event in ctl.of_type("event")]
    if expected_statement is None:
        assert ctl.outcome["passed"] is True, run.stdout
