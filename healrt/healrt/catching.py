"""Would the program itself catch this exception? If so, healrt must leave it alone.

The stack is walked from the crashing frame outward, up to and including the outermost frame of
the target test file (the test itself; helpers it calls may be defined in the same file;
pytest/unittest machinery further out catches everything and is ignored). Each frame is asked
what its enclosing constructs do with the exception:
- an instrumented project frame executing a wrapped statement: the site's static guards
  (enclosing `try` bodies with except clauses, innermost first, and `with` blocks);
- any other frame (tests, libraries, and project frames suspended outside a wrapped statement,
  e.g. in a `for` header driving a generator): the code object's exception table at `f_lasti`,
  following re-raising handlers (`finally`, cleanups, non-matching except clauses) outward.
A `finally` without except clauses never catches: the exception continues after it.

A `with` block catches if its context manager suppresses. `contextlib.suppress(...)` is decided
from its exception types; unittest's `subTest` never catches (it records the exception as the
test's failure); test frameworks' managers that expect an exception (assertRaises,
assertRaisesRegex, pytest.raises, in either form) from their expected types and message pattern
(expecting.py); a manager whose `__exit__` only returns None/False constants, or is implemented
in C, does not suppress; a `@contextmanager` generator without except clauses (or nested `with`)
does not; anything else (an `__exit__` that may return true, a factory function, an expression
we do not evaluate) is *undecided*, as is an except clause whose type cannot be evaluated
without running code.

Policy for the undecided (recorded as `catch_undecided` events with the decision taken):
- `deferred`: some instrumented frame further out is executing a wrapped statement. Leave the
  exception alone; if the construct does not catch it after all, the exception reaches that
  frame's handler and is decided again there, the construct's answer now being known. The
  program's semantics are never changed and the crash is not lost.
- `assumed_caught`: the undecided construct is in the target test file (a test's own
  managers and helpers that expect an exception, like assertRaises, are meant to catch it).
- `intercepted`: otherwise nothing outward could intercept it later, so healrt pauses; the
  controller sees the events, and `reraise` restores the program's own behaviour exactly.

Expressions are resolved without running program code: names, attributes looked up statically
(no properties or `__getattr__`), tuples, constants, and calls only to identify the manager's
type (and the arguments of suppress, assertRaises and pytest.raises).

Everything derived from a code object alone (exception table, handler structure, with-block
positions in the source) is computed once per code object (percode.py): libraries raise and
catch thousands of exceptions per run, each walking the same few frames. Whole verdicts are
remembered per stack signature (VerdictMemo) when they depend only on the frames' code and
positions and on global or module-attribute lookups, which are checked again on every reuse.
"""

from __future__ import annotations

import ast
import bisect
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

from . import expecting
from .percode import per_code
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
    return isinstance(exc, _NEVER_TYPES) or _framework_exception(type(exc))


@functools.lru_cache(maxsize=1024)
def _framework_exception(exc_type: type) -> bool:
    """Asked for every exception in project code; types hash by identity, so caching is cheap."""
    return any(cls.__module__.startswith(_NEVER_MODULE_PREFIXES) for cls in exc_type.__mro__)


def would_be_caught(
    exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable, target_file: str,
    memo: VerdictMemo | None = None,
) -> Verdict:
    if memo is not None:
        known = memo.lookup(exc, frame, site)
        if known is not None:
            return known
    global _recording
    _recording = _Recording()
    try:
        verdict, walked = _walk(exc, frame, site, table, target_file)
        if memo is not None and _recording.cacheable and walked:
            memo.store(exc, site, walked, _recording.deps, verdict)
    finally:
        _recording = None
    return verdict


