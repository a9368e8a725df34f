"""Would the program itself catch this exception? If so, healrt must leave it alone.

The stack is walked from the crashing frame outward, up to and including the first frame of the
target test file (pytest/unittest machinery above it catches everything and is ignored):
- instrumented project frames: the static guards of the executing site (enclosing `try` bodies,
  whose handler types are evaluated in the frame; `with contextlib.suppress(...)` blocks);
- other frames (test code, libraries): the code object's exception table at `f_lasti`, following
  re-raising handlers (finally, cleanup, non-matching except clauses) outward within the frame.
Every approximate decision is reported through `note(reason, frame)`.
"""

from __future__ import annotations

import builtins
import dis
import functools
import os
import types
from typing import Any, Callable

from .sites import Site, SiteTable

Note = Callable[[str, types.FrameType], None]

_NEVER_NAMES = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration",
                "StopAsyncIteration", "RecursionError", "MemoryError", "AssertionError")
_NEVER_TYPES: tuple[type[BaseException], ...] = tuple(getattr(builtins, n) for n in _NEVER_NAMES)
# Control-flow exceptions of test frameworks (pytest's OutcomeException, unittest.SkipTest, ...).
_NEVER_MODULE_PREFIXES = ("_pytest.", "pytest.", "unittest.")
_SUPPRESSORS = ("suppress", "contextlib.suppress")
_MAX_HANDLER_HOPS = 32


def never_intercepted(exc: BaseException) -> bool:
    if isinstance(exc, _NEVER_TYPES):
        return True
    return any(cls.__module__.startswith(_NEVER_MODULE_PREFIXES) for cls in type(exc).__mro__)


def would_be_caught(
    exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable, target_file: str, note: Note
) -> bool:
    current: types.FrameType | None = frame
    while current is not None:
        code = current.f_code
        is_test_frame = same_file(code.co_filename, target_file)
        if table.is_instrumented(code.co_filename):
            frame_site = site if current is frame else table.site_at(current)
            if frame_site is None:
                note("executing site not found in instrumented frame", current)
            elif _guarded_statically(exc, current, frame_site, note):
                return True
        elif _caught_by_exception_table(exc, current, is_test_frame, note):
            return True
        if is_test_frame:
            return False
        current = current.f_back
    return False


@functools.lru_cache(maxsize=4096)
def _realpath(filename: str) -> str:
    return os.path.realpath(filename)


def same_file(filename: str, target_file: str) -> bool:
    return _realpath(filename) == target_file


def _evaluate(source: str, frame: types.FrameType) -> Any:
    return eval(compile(source, "<healrt-handler>", "eval"), frame.f_globals, dict(frame.f_locals))


def _matches(exc: BaseException, handler_type: Any) -> bool:
    try:
        return isinstance(exc, handler_type)
    except TypeError:
        return False


def _guarded_statically(exc: BaseException, frame: types.FrameType, site: Site, note: Note) -> bool:
    for guard in site.guards:
        if guard.kind == "try":
            for handler in guard.handlers:
                if handler is None:
                    return True
                try:
                    handler_type = _evaluate(handler, frame)
                except Exception as error:
                    note(f"could not evaluate handler type {handler!r}: {error!r}", frame)
                    continue
                if _matches(exc, handler_type):
                    return True
        else:
            for manager in guard.handlers:
                name, _, args = manager.partition("(")
                if name.strip() not in _SUPPRESSORS:
                    note(f"with block {manager!r} assumed not to suppress", frame)
                    continue
                try:
                    suppressed = _evaluate(f"({args[:-1]},)", frame)
                except Exception as error:
                    note(f"could not evaluate suppress arguments {manager!r}: {error!r}", frame)
                    continue
                if any(_matches(exc, t) for t in suppressed):
                    return True
    return False


