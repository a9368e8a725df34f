"""What one construct does with the exception in a frame: the except clauses and with blocks
guarding a wrapped statement (its site's static guards), and a with block's context manager.
Each answers CAUGHT, NOT_CAUGHT or UNDECIDED (with the reasons).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dis
import functools
import io
import os
import threading
import types
from typing import Any

from .. import expecting
from ..percode import per_code
from ..sites import Site
from .expressions import Unresolvable, parse_expression, resolve
from .memo import uncacheable
from .source import function_node, own_returns

CAUGHT, NOT_CAUGHT, UNDECIDED = "caught", "not_caught", "undecided"

# Factories whose managers are known not to suppress (their types are C types or private).
_NON_SUPPRESSING_FACTORIES: tuple[Any, ...] = (
    builtins.open, io.open, os.scandir, threading.Lock, threading.RLock, threading.Condition)
_CONTEXTMANAGER_HELPERS = frozenset(
    wrapper(lambda: None).__code__ for wrapper in (contextlib.contextmanager, contextlib.asynccontextmanager))


def matches(exc: BaseException, handler_type: Any) -> bool:
    try:
        return isinstance(exc, handler_type)
    except TypeError:
        return False


def combine(states: list[tuple[str, list[str]]]) -> tuple[str, list[str]]:
    """Constructs nested in one frame: any certain catch wins; else undecided if any is."""
    reasons = [reason for _, found in states for reason in found]
    if any(state == CAUGHT for state, _ in states):
        return CAUGHT, reasons
    return (UNDECIDED if any(state == UNDECIDED for state, _ in states) else NOT_CAUGHT), reasons


def guarded_statically(exc: BaseException, frame: types.FrameType, site: Site) -> tuple[str, list[str]]:
    states: list[tuple[str, list[str]]] = []
    for guard in site.guards:
        if guard.kind == "try":
            states.extend(_except_clause(exc, handler, frame) for handler in guard.handlers)
        else:
            states.extend(with_item(exc, parse_expression(manager), frame)
                          for manager in guard.handlers if manager is not None)
        if any(state == CAUGHT for state, _ in states):
            break
    return combine(states)


def _except_clause(exc: BaseException, handler: str | None, frame: types.FrameType) -> tuple[str, list[str]]:
    if handler is None:
        return CAUGHT, []
    try:
        handler_type = resolve(parse_expression(handler), frame)
    except Unresolvable as why:
        return UNDECIDED, [f"except clause {handler!r}: {why}"]
    return (CAUGHT if matches(exc, handler_type) else NOT_CAUGHT), []


# ---------------------------------------------------------------- context managers

def with_item(exc: BaseException, expression: ast.expr, frame: types.FrameType) -> tuple[str, list[str]]:
    uncacheable()  # managers are objects of the frame, their verdicts may depend on the message
    try:
        if isinstance(expression, ast.Call):
            callee = resolve(expression.func, frame)
            if _is_suppress(callee) or expecting.is_factory(callee):
                if any(isinstance(arg, ast.Starred) for arg in expression.args) or any(
                        keyword.arg is None for keyword in expression.keywords):
                    return UNDECIDED, [f"with {_text(expression)}: arguments not evaluated"]
                args = tuple(resolve(arg, frame) for arg in expression.args)
                keywords = {keyword.arg: resolve(keyword.value, frame) for keyword in expression.keywords
                            if keyword.arg is not None}
                if _is_suppress(callee):
                    if keywords:
                        return UNDECIDED, [f"with {_text(expression)}: arguments not evaluated"]
                    return (CAUGHT if any(matches(exc, t) for t in args) else NOT_CAUGHT), []
                return _expected(exc, expecting.of_call(callee, args, keywords), expression)
            if any(callee is factory for factory in _NON_SUPPRESSING_FACTORIES) or _is_subtest(callee):
                return NOT_CAUGHT, []
            if isinstance(callee, type):
                return _manager_type(callee, expression)
            code = getattr(callee, "__code__", None)
            wrapped = getattr(callee, "__wrapped__", None)
            if code in _CONTEXTMANAGER_HELPERS and isinstance(getattr(wrapped, "__code__", None), types.CodeType):
                return _generator_manager(wrapped.__code__, expression)
            return UNDECIDED, [f"with {_text(expression)}: the manager's type is not known before the call"]
        manager = resolve(expression, frame)
    except Unresolvable as why:
        return UNDECIDED, [f"with {_text(expression)}: {why}"]
    if _is_suppress(type(manager)):
        suppressed = getattr(manager, "_exceptions", ())
        return (CAUGHT if any(matches(exc, t) for t in suppressed) else NOT_CAUGHT), []
    expectation = expecting.of_manager(manager)
    if expectation is not None:
        return _expected(exc, expectation, expression)
    generator = getattr(manager, "gen", None)
    if isinstance(manager, contextlib._GeneratorContextManager) and generator is not None:
        return _generator_manager(generator.gi_code, expression)
    return _manager_type(type(manager), expression)


def _expected(exc: BaseException, expectation: expecting.Expectation | None,
              expression: ast.expr) -> tuple[str, list[str]]:
    """A test framework's manager expecting an exception (assertRaises, pytest.raises)."""
    if expectation is None:
        return UNDECIDED, [f"with {_text(expression)}: arguments not understood"]
    caught, why = expecting.catches(exc, expectation)
    if caught is None:
        return UNDECIDED, [f"with {_text(expression)}: {why}"]
    return (CAUGHT if caught else NOT_CAUGHT), []