def _walk(exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable,
          target_file: str) -> tuple[Verdict, list[types.FrameType]]:
    """The verdict, and the frames it was decided on (empty when it also depends on frames
    further out: the end of the stack, or a test-file frame beyond a helper)."""
    undecided: list[tuple[str, str, int]] = []
    walked: list[types.FrameType] = []
    current: types.FrameType | None = frame
    while current is not None:
        walked.append(current)
        code = current.f_code
        is_test_frame = same_file(code.co_filename, target_file)
        frame_site = None
        if table.is_instrumented(code.co_filename):
            frame_site = site if current is frame else table.site_at(current)
        if undecided and frame_site is not None and current is not frame:
            return Verdict(True, "deferred", undecided), walked
        if frame_site is not None:
            state, reasons = _guarded_statically(exc, current, frame_site)
        else:
            state, reasons = _caught_by_exception_table(exc, current)
        undecided.extend((reason, code.co_filename, current.f_lineno or 0) for reason in reasons)
        if state == CAUGHT:
            return Verdict(True, CAUGHT, undecided), walked
        if is_test_frame:
            if state == UNDECIDED:
                return Verdict(True, "assumed_caught", undecided), walked
            _uncacheable()  # whether the walk goes on depends on frames not walked yet
            if not _test_file_further_out(current.f_back, target_file):
                break
        current = current.f_back
    return Verdict(False, "intercepted" if undecided else NOT_CAUGHT, undecided), []


# ---------------------------------------------------------------- remembering verdicts

_ABSENT = object()


class _Recording:
    """What the walk in progress read besides its frames' code and positions.

    `deps` are (namespace, name, value) of the global and module-attribute lookups that resolved
    except clause types; a verdict still holds while each lookup finds the same object. Anything
    else the walk reads (locals, with-block managers, the exception's message, attributes of
    classes) makes the verdict uncacheable.
    """

    __slots__ = ("cacheable", "deps")

    def __init__(self) -> None:
        self.cacheable = True
        self.deps: list[tuple[dict[str, Any], str, Any]] = []


_recording: _Recording | None = None


def _uncacheable() -> None:
    if _recording is not None:
        _recording.cacheable = False


def _depends_on(namespace: dict[str, Any], name: str, value: Any) -> None:
    if _recording is not None:
        _recording.deps.append((namespace, name, value))


class _Node:
    __slots__ = ("code", "children", "verdict", "deps")

    def __init__(self, code: types.CodeType) -> None:
        self.code = code  # held: keeps id(code) from being reused while the node exists
        self.children: dict[tuple[int, int], _Node] = {}
        self.verdict: Verdict | None = None
        self.deps: tuple[tuple[dict[str, Any], str, Any], ...] = ()


class VerdictMemo:
    """Verdicts by stack signature: the exception's type, the crashing site, and (code, f_lasti)
    of each frame walked outward until the decision. Programs raise and catch the same
    exceptions at the same places thousands of times (configparser's tests: ~5,000 caught
    exceptions, ~700 distinct signatures); the walk costs tens of microseconds, a lookup a few.
    """

    MAX_NODES = 20000

    def __init__(self) -> None:
        self._roots: dict[tuple[type, int], _Node] = {}
        self._nodes = 0

    def lookup(self, exc: BaseException, frame: types.FrameType, site: Site) -> Verdict | None:
        node = self._roots.get((type(exc), site.id))
        if node is None or node.code is not frame.f_code:
            return None
        current = frame.f_back
        while node.verdict is None:
            if current is None:
                return None
            node = node.children.get((id(current.f_code), current.f_lasti))  # type: ignore[assignment]
            if node is None or node.code is not current.f_code:
                return None
            current = current.f_back
        for namespace, name, value in node.deps:
            if namespace.get(name, _ABSENT) is not value:
                return None
        return node.verdict

    def store(self, exc: BaseException, site: Site, walked: list[types.FrameType],
              deps: list[tuple[dict[str, Any], str, Any]], verdict: Verdict) -> None:
        if self._nodes + len(walked) > self.MAX_NODES:
            return
        key = (type(exc), site.id)
        node = self._roots.get(key)
        if node is None or node.code is not walked[0].f_code:
            node = self._roots[key] = _Node(walked[0].f_code)
            self._nodes += 1
        for current in walked[1:]:
            if node.verdict is not None:
                return  # a shorter walk decided already (its deps changed since): keep it simple
            child_key = (id(current.f_code), current.f_lasti)
            child = node.children.get(child_key)
            if child is None or child.code is not current.f_code:
                child = node.children[child_key] = _Node(current.f_code)
                self._nodes += 1
            node = child
        if node.children:
            return
        node.verdict = verdict
        node.deps = tuple(deps)


