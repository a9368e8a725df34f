"""The crash context sent to the controller (shape in docs/control-protocol.md)."""

from __future__ import annotations

import inspect
import linecache
import types
from typing import Any

from .sites import Site, SiteTable
from .taint import HEALRT_DIR

LOCAL_REPR_CAP = 8_000
LOCALS_TOTAL_CAP = 30_000
SOURCE_CAP = 20_000
MAX_CALLERS = 5


def hidden_name(name: str) -> bool:
    """Runtime-internal names, never shown to or reachable from the controller's code."""
    return name.startswith("_healrt")


def capped_repr(value: Any, cap: int) -> tuple[str, bool]:
    try:
        text = repr(value)
    except BaseException as error:  # a broken __repr__ must not take the runtime down
        text = f"<repr failed: {type(error).__name__}: {error}>"
    if len(text) > cap:
        return text[:cap], True
    return text, False


def _locals(frame: types.FrameType) -> list[dict[str, Any]]:
    module_level = frame.f_locals is frame.f_globals
    out: list[dict[str, Any]] = []
    budget = LOCALS_TOTAL_CAP
    for name, value in list(frame.f_locals.items()):
        if hidden_name(name) or (name.startswith("__") and name.endswith("__")):
            continue
        if module_level and isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue  # a module's own definitions are in its source; keep the budget for data
        text, truncated = capped_repr(value, min(LOCAL_REPR_CAP, budget))
        budget -= len(text)
        out.append({"name": name, "type": type(value).__name__, "repr": text, "truncated": truncated})
    return out


def _frame_entry(frame: types.FrameType, line: int, table: SiteTable) -> dict[str, Any]:
    code = frame.f_code
    return {
        "file": code.co_filename,
        "line": line,
        "function": code.co_name,  # as Python's own tracebacks print it
        "qualname": getattr(code, "co_qualname", code.co_name),
        "source_line": linecache.getline(code.co_filename, line).strip(),
        "project": table.is_instrumented(code.co_filename),
    }


def _code_source(code: types.CodeType) -> str | None:
    try:
        return inspect.getsource(code)[:SOURCE_CAP]
    except (OSError, TypeError):
        return None


def build_context(
    heal_point: int, exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable,
    target_file_frame: types.FrameType | None,
) -> dict[str, Any]:
    outer: list[types.FrameType] = []
    caller = frame.f_back
    while caller is not None:
        outer.append(caller)
        if caller is target_file_frame:
            break
        caller = caller.f_back
    if target_file_frame is None:
        outer = outer[:MAX_CALLERS]
    traceback_entries = [_frame_entry(f, f.f_lineno or 0, table) for f in reversed(outer)]
    traceback_entries.append(_frame_entry(frame, site.line, table))
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame is not frame:
        tb = tb.tb_next
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(HEALRT_DIR):  # HealGuard's taintops helpers
            traceback_entries.append(_frame_entry(tb.tb_frame, tb.tb_lineno, table))
        tb = tb.tb_next
    function_source = None
    if site.function_span is not None:
        first, last = site.function_span
        lines = table.sources.get(site.file, "").splitlines(keepends=True)
        function_source = "".join(lines[first - 1:last])[:SOURCE_CAP]
    callers = [source for f in outer[:MAX_CALLERS] if (source := _code_source(f.f_code))]
    return {
        "heal_point": heal_point,
        "exception_type": type(exc).__name__,
        "exception_message": _message(exc),
        "traceback": traceback_entries,
        "locals": _locals(frame),
        "statement": {
            "source": site.source, "file": site.file, "line": site.line, "end_line": site.end_line,
            "col": site.col, "end_col": site.end_col, "kind": site.kind, "targets": list(site.targets),
        },
        "function_source": function_source,
        "caller_sources": callers,
        "in_function": site.function is not None,
    }


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:LOCAL_REPR_CAP]
    except BaseException as error:
        return f"<str failed: {type(error).__name__}>"
