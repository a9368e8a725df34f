"""What a frame outside a wrapped statement does with the exception, from its code object's
exception table at `f_lasti`: except clauses (their types re-evaluated from the load
instructions), with blocks (asked through guards.py), and re-raising handlers (`finally`,
cleanups, non-matching clauses) followed outward.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import dataclasses
import dis
import types
from typing import Any

from ..percode import per_code
from .guards import CAUGHT, NOT_CAUGHT, UNDECIDED, combine, matches, with_item
from .memo import ABSENT, depends_on, uncacheable
from .source import code_nodes

MAX_HANDLER_HOPS = 32

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


def caught_by_exception_table(exc: BaseException, frame: types.FrameType) -> tuple[str, list[str]]:
    try:
        facts = _code_facts(frame.f_code)
        reasons: list[str] = []
        offset = frame.f_lasti
        for _ in range(MAX_HANDLER_HOPS):
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
        uncacheable()
        return UNDECIDED, [f"exception table not understood: {type(error).__name__}: {error}"]
    return (UNDECIDED if reasons else NOT_CAUGHT), reasons


def _run_handler(exc: BaseException, frame: types.FrameType, handler: _Handler) -> _Outcome:
    for clause in handler.clauses:
        handler_type = _replay_loads(clause.loads, frame)
        if handler_type is _UNKNOWN:
            return UNDECIDED, None, ("except clause type not evaluable",)
        if matches(exc, handler_type):
            return clause.matched
    if handler.with_at is not None:
        items = _with_index(frame.f_code).get(handler.with_at)
        if not items:
            return UNDECIDED, handler.outcome[1], ("with block not found in the source",)
        state, reasons = combine([with_item(exc, item, frame) for item in items])
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
    for _ in range(MAX_HANDLER_HOPS):
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
    statements = [node for node in code_nodes(code) if isinstance(node, (ast.With, ast.AsyncWith))]
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
                uncacheable()
                stack.append(frame.f_locals[name])  # read only here: see _local_names
            elif opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                if opname == "LOAD_NAME":
                    uncacheable()
                if opname == "LOAD_NAME" and name in frame.f_locals:
                    stack.append(frame.f_locals[name])
                elif name in frame.f_globals:
                    depends_on(frame.f_globals, name, frame.f_globals[name])
                    stack.append(frame.f_globals[name])
                else:
                    depends_on(frame.f_globals, name, ABSENT)
                    depends_on(vars(builtins), name, vars(builtins).get(name, ABSENT))
                    stack.append(getattr(builtins, name))
            elif opname in ("LOAD_ATTR", "LOAD_METHOD"):
                owner = stack.pop()
                value = getattr(owner, name)
                if isinstance(owner, types.ModuleType) and vars(owner).get(name, ABSENT) is value:
                    depends_on(vars(owner), name, value)
                else:
                    uncacheable()
                stack.append(value)
            elif opname == "BUILD_TUPLE":
                count = arg or 0
                values = tuple(stack[len(stack) - count:]) if count else ()
                del stack[len(stack) - count:]
                stack.append(values)
            elif opname == "PUSH_NULL":
                continue
            else:
                uncacheable()
                return _UNKNOWN
    except Exception:
        uncacheable()
        return _UNKNOWN
    return stack[-1] if stack else _UNKNOWN