def _test_file_further_out(frame: types.FrameType | None, target_file: str) -> bool:
    """Whether a frame further out runs test-file code: the frame left was a helper of the test
    (`self.newconfig()`), and the test that called it may still catch the exception."""
    while frame is not None:
        if same_file(frame.f_code.co_filename, target_file):
            return True
        frame = frame.f_back
    return False


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


@per_code
def _local_names(code: types.CodeType) -> frozenset[str] | None:
    """A function's local variable names; None for module and class bodies (their locals are a dict).

    Up to 3.12 reading a function frame's f_locals copies every local into a dict: skipped for
    names that cannot be local (`except KeyError`, `contextlib.suppress`).
    """
    if not code.co_flags & inspect.CO_OPTIMIZED:
        return None
    return frozenset(code.co_varnames + code.co_cellvars + code.co_freevars)


def _resolve(node: ast.expr, frame: types.FrameType) -> Any:
    """The value of a name/attribute/tuple expression in the frame, without running program code."""
    if isinstance(node, ast.Name):
        local_names = _local_names(frame.f_code)
        if local_names is None or node.id in local_names:
            _uncacheable()
            local_values = frame.f_locals
            if node.id in local_values:
                return local_values[node.id]
        for namespace in (frame.f_globals, vars(builtins)):
            value = namespace.get(node.id, _ABSENT)
            _depends_on(namespace, node.id, value)
            if value is not _ABSENT:
                return value
        raise _Unresolvable(f"name {node.id!r} is not bound")
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, frame)
        try:
            value = inspect.getattr_static(owner, node.attr)
        except AttributeError:
            _uncacheable()
            raise _Unresolvable(f"attribute {node.attr!r} not found statically") from None
        if isinstance(owner, types.ModuleType) and vars(owner).get(node.attr, _ABSENT) is value:
            _depends_on(vars(owner), node.attr, value)
        else:
            _uncacheable()
        if isinstance(value, (staticmethod, classmethod)):
            return getattr(owner, node.attr)  # binding a static/class method runs no program code
        if isinstance(value, (property, types.MemberDescriptorType, types.GetSetDescriptorType)):
            raise _Unresolvable(f"attribute {node.attr!r} is computed")
        return value
    if isinstance(node, ast.Tuple):
        return tuple(_resolve(element, frame) for element in node.elts)
    if isinstance(node, ast.Constant):
        return node.value  # a message pattern given to assertRaisesRegex / pytest.raises
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
    _uncacheable()  # managers are objects of the frame, their verdicts may depend on the message
    try:
        if isinstance(expression, ast.Call):
            callee = _resolve(expression.func, frame)
            if _is_suppress(callee) or expecting.is_factory(callee):
                if any(isinstance(arg, ast.Starred) for arg in expression.args) or any(
                        keyword.arg is None for keyword in expression.keywords):
                    return UNDECIDED, [f"with {_text(expression)}: arguments not evaluated"]
                args = tuple(_resolve(arg, frame) for arg in expression.args)
                keywords = {keyword.arg: _resolve(keyword.value, frame) for keyword in expression.keywords
                            if keyword.arg is not None}
                if _is_suppress(callee):
                    if keywords:
                        return UNDECIDED, [f"with {_text(expression)}: arguments not evaluated"]
                    return (CAUGHT if any(_matches(exc, t) for t in args) else NOT_CAUGHT), []
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
        manager = _resolve(expression, frame)
    except _Unresolvable as why:
        return UNDECIDED, [f"with {_text(expression)}: {why}"]
    if _is_suppress(type(manager)):
        suppressed = getattr(manager, "_exceptions", ())
        return (CAUGHT if any(_matches(exc, t) for t in suppressed) else NOT_CAUGHT), []
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
    function = _function_node(code)
    if function is not None:
        return all(node.value is None or (isinstance(node.value, ast.Constant) and node.value.value in (None, False))
                   for node in _own_returns(function))
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