@functools.lru_cache(maxsize=1024)
def _text(expression: ast.expr) -> str:
    """Source text for reasons only (nodes are cached by the parsers, so identity keys work)."""
    return ast.unparse(expression)


def _is_subtest(callee: Any) -> bool:
    """unittest's `self.subTest(...)`: its manager swallows the exception only to record it as the test's failure
    and go on with the next subtest; it never expects one, so a crash under it is worth pausing at (a `reraise`
    gives it back the exception it would have recorded)."""
    function = getattr(callee, "__func__", callee)  # a bound method, or the function itself when looked up statically
    return (getattr(function, "__module__", None) == "unittest.case"
            and getattr(function, "__qualname__", None) == "TestCase.subTest")


def _is_suppress(callee: Any) -> bool:
    """contextlib.suppress, also when contextlib itself is a project module loaded from source_dir."""
    return isinstance(callee, type) and callee.__module__ == "contextlib" and callee.__qualname__ == "suppress"


def _manager_type(cls: type, expression: ast.expr) -> tuple[str, list[str]]:
    for name in ("__exit__", "__aexit__"):
        exit_method = next((klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__), None)
        if exit_method is None:
            continue
        function = exit_method.__func__ if isinstance(exit_method, (staticmethod, classmethod)) else exit_method
        if not isinstance(function, types.FunctionType):
            return NOT_CAUGHT, []  # implemented in C: locks, files, sockets, ... never suppress
        if _returns_only_falsy_constants(function.__code__):
            return NOT_CAUGHT, []
        return UNDECIDED, [f"with {_text(expression)}: {cls.__qualname__}.{name} may return true"]
    return UNDECIDED, [f"with {_text(expression)}: {cls.__qualname__} has no __exit__"]


@per_code
def _returns_only_falsy_constants(code: types.CodeType) -> bool:
    """Decided on the function's source when it can be found (an instrumented `__exit__`'s bytecode returns through
    healrt's slots, which hide the constants it returns), else on its bytecode."""
    function = function_node(code)
    if function is not None:
        return all(node.value is None or (isinstance(node.value, ast.Constant) and node.value.value in (None, False))
                   for node in own_returns(function))
    previous: dis.Instruction | None = None
    for ins in dis.get_instructions(code):
        if ins.opname == "RETURN_CONST" and ins.argval not in (None, False):
            return False
        if ins.opname == "RETURN_VALUE" and not (
                previous is not None and previous.opname == "LOAD_CONST" and previous.argval in (None, False)):
            return False
        previous = ins
    return True


def _generator_manager(code: types.CodeType, expression: ast.expr) -> tuple[str, list[str]]:
    if _generator_may_swallow(code):
        return UNDECIDED, [f"with {_text(expression)}: the @contextmanager generator may catch the exception"]
    return NOT_CAUGHT, []


@per_code
def _generator_may_swallow(code: types.CodeType) -> bool:
    """An except clause (typed or bare) or a nested with could stop the exception thrown at `yield`.

    Decided on the function's source when it can be found (an instrumented generator's bytecode is
    full of healrt's own handlers), else on its bytecode.
    """
    function = function_node(code)
    if function is not None:
        return any(isinstance(node, (ast.With, ast.AsyncWith)) or (
            isinstance(node, (ast.Try, ast.TryStar)) and node.handlers) for node in ast.walk(function))
    instructions = list(dis.get_instructions(code))
    for ins, after in zip(instructions, instructions[1:]):
        if ins.opname in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "WITH_EXCEPT_START"):
            return True
        if ins.opname == "PUSH_EXC_INFO" and after.opname == "POP_TOP":
            return True
    return False
