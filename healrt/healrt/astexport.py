"""The heal's analysis input for HealGuard's static stage (docs/healguard.md §2).

guard-service analyses the code that runs after a heal; it needs that code as CPython's own parser
sees it, so healrt exports the ASTs of the project modules as JSON, plus the crash point: where
the crashing frame stopped and where each project caller will continue.

A tree node is `{"_type": <class name>, <field>: <value>, ..., "lineno", "col_offset",
"end_lineno", "end_col_offset"}`; lists stay lists; fields whose value is None are left out (the
reader treats a missing field as None), except a constant's `value`. A constant's value is the
JSON scalar, or `{"repr": ...}` for what JSON cannot hold (bytes, complex, Ellipsis, inf/nan, text
that is not valid UTF-8).

Only healrt's copies of the sources are read (the site table's): no program code runs.
"""

from __future__ import annotations

import ast
import json
import math
import os
import sys
import types
from typing import Any

from .sites import Site, SiteTable

MODULES_CAP = 8 * 1024 * 1024  # bytes of module JSON in one heal_analysis
MAX_CALLERS = 20
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


# ---------------------------------------------------------------- trees

def tree_json(node: ast.AST) -> dict[str, Any]:
    out: dict[str, Any] = {"_type": type(node).__name__}
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(node, ast.Constant) and field == "value":
            out[field] = _constant(value)
        elif isinstance(value, ast.AST):
            out[field] = tree_json(value)
        elif isinstance(value, list):
            out[field] = [tree_json(item) if isinstance(item, ast.AST) else _scalar(item) for item in value]
        elif value is not None:
            out[field] = _scalar(value)
    for attribute in _POSITIONS:
        position = getattr(node, attribute, None)
        if position is not None:
            out[attribute] = position
    return out


def _constant(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and _encodable(value):
        return value
    return {"repr": repr(value)}


def _scalar(value: Any) -> Any:
    """Non-node field values: identifiers, operators' flags (`level`, `is_async`, `conversion`)."""
    if isinstance(value, (bool, int)) or (isinstance(value, str) and _encodable(value)):
        return value
    return {"repr": repr(value)}


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: the control channel's UTF-8 could not carry them
        return False
    return True


def module_json(source: str, filename: str) -> dict[str, Any] | None:
    """The module's tree, or None when it cannot be exported (not parseable, nested too deeply)."""
    try:
        return tree_json(ast.parse(source, filename))
    except (SyntaxError, ValueError, RecursionError):
        return None


def module_name(relative: str) -> str:
    """Dotted module name of a file relative to the source root (`pkg/__init__.py` -> `pkg`)."""
    parts = relative.replace(os.sep, "/").split("/")
    parts[-1] = parts[-1][:-3] if parts[-1].endswith(".py") else parts[-1]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


# ---------------------------------------------------------------- crash point

def _relative(file: str, source_dir: str) -> str:
    return os.path.relpath(file, source_dir).replace(os.sep, "/")


def _call_position(frame: types.FrameType) -> tuple[int, int, int, int]:
    """Where a caller frame continues: the source span of the instruction it is executing (the call)."""
    code, lasti = frame.f_code, frame.f_lasti
    positions = list(code.co_positions())
    index = lasti // 2
    if 0 <= index < len(positions):
        line, end_line, col, end_col = positions[index]
        if line is not None:
            return line, end_line or line, col or 0, end_col or 0
    line = frame.f_lineno or 0
    return line, line, 0, 0


def analysed_frames(frame: types.FrameType, table: SiteTable) -> list[types.FrameType]:
    """The crashing frame and its project callers (innermost first, at most MAX_CALLERS of them):
    the frames whose continuations the static stage analyses."""
    frames = [frame]
    caller = frame.f_back
    while caller is not None and len(frames) <= MAX_CALLERS:
        if table.is_instrumented(caller.f_code.co_filename):
            frames.append(caller)
        caller = caller.f_back
    return frames


def _if_statement_start(site: Site, table: SiteTable) -> tuple[int, int] | None:
    """Where the `if`/`elif` statement whose test is the site starts (the site is the test only)."""
    try:
        tree = ast.parse(table.sources.get(site.file, ""), site.file)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (node.test.lineno, node.test.col_offset) == (site.line, site.col):
            return node.lineno, node.col_offset
    return None


def crash_point(frame: types.FrameType, site: Site, table: SiteTable, source_dir: str, resume: str) -> dict[str, Any]:
    """The crashing statement, the resume mode and the project callers. For an `if` test site the
    statement is the whole `if` (or `elif`): `skip` continues after it, `retry` runs it again."""
    code = frame.f_code
    start = (site.line, site.col)
    if site.kind == "if":
        start = _if_statement_start(site, table) or start
    callers: list[dict[str, Any]] = []
    analysed = analysed_frames(frame, table)
    inner = frame
    for caller in analysed[1:]:
        line, end_line, col, end_col = _call_position(caller)
        callers.append({
            "file": _relative(caller.f_code.co_filename, source_dir), "function": caller.f_code.co_name,
            "qualname": getattr(caller.f_code, "co_qualname", caller.f_code.co_name),
            "line": line, "col": col, "end_line": end_line, "end_col": end_col,
            # A library frame sits between this caller and the frame inside it.
            "through_library": inner.f_back is not caller,
        })
        inner = caller
    return {
        "file": _relative(site.file, source_dir), "function": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),
        "line": start[0], "col": start[1], "end_line": site.end_line, "end_col": site.end_col,
        "kind": site.kind, "resume": resume, "callers": callers,
    }