def _own_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The function's `return` statements, not those of functions, lambdas or classes nested in it."""
    returns: list[ast.Return] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            returns.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return returns


def _function_node(code: types.CodeType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in _code_nodes(code):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first_line = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if first_line == code.co_firstlineno:
                return node
    return None


def _code_nodes(code: types.CodeType) -> tuple[ast.AST, ...]:
    """Every statement of the source of a code object's definition, at its place in the file.

    Only its own lines are parsed (a test method, not the whole test file: a test file can have
    thousands of lines), padded so that line numbers and columns are the file's; indented code is
    parsed as the body of an `if 1:` on the line above. The whole file when that fails. Not
    cached: callers cache what they derive (syntax trees are many objects for the GC to scan).
    """
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    last = max((end for _, end, _, _ in code.co_positions() if end is not None), default=first)
    if code.co_name != "<module>" and 1 <= first <= last <= len(lines):
        head = lines[first - 1]
        if head[:1] in (" ", "\t"):
            prefix = "\n" * (first - 2) + "if 1:\n" if first >= 2 else None
        else:
            prefix = "\n" * (first - 1)
        if prefix is not None:
            try:
                return _statements(ast.parse(prefix + "".join(lines[first - 1:last]), code.co_filename))
            except (SyntaxError, ValueError):
                pass  # e.g. the slice ends inside a construct whose end has no instruction
    return _file_nodes(code.co_filename)


def _file_nodes(filename: str) -> tuple[ast.AST, ...]:
    """Every statement of a source file."""
    try:
        return _statements(ast.parse("".join(linecache.getlines(filename)), filename))
    except (SyntaxError, ValueError):
        return ()


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module) -> tuple[ast.AST, ...]:
    """The statements of a tree (with except handlers and match cases), not its expressions:
    callers look for with statements and function definitions, and a full ast.walk of a test
    method visits ten times as many nodes."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        for field in _STATEMENT_LISTS:
            children = getattr(node, field, None)
            if isinstance(children, list):
                pending.extend(children)
    return tuple(found)


# ---------------------------------------------------------------- exception tables

# What a handler does with an exception: (verdict, offset of the re-raise the exception reaches if
# not caught there, undecided reasons).
_Outcome = tuple[str, int | None, tuple[str, ...]]
# An instruction replayed to evaluate an except clause's type: (opname, argval, arg).
_Load = tuple[str, Any, int | None]


@dataclasses.dataclass(frozen=True)
class _Clause:
    loads: tuple[_Load, ...]  # push the except clause's type
    matched: _Outcome  # when the type matches


@dataclasses.dataclass(frozen=True)
class _Handler:
    """The handler at an exception-table target, as far as the bytecode alone decides it.

    The except clauses are tried in order (their types are only known in the frame); a with
    block's managers (found in the source at `with_at`, the WITH_EXCEPT_START's line and column)
    are asked next; `outcome` holds when neither decided otherwise.
    """

    outcome: _Outcome
    clauses: tuple[_Clause, ...] = ()
    with_at: tuple[int, int | None] | None = None


class _CodeFacts:
    """A code object's exception table and the plans of its handlers, made when first needed.

    The decoded instructions are dropped once the plans are made: kept for every code object
    walked, they would be tens of thousands of objects for the garbage collector to scan.
    """

    def __init__(self, code: types.CodeType) -> None:
        self.entries = dis._parse_exception_table(code)  # type: ignore[attr-defined]
        self.starts = [entry.start for entry in self.entries]
        self.handlers: dict[int, _Handler] | None = None  # by target offset

    def handler_at(self, code: types.CodeType, offset: int) -> _Handler | None:
        """The handler covering the instruction at `offset` (the table's ranges are sorted, disjoint)."""
        position = bisect.bisect_right(self.starts, offset) - 1
        if position < 0 or offset >= self.entries[position].end:
            return None
        if self.handlers is None:
            self.handlers = _plan_handlers(code, {entry.target for entry in self.entries})
        return self.handlers.get(self.entries[position].target)


@per_code
def _code_facts(code: types.CodeType) -> _CodeFacts:
    """Library code raises and catches a lot: each code object is decoded once."""
    return _CodeFacts(code)


def _caught_by_exception_table(exc: BaseException, frame: types.FrameType) -> tuple[str, list[str]]:
    try:
        facts = _code_facts(frame.f_code)
        reasons: list[str] = []
        offset = frame.f_lasti
        for _ in range(_MAX_HANDLER_HOPS):
            handler = facts.handler_at(frame.f_code, offset)
            if handler is None:
                break
            state, reraise_at, found = _run_handler(exc, frame, handler)
            reasons.extend(found)
            if state == CAUGHT:
                return CAUGHT, reasons
            if reraise_at is None:
                reasons.append("handler flow not understood")
                break
            offset = reraise_at
    except Exception as error:  # healrt must never replace the program's exception with its own
        _uncacheable()
        return UNDECIDED, [f"exception table not understood: {type(error).__name__}: {error}"]
    return (UNDECIDED if reasons else NOT_CAUGHT), reasons


def _run_handler(exc: BaseException, frame: types.FrameType, handler: _Handler) -> _Outcome:
    for clause in handler.clauses:
        handler_type = _replay_loads(clause.loads, frame)
        if handler_type is _UNKNOWN:
            return UNDECIDED, None, ("except clause type not evaluable",)
        if _matches(exc, handler_type):
            return clause.matched
    if handler.with_at is not None:
        items = _with_index(frame.f_code).get(handler.with_at)
        if not items:
            return UNDECIDED, handler.outcome[1], ("with block not found in the source",)
        state, reasons = _combine([_with_item(exc, item, frame) for item in items])
        return state, handler.outcome[1], tuple(reasons)
    return handler.outcome


def _plan_handlers(code: types.CodeType, targets: set[int]) -> dict[int, _Handler]:
    instructions = list(dis.get_instructions(code))
    by_offset = {ins.offset: index for index, ins in enumerate(instructions)}
    plans: dict[int, _Handler] = {}
    for target in targets & by_offset.keys():
        try:
            plans[target] = _plan_handler(instructions, by_offset, by_offset[target])
        except IndexError:
            plans[target] = _Handler((UNDECIDED, None, ("handler flow not understood",)))
    return plans


def _plan_handler(instructions: list[dis.Instruction], by_offset: dict[int, int], start: int) -> _Handler:
    first_reraise = next((ins.offset for ins in instructions[start:] if ins.opname == "RERAISE"), None)
    if instructions[start].opname != "PUSH_EXC_INFO":
        return _Handler((NOT_CAUGHT, first_reraise, ()))  # a cleanup handler: it re-raises
    if instructions[start + 1].opname == "POP_TOP":
        return _Handler(_handler_exit(instructions, by_offset, start + 2))  # bare `except:`
    kind = next((ins for ins in instructions[start + 1:]
                 if ins.opname in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "WITH_EXCEPT_START", "RERAISE")), None)
    if kind is not None and kind.opname == "WITH_EXCEPT_START":
        # Up to 3.12 the position spans the whole with statement; from 3.13 it is the item's expression.
        position = kind.positions
        if position is None or position.lineno is None:
            return _Handler((UNDECIDED, first_reraise, ("with block without source position",)))
        return _Handler((NOT_CAUGHT, first_reraise, ()), with_at=(position.lineno, position.col_offset))
    if kind is None or kind.opname != "CHECK_EXC_MATCH":
        return _Handler((NOT_CAUGHT, first_reraise, ()))  # `finally` (or except*): runs, then re-raises
    clauses: list[_Clause] = []
    index = start + 1
    for _ in range(_MAX_HANDLER_HOPS):
        loads: list[_Load] = []
        while instructions[index].opname != "CHECK_EXC_MATCH":
            if instructions[index].opname == "RERAISE":
                return _Handler((NOT_CAUGHT, instructions[index].offset, ()), tuple(clauses))  # no clause matched
            loads.append((instructions[index].opname, instructions[index].argval, instructions[index].arg))
            index += 1
        clauses.append(_Clause(tuple(loads), _handler_exit(instructions, by_offset, index + 1)))
        jump = instructions[index + 1]
        if "JUMP" not in jump.opname or jump.argval not in by_offset:
            return _Handler((UNDECIDED, None, ("except clause chain not understood",)), tuple(clauses))
        index = by_offset[jump.argval]
    return _Handler((UNDECIDED, None, ("except clause chain too long",)), tuple(clauses))