def _caught_by_exception_table(exc: BaseException, frame: types.FrameType, is_test_frame: bool, note: Note) -> bool:
    try:
        entries, instructions, by_offset = _code_tables(frame.f_code)
    except Exception:
        note("exception table unavailable", frame)
        return False
    if not entries:
        return False
    offset = frame.f_lasti
    for _ in range(_MAX_HANDLER_HOPS):
        entry = next((e for e in entries if e.start <= offset < e.end), None)
        if entry is None or entry.target not in by_offset:
            return False
        start = by_offset[entry.target]
        verdict, reraise_at = _classify_handler(exc, frame, instructions, by_offset, start, is_test_frame, note)
        if verdict:
            return True
        if reraise_at is None:
            note("handler flow not understood; assumed not caught", frame)
            return False
        offset = reraise_at


@functools.lru_cache(maxsize=1024)
def _code_tables(code: types.CodeType) -> tuple[list[Any], list[dis.Instruction], dict[int, int]]:
    """Decoded exception table and instructions, cached: library code raises and catches a lot."""
    entries = dis._parse_exception_table(code)  # type: ignore[attr-defined]
    instructions = list(dis.get_instructions(code)) if entries else []
    return entries, instructions, {ins.offset: index for index, ins in enumerate(instructions)}


def _classify_handler(
    exc: BaseException, frame: types.FrameType, instructions: list[dis.Instruction], by_offset: dict[int, int],
    start: int, is_test_frame: bool, note: Note,
) -> tuple[bool, int | None]:
    """(caught, offset of the re-raise the exception reaches if not caught here)."""
    first_reraise = next((ins.offset for ins in instructions[start:] if ins.opname == "RERAISE"), None)
    if instructions[start].opname != "PUSH_EXC_INFO":
        return False, first_reraise  # a cleanup handler: it re-raises
    if instructions[start + 1].opname == "POP_TOP":
        return _handler_exit(instructions, by_offset, start + 2, frame, note)  # bare `except:`
    kind = next((ins.opname for ins in instructions[start + 1:]
                 if ins.opname in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "WITH_EXCEPT_START", "RERAISE")), None)
    if kind == "WITH_EXCEPT_START":
        # In the test itself a with block is typically pytest.raises/assertRaises; elsewhere most
        # context managers (locks, files) do not suppress.
        note(f"with block {'assumed to suppress (test frame)' if is_test_frame else 'assumed not to suppress'}", frame)
        return is_test_frame, first_reraise
    if kind != "CHECK_EXC_MATCH":
        return False, first_reraise  # `finally` (or except*): runs, then re-raises
    index = start + 1
    for _ in range(_MAX_HANDLER_HOPS):
        loads: list[dis.Instruction] = []
        while instructions[index].opname != "CHECK_EXC_MATCH":
            if instructions[index].opname == "RERAISE":
                return False, instructions[index].offset  # no clause matched
            loads.append(instructions[index])
            index += 1
        handler_type = _replay_loads(loads, frame)
        if handler_type is _UNKNOWN:
            note("except clause type not evaluable; assumed to catch", frame)
            return True, None
        if _matches(exc, handler_type):
            return _handler_exit(instructions, by_offset, index + 1, frame, note)
        jump = instructions[index + 1]
        if "JUMP" not in jump.opname or jump.argval not in by_offset:
            note("except clause chain not understood; assumed to catch", frame)
            return True, None
        index = by_offset[jump.argval]
    return True, None


_UNCONDITIONAL_JUMPS = frozenset(
    {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT"})


def _handler_exit(
    instructions: list[dis.Instruction], by_offset: dict[int, int], index: int, frame: types.FrameType, note: Note
) -> tuple[bool, int | None]:
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
            return True, None
        if ins.opname == "RERAISE" or (ins.opname == "RAISE_VARARGS" and ins.arg == 0):
            return False, ins.offset
        if ins.opname in _UNCONDITIONAL_JUMPS and ins.argval in by_offset:
            index = by_offset[ins.argval]
        else:
            index += 1
    note("except clause end not found; assumed to catch", frame)
    return True, None


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