# ---------------------------------------------------------------- modules

def _imported(tree: dict[str, Any], module: str, is_package: bool) -> list[str]:
    """Dotted names a module's import statements name (relative imports resolved), in order."""
    names: list[str] = []
    package = module if is_package else module.rpartition(".")[0]
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node.get("_type")
        if kind == "Import":
            names.extend(alias["name"] for alias in node.get("names", []))
        elif kind == "ImportFrom":
            base = node.get("module", "")
            level = node.get("level", 0)
            if level:
                anchor = package.split(".")[:len(package.split(".")) - (level - 1)] if package else []
                base = ".".join([*anchor, base] if base else anchor)
            names.append(base)
            names.extend(f"{base}.{alias['name']}" for alias in node.get("names", []))
        for value in node.values():
            if isinstance(value, dict):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in reversed(value) if isinstance(item, dict))
    return names


def export_modules(first_files: list[str], table: SiteTable, source_dir: str,
                   cap: int = MODULES_CAP) -> tuple[list[dict[str, Any]], bool]:
    """The project modules, the given files first, then the modules they import (breadth-first),
    then every other loaded project module; stops before the JSON would exceed `cap` bytes."""
    by_name = {}
    for file in table.sources:
        relative = _relative(file, source_dir)
        if not relative.startswith("../"):
            by_name[module_name(relative)] = file
    queue = [file for file in dict.fromkeys(first_files) if file in by_name.values()]
    exported: list[dict[str, Any]] = []
    seen: set[str] = set(queue)
    used = 0
    truncated = False
    while True:
        if not queue:  # modules no exported one imports: the rest, in a stable order
            rest = sorted(name for name, f in by_name.items() if f not in seen)
            if not rest:
                break
            seen.add(by_name[rest[0]])
            queue.append(by_name[rest[0]])
        file = queue.pop(0)
        relative = _relative(file, source_dir)
        name = module_name(relative)
        tree = module_json(table.sources[file], file)
        if tree is None:
            truncated = True
            continue
        size = len(json.dumps(tree, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        if used + size > cap:
            truncated = True
            continue
        used += size
        exported.append({"file": relative, "module": name, "ast": tree})
        for imported in _imported(tree, name, relative.endswith("__init__.py")):
            target = by_name.get(imported)
            if target is not None and target not in seen:
                seen.add(target)
                queue.append(target)
    return exported, truncated


def analysis(frame: types.FrameType, site: Site, table: SiteTable, source_dir: str, resume: str) -> dict[str, Any]:
    """`crash_point`, `modules` and `modules_truncated` of a heal_analysis message."""
    point = crash_point(frame, site, table, source_dir, resume)
    first = [site.file]
    caller = frame.f_back
    while caller is not None:
        if table.is_instrumented(caller.f_code.co_filename):
            first.append(caller.f_code.co_filename)
        caller = caller.f_back
    modules, truncated = export_modules(first, table, source_dir)
    return {"crash_point": point, "modules": modules, "modules_truncated": truncated}


def main(argv: list[str]) -> int:
    """`python -m healrt.astexport SOURCE_DIR FILE...`: prints {"modules": [...]} for the files,
    exported as a heal_analysis would (tests of the analysis consume it)."""
    if len(argv) < 2:
        print("usage: python -m healrt.astexport SOURCE_DIR FILE...", file=sys.stderr)
        return 2
    source_dir = os.path.abspath(argv[0])
    table = SiteTable()
    files = [os.path.abspath(os.path.join(source_dir, file)) for file in argv[1:]]
    for file in files:
        with open(file, encoding="utf-8") as handle:
            table.add_file(file, handle.read())
    modules, truncated = export_modules(files, table, source_dir)
    json.dump({"modules": modules, "modules_truncated": truncated}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