@per_code
def _with_index(code: types.CodeType) -> dict[tuple[int, int | None], tuple[ast.expr, ...]]:
    """(line, column) of every with item's expression -> that item; of every with statement -> its items.

    The rest of the syntax tree is dropped.
    """
    statements = [node for node in _code_nodes(code) if isinstance(node, (ast.With, ast.AsyncWith))]
    index: dict[tuple[int, int | None], tuple[ast.expr, ...]] = {}
    for node in statements:
        for item in node.items:
            index.setdefault((item.context_expr.lineno, item.context_expr.col_offset), (item.context_expr,))
    for node in statements:
        index.setdefault((node.lineno, node.col_offset), tuple(item.context_expr for item in node.items))
    return index


_UNCONDITIONAL_JUMPS = frozenset(
    {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT"})


def _handler_exit(instructions: list[dis.Instruction], by_offset: dict[int, int], index: int) -> _Outcome:
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
            return CAUGHT, None, ()
        if ins.opname == "RERAISE" or (ins.opname == "RAISE_VARARGS" and ins.arg == 0):
            return NOT_CAUGHT, ins.offset, ()
        if ins.opname in _UNCONDITIONAL_JUMPS and ins.argval in by_offset:
            index = by_offset[ins.argval]
        else:
            index += 1
    return UNDECIDED, None, ("except clause end not found",)


_UNKNOWN = object()


def _replay_loads(loads: tuple[_Load, ...], frame: types.FrameType) -> Any:
    """Re-evaluate the simple load sequence an except clause uses to push its type."""
    stack: list[Any] = []
    try:
        for opname, name, arg in loads:
            if opname in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLASSDEREF"):
                _uncacheable()
                stack.append(frame.f_locals[name])  # read only here: see _local_names
            elif opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                if opname == "LOAD_NAME":
                    _uncacheable()
                if opname == "LOAD_NAME" and name in frame.f_locals:
                    stack.append(frame.f_locals[name])
                elif name in frame.f_globals:
                    _depends_on(frame.f_globals, name, frame.f_globals[name])
                    stack.append(frame.f_globals[name])
                else:
                    _depends_on(frame.f_globals, name, _ABSENT)
                    _depends_on(vars(builtins), name, vars(builtins).get(name, _ABSENT))
                    stack.append(getattr(builtins, name))
            elif opname in ("LOAD_ATTR", "LOAD_METHOD"):
                owner = stack.pop()
                value = getattr(owner, name)
                if isinstance(owner, types.ModuleType) and vars(owner).get(name, _ABSENT) is value:
                    _depends_on(vars(owner), name, value)
                else:
                    _uncacheable()
                stack.append(value)
            elif opname == "BUILD_TUPLE":
                count = arg or 0
                values = tuple(stack[len(stack) - count:]) if count else ()
                del stack[len(stack) - count:]
                stack.append(values)
            elif opname == "PUSH_NULL":
                continue
            else:
                _uncacheable()
                return _UNKNOWN
    except Exception:
        _uncacheable()
        return _UNKNOWN
    return stack[-1] if stack else _UNKNOWN
