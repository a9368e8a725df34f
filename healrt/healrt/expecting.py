"""Context managers of test frameworks that expect an exception: do they catch this one?

Covered: unittest's assertRaises / assertRaisesRegex context (`with self.assertRaises(E):`, and
`self.assertRaises(E, func, ...)`, which runs `func` under `with self:` in the context's
`handle`), and pytest.raises (its RaisesContext up to pytest 8.3, RaisesExc from 8.4; the legacy
`pytest.raises(E, func, ...)` runs `func` under one too, or in a plain try/except up to 8.3).

Such a manager swallows an exception exactly when its type is expected and its message matches
the pattern, if one was given; an exception of another type passes through, and one of an
expected type whose message does not match is replaced by a test failure. Only the first counts
as caught: in the other cases the test fails, a crash worth pausing at.

Recognised by the module and qualified name of the class that defines `__exit__` (a subclass
overriding it is not recognised) or of the factory called. assertWarns contexts expect
warnings: not covered. Deciding runs no program code: a message is only matched when producing
it runs none either.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable


@dataclasses.dataclass(frozen=True)
class Expectation:
    expected: Any  # a type or a tuple of types; () expects any exception
    pattern: Any = None  # str or compiled pattern searched in the message, or None
    check: bool = False  # pytest's check= predicate: program code, never run here


def _unittest_context(fields: dict[str, Any]) -> Expectation:
    return Expectation(fields["expected"], fields.get("expected_regex"))


def _pytest_raises_context(fields: dict[str, Any]) -> Expectation:
    return Expectation(fields["expected_exception"], fields.get("match_expr"))


def _pytest_raises_exc(fields: dict[str, Any]) -> Expectation:
    return Expectation(fields["expected_exceptions"], fields.get("match"), fields.get("check") is not None)


# (module, qualname) of the class defining __exit__ -> reads the expectation from its attributes.
_MANAGERS: dict[tuple[str, str], Callable[[dict[str, Any]], Expectation]] = {
    ("unittest.case", "_AssertRaisesContext"): _unittest_context,
    ("_pytest.python_api", "RaisesContext"): _pytest_raises_context,  # pytest <= 8.3
    ("_pytest.raises", "RaisesExc"): _pytest_raises_exc,  # pytest >= 8.4
}
# (module, qualname) of a factory -> its parameters as (positional names, keyword-only names).
_FACTORIES: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("unittest.case", "TestCase.assertRaises"): (("expected_exception",), ("msg",)),
    ("unittest.case", "TestCase.assertRaisesRegex"): (("expected_exception", "expected_regex"), ("msg",)),
    ("_pytest.python_api", "raises"): (("expected_exception",), ("match",)),
    ("_pytest.raises", "raises"): (("expected_exception",), ("match", "check")),
    ("_pytest.raises", "RaisesExc"): (("expected_exception",), ("match", "check")),
}
# The only __str__ implementations whose message is read here: they format `args` alone.
_PLAIN_STR = (BaseException.__dict__["__str__"], KeyError.__dict__["__str__"])
# Message arguments whose str()/repr() runs no Python code.
_PLAIN_ARGUMENTS = (str, int, float, bool, bytes, type(None))


def of_manager(manager: Any) -> Expectation | None:
    """The expectation of a manager object, or None if it is not one of the covered kinds."""
    owner = next((klass for klass in type(manager).__mro__ if "__exit__" in klass.__dict__), None)
    read = _MANAGERS.get((owner.__module__, owner.__qualname__)) if owner is not None else None
    if read is None:
        return None
    try:
        return read(vars(manager))
    except (KeyError, TypeError):
        return None  # not set up the way this version of the framework does it


def is_factory(callee: Any) -> bool:
    return _factory_key(callee) in _FACTORIES


def of_call(callee: Any, args: tuple[Any, ...], keywords: dict[str, Any]) -> Expectation | None:
    """The expectation of the manager `callee(*args, **keywords)` returns (a factory for which
    is_factory holds), or None if the call is not the context-manager form."""
    positional, optional = _FACTORIES[_factory_key(callee)]
    if len(args) > len(positional) or any(name not in positional + optional for name in keywords):
        return None  # a callable to run: the call itself does the work and returns no manager
    bound = {**dict(zip(positional, args)), **keywords}
    expected = bound.get("expected_exception")
    if expected is None:
        if bound.get("match") is None and bound.get("check") is None:
            return None
        expected = ()  # pytest.raises(match=...) / RaisesExc(check=...): any type
    return Expectation(expected, bound.get("expected_regex", bound.get("match")), bound.get("check") is not None)


def _factory_key(callee: Any) -> tuple[str, str]:
    return getattr(callee, "__module__", None) or "", getattr(callee, "__qualname__", None) or ""


def catches(exc: BaseException, expectation: Expectation) -> tuple[bool | None, str]:
    """(True/False, "") when decided, (None, why not) when deciding would run program code."""
    expected = expectation.expected
    if not (isinstance(expected, tuple) and not expected):
        try:
            if not isinstance(exc, expected):
                return False, ""
        except TypeError:
            return False, ""  # not exception types: the framework fails the test
    if expectation.check:
        return None, "its check= predicate is not run"
    if expectation.pattern is None:
        return True, ""
    message = _plain_message(exc)
    if message is None:
        return None, "its message pattern needs the exception's message, which program code computes"
    try:
        return re.search(expectation.pattern, message) is not None, ""
    except (re.error, TypeError):
        return None, "its message pattern is not understood"


def _plain_message(exc: BaseException) -> str | None:
    """str(exc) when computing it runs no Python code and no notes are appended, else None."""
    if isinstance(exc, BaseExceptionGroup) or "__notes__" in vars(exc):
        return None
    method = next(klass.__dict__["__str__"] for klass in type(exc).__mro__ if "__str__" in klass.__dict__)
    if not any(method is plain for plain in _PLAIN_STR):
        return None
    if any(type(arg) not in _PLAIN_ARGUMENTS for arg in exc.args):
        return None
    return str(exc)
