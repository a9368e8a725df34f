"""Would the program itself catch this exception? If so, healrt must leave it alone.

The stack is walked from the crashing frame outward, up to and including the first frame of the
target test file (pytest/unittest machinery above it catches everything and is ignored). Each
frame is asked what its enclosing constructs do with the exception:
- an instrumented project frame executing a wrapped statement: the site's static guards
  (enclosing `try` bodies with except clauses, innermost first, and `with` blocks);
- any other frame (tests, libraries, and project frames suspended outside a wrapped statement,
  e.g. in a `for` header driving a generator): the code object's exception table at `f_lasti`,
  following re-raising handlers (`finally`, cleanups, non-matching except clauses) outward.
A `finally` without except clauses never catches: the exception continues after it.

A `with` block catches if its context manager suppresses. `contextlib.suppress(...)` is decided
from its exception types; a manager whose `__exit__` only returns None/False constants, or is
implemented in C, does not suppress; a `@contextmanager` generator without except clauses (or
nested `with`) does not; anything else (an `__exit__` that may return true, a factory function,
an expression we do not evaluate) is *undecided*, as is an except clause whose type cannot be
evaluated without running code.

Policy for the undecided (recorded as `catch_undecided` events with the decision taken):
- `deferred`: some instrumented frame further out is executing a wrapped statement. Leave the
  exception alone; if the construct does not catch it after all, the exception reaches that
  frame's handler and is decided again there, the construct's answer now being known. The
  program's semantics are never changed and the crash is not lost.
- `assumed_caught`: the undecided construct is in the target test itself (pytest.raises,
  assertRaises and their kin expect the exception).
- `intercepted`: otherwise nothing outward could intercept it later, so healrt pauses; the
  controller sees the events, and `reraise` restores the program's own behaviour exactly.

Expressions are resolved without running program code: names, attributes looked up statically
(no properties or `__getattr__`), tuples, and calls only to identify the manager's type.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import dis
import functools
import inspect
import io
import linecache
import os
import threading
import types
from typing import Any

from .sites import Site, SiteTable

_NEVER_NAMES = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration",
                "StopAsyncIteration", "RecursionError", "MemoryError", "AssertionError")
_NEVER_TYPES: tuple[type[BaseException], ...] = tuple(getattr(builtins, n) for n in _NEVER_NAMES)
# Control-flow exceptions of test frameworks (pytest's OutcomeException, unittest.SkipTest, ...).
_NEVER_MODULE_PREFIXES = ("_pytest.", "pytest.", "unittest.")
_MAX_HANDLER_HOPS = 32

CAUGHT, NOT_CAUGHT, UNDECIDED = "caught", "not_caught", "undecided"

# Factories whose managers are known not to suppress (their types are C types or private).
_NON_SUPPRESSING_FACTORIES: tuple[Any, ...] = (
    builtins.open, io.open, os.scandir, threading.Lock, threading.RLock, threading.Condition)
_CONTEXTMANAGER_HELPERS = frozenset(
    wrapper(lambda: None).__code__ for wrapper in (contextlib.contextmanager, contextlib.asynccontextmanager))


@dataclasses.dataclass
class Verdict:
    caught: bool
    decision: str  # caught | not_caught | deferred | assumed_caught | intercepted
    undecided: list[tuple[str, str, int]]  # (reason, file, line) of each undecided construct


class _Unresolvable(Exception):
    pass


def never_intercepted(exc: BaseException) -> bool:
    if isinstance(exc, _NEVER_TYPES):
        return True
    return any(cls.__module__.startswith(_NEVER_MODULE_PREFIXES) for cls in type(exc).__mro__)


def would_be_caught(
    exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable, target_file: str
) -> Verdict:
    undecided: list[tuple[str, str, int]] = []
    current: types.FrameType | None = frame
    while current is not None:
        code = current.f_code
        is_test_frame = same_file(code.co_filename, target_file)
        frame_site = None
        if table.is_instrumented(code.co_filename):
            frame_site = site if current is frame else table.site_at(current)
        if undecided and frame_site is not None and current is not frame:
            return Verdict(True, "deferred", undecided)
        if frame_site is not None:
            state, reasons = _guarded_statically(exc, current, frame_site)
        else:
            state, reasons = _caught_by_exception_table(exc, current)
        undecided.extend((reason, code.co_filename, current.f_lineno or 0) for reason in reasons)
        if state == CAUGHT:
            return Verdict(True, CAUGHT, undecided)
        if is_test_frame:
            if state == UNDECIDED:
                return Verdict(True, "assumed_caught", undecided)
            break
        current = current.f_back
    return Verdict(False, "intercepted" if undecided else NOT_CAUGHT, undecided)


@functools.lru_cache(maxsize=4096)
def _realpath(filename: str) -> str:
    return os.path.realpath(filename)


def same_file(filename: str, target_file: str) -> bool:
    return _realpath(filename) == target_file


def _matches(exc: BaseException, handler_type: Any) -> bool:
    try:
        return isinstance(exc, handler_type)
    except TypeError:
        return False


def _combine(states: list[tuple[str, list[str]]]) -> tuple[str, list[str]]:
    """Constructs nested in one frame: any certain catch wins; else undecided if any is."""
    reasons = [reason for _, found in states for reason in found]
    if any(state == CAUGHT for state, _ in states):
        return CAUGHT, reasons
    return (UNDECIDED if any(state == UNDECIDED for state, _ in states) else NOT_CAUGHT), reasons


# ---------------------------------------------------------------- resolving expressions

@functools.lru_cache(maxsize=2048)
def _parse_expression(source: str) -> ast.expr:
    return ast.parse(source, "<healrt-guard>", "eval").body


def _resolve(node: ast.expr, frame: types.FrameType) -> Any:
    """The value of a name/attribute/tuple expression in the frame, without running program code."""
    if isinstance(node, ast.Name):
        for namespace in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in namespace:
                return namespace[node.id]
        raise _Unresolvable(f"name {node.id!r} is not bound")
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, frame)
        try:
            value = inspect.getattr_static(owner, node.attr)
        except AttributeError:
            raise _Unresolvable(f"attribute {node.attr!r} not found statically") from None
        if isinstance(value, (staticmethod, classmethod)):
            return getattr(owner, node.attr)  # binding a static/class method runs no program code
        if isinstance(value, (property, types.MemberDescriptorType, types.GetSetDescriptorType)):
            raise _Unresolvable(f"attribute {node.attr!r} is computed")
        return value
    if isinstance(node, ast.Tuple):
        return tuple(_resolve(element, frame) for element in node.elts)
    raise _Unresolvable(f"expression {ast.unparse(node)!r} is not evaluated")


# ---------------------------------------------------------------- guards of instrumented frames

def _guarded_statically(exc: BaseException, frame: types.FrameType, site: Site) -> tuple[str, list[str]]:
    states: list[tuple[str, list[str]]] = []
    for guard in site.guards:
        if guard.kind == "try":
            states.extend(_except_clause(exc, handler, frame) for handler in guard.handlers)
        else:
            states.extend(_with_item(exc, _parse_expression(manager), frame)
                          for manager in guard.handlers if manager is not None)
        if any(state == CAUGHT for state, _ in states):
            break
    return _combine(states)


def _except_clause(exc: BaseException, handler: str | None, frame: types.FrameType) -> tuple[str, list[str]]:
    if handler is None:
        return CAUGHT, []
    try:
        handler_type = _resolve(_parse_expression(handler), frame)
    except _Unresolvable as why:
        return UNDECIDED, [f"except clause {handler!r}: {why}"]
    return (CAUGHT if _matches(exc, handler_type) else NOT_CAUGHT), []


# ---------------------------------------------------------------- context managers

def _with_item(exc: BaseException, expression: ast.expr, frame: types.FrameType) -> tuple[str, list[str]]:
    text = ast.unparse(expression)
    try:
        if isinstance(expression, ast.Call):
            callee = _resolve(expression.func, frame)
            if _is_suppress(callee):
                if any(isinstance(arg, ast.Starred) for arg in expression.args) or expression.keywords:
                    return UNDECIDED, [f"with {text}: arguments not evaluated"]
                suppressed = tuple(_resolve(arg, frame) for arg in expression.args)
                return (CAUGHT if any(_matches(exc, t) for t in suppressed) else NOT_CAUGHT), []
            if any(callee is factory for factory in _NON_SUPPRESSING_FACTORIES):
                return NOT_CAUGHT, []
            if isinstance(callee, type):
                return _manager_type(callee, text)
            code = getattr(callee, "__code__", None)
            wrapped = getattr(callee, "__wrapped__", None)
            if code in _CONTEXTMANAGER_HELPERS and isinstance(getattr(wrapped, "__code__", None), types.CodeType):
                return _generator_manager(wrapped.__code__, text)
            return UNDECIDED, [f"with {text}: the manager's type is not known before the call"]
        manager = _resolve(expression, frame)
    except _Unresolvable as why:
        return UNDECIDED, [f"with {text}: {why}"]
    if _is_suppress(type(manager)):
        suppressed = getattr(manager, "_exceptions", ())
        return (CAUGHT if any(_matches(exc, t) for t in suppressed) else NOT_CAUGHT), []
    generator = getattr(manager, "gen", None)
    if isinstance(manager, contextlib._GeneratorContextManager) and generator is not None:
        return _generator_manager(generator.gi_code, text)
    return _manager_type(type(manager), text)


def _is_suppress(callee: Any) -> bool:
    """contextlib.suppress, also when contextlib itself is a project module loaded from source_dir."""
    return isinstance(callee, type) and callee.__module__ == "contextlib" and callee.__qualname__ == "suppress"


def _manager_type(cls: type, text: str) -> tuple[str, list[str]]:
    for name in ("__exit__", "__aexit__"):
        exit_method = next((klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__), None)
        if exit_method is None:
            continue
        function = exit_method.__func__ if isinstance(exit_method, (staticmethod, classmethod)) else exit_method
        if not isinstance(function, types.FunctionType):
            return NOT_CAUGHT, []  # implemented in C: locks, files, sockets, ... never suppress
        if _returns_only_falsy_constants(function.__code__):
            return NOT_CAUGHT, []
        return UNDECIDED, [f"with {text}: {cls.__qualname__}.{name} may return true"]
    return UNDECIDED, [f"with {text}: {cls.__qualname__} has no __exit__"]


@functools.lru_cache(maxsize=1024)
def _returns_only_falsy_constants(code: types.CodeType) -> bool:
    previous: dis.Instruction | None = None
    for ins in dis.get_instructions(code):
        if ins.opname == "RETURN_CONST" and ins.argval not in (None, False):
            return False
        if ins.opname == "RETURN_VALUE" and not (
                previous is not None and previous.opname == "LOAD_CONST" and previous.argval in (None, False)):
            return False
        previous = ins
    return True


def _generator_manager(code: types.CodeType, text: str) -> tuple[str, list[str]]:
    if _generator_may_swallow(code):
        return UNDECIDED, [f"with {text}: the @contextmanager generator may catch the exception"]
    return NOT_CAUGHT, []


@functools.lru_cache(maxsize=1024)
def _generator_may_swallow(code: types.CodeType) -> bool:
    """An except clause (typed or bare) or a nested with could stop the exception thrown at `yield`.

    Decided on the function's source when it can be found (an instrumented generator's bytecode is
    full of healrt's own handlers), else on its bytecode.
    """
    function = _function_node(code)
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


def _function_node(code: types.CodeType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in _file_nodes(code.co_filename):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first_line = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if first_line == code.co_firstlineno:
                return node
    return None


@functools.lru_cache(maxsize=256)
def _file_nodes(filename: str) -> tuple[ast.AST, ...]:
    """Every node of a source file (parsed once: only exceptions in project frames get here)."""
    try:
        return tuple(ast.walk(ast.parse("".join(linecache.getlines(filename)), filename)))
    except (SyntaxError, ValueError):
        return ()


# ---------------------------------------------------------------- exception tables

def _caught_by_exception_table(exc: BaseException, frame: types.FrameType) -> tuple[str, list[str]]:
    try:
        entries, instructions, by_offset = _code_tables(frame.f_code)
    except Exception:
        return UNDECIDED, ["exception table unavailable"]
    reasons: list[str] = []
    offset = frame.f_lasti
    for _ in range(_MAX_HANDLER_HOPS):
        entry = next((e for e in entries if e.start <= offset < e.end), None)
        if entry is None or entry.target not in by_offset:
            break
        state, reraise_at, found = _classify_handler(exc, frame, instructions, by_offset, by_offset[entry.target])
        reasons.extend(found)
        if state == CAUGHT:
            return CAUGHT, reasons
        if reraise_at is None:
            reasons.append("handler flow not understood")
            break
        offset = reraise_at
    return (UNDECIDED if reasons else NOT_CAUGHT), reasons


@functools.lru_cache(maxsize=1024)
def _code_tables(code: types.CodeType) -> tuple[list[Any], list[dis.Instruction], dict[int, int]]:
    """Decoded exception table and instructions, cached: library code raises and catches a lot."""
    entries = dis._parse_exception_table(code)  # type: ignore[attr-defined]
    instructions = list(dis.get_instructions(code)) if entries else []
    return entries, instructions, {ins.offset: index for index, ins in enumerate(instructions)}


def _classify_handler(
    exc: BaseException, frame: types.FrameType, instructions: list[dis.Instruction], by_offset: dict[int, int],
    start: int,
) -> tuple[str, int | None, list[str]]:
    """(verdict, offset of the re-raise the exception reaches if not caught here, undecided reasons)."""
    first_reraise = next((ins.offset for ins in instructions[start:] if ins.opname == "RERAISE"), None)
    if instructions[start].opname != "PUSH_EXC_INFO":
        return NOT_CAUGHT, first_reraise, []  # a cleanup handler: it re-raises
    if instructions[start + 1].opname == "POP_TOP":
        return _handler_exit(instructions, by_offset, start + 2)  # bare `except:`
    kind = next((ins for ins in instructions[start + 1:]
                 if ins.opname in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "WITH_EXCEPT_START", "RERAISE")), None)
    if kind is not None and kind.opname == "WITH_EXCEPT_START":
        state, reasons = _with_at(exc, frame, kind)
        return state, first_reraise, reasons
    if kind is None or kind.opname != "CHECK_EXC_MATCH":
        return NOT_CAUGHT, first_reraise, []  # `finally` (or except*): runs, then re-raises
    index = start + 1
    for _ in range(_MAX_HANDLER_HOPS):
        loads: list[dis.Instruction] = []
        while instructions[index].opname != "CHECK_EXC_MATCH":
            if instructions[index].opname == "RERAISE":
                return NOT_CAUGHT, instructions[index].offset, []  # no clause matched
            loads.append(instructions[index])
            index += 1
        handler_type = _replay_loads(loads, frame)
        if handler_type is _UNKNOWN:
            return UNDECIDED, None, ["except clause type not evaluable"]
        if _matches(exc, handler_type):
            return _handler_exit(instructions, by_offset, index + 1)
        jump = instructions[index + 1]
        if "JUMP" not in jump.opname or jump.argval not in by_offset:
            return UNDECIDED, None, ["except clause chain not understood"]
        index = by_offset[jump.argval]
    return UNDECIDED, None, ["except clause chain too long"]


def _with_at(exc: BaseException, frame: types.FrameType, ins: dis.Instruction) -> tuple[str, list[str]]:
    """The with statement a WITH_EXCEPT_START belongs to, found in the source by its position.

    Up to 3.12 the position spans the whole statement; from 3.13 it is the item's expression.
    """
    position = ins.positions
    if position is None or position.lineno is None:
        return UNDECIDED, ["with block without source position"]
    items = _with_items(frame.f_code.co_filename, position.lineno, position.col_offset)
    if not items:
        return UNDECIDED, ["with block not found in the source"]
    return _combine([_with_item(exc, item, frame) for item in items])


def _with_items(filename: str, line: int, col: int | None) -> list[ast.expr]:
    for node in _file_nodes(filename):
        if not isinstance(node, (ast.With, ast.AsyncWith)):
            continue
        item_at = [item.context_expr for item in node.items
                   if (item.context_expr.lineno, item.context_expr.col_offset) == (line, col)]
        if item_at:
            return item_at
        if (node.lineno, node.col_offset) == (line, col):
            return [item.context_expr for item in node.items]
    return []


_UNCONDITIONAL_JUMPS = frozenset(
    {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT"})


def _handler_exit(
    instructions: list[dis.Instruction], by_offset: dict[int, int], index: int
) -> tuple[str, int | None, list[str]]:
    """A matched clause catches unless it re-raises (`except: cleanup(); raise`) before leaving.

    The fall-through path is followed (unconditional jumps taken, conditional ones not; nested
    handlers are only entered through the exception table, so they are skipped). A conditional
    re-raise therefore counts as catching.
    """
    visited: set[int] = set()
    while 0 <= index < len(instructions) and index not in visited:
        visited.add(index)
        ins = instructions[index]
        if ins.opname == "POP_EXCEPT":
            return CAUGHT, None, []
        if ins.opname == "RERAISE" or (ins.opname == "RAISE_VARARGS" and ins.arg == 0):
            return NOT_CAUGHT, ins.offset, []
        if ins.opname in _UNCONDITIONAL_JUMPS and ins.argval in by_offset:
            index = by_offset[ins.argval]
        else:
            index += 1
    return UNDECIDED, None, ["except clause end not found"]


_UNKNOWN = object()


def _replay_loads(loads: list[dis.Instruction], frame: types.FrameType) -> Any:
    """Re-evaluate the simple load sequence an except clause uses to push its type."""
    stack: list[Any] = []
    local_values = frame.f_locals
    try:
        for ins in loads:
            name = ins.argval
            if ins.opname in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLASSDEREF"):
                stack.append(local_values[name])
            elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                if name in local_values and ins.opname == "LOAD_NAME":
                    stack.append(local_values[name])
                elif name in frame.f_globals:
                    stack.append(frame.f_globals[name])
                else:
                    stack.append(getattr(builtins, name))
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                stack.append(getattr(stack.pop(), name))
            elif ins.opname == "BUILD_TUPLE":
                count = ins.arg or 0
                values = tuple(stack[len(stack) - count:]) if count else ()
                del stack[len(stack) - count:]
                stack.append(values)
            elif ins.opname == "PUSH_NULL":
                continue
            else:
                return _UNKNOWN
    except Exception:
        return _UNKNOWN
    return stack[-1] if stack else _UNKNOWN
