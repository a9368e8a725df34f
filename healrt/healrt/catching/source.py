"""Finding a code object's definition in its source file: its statements, its function node, and
the function's own `return` statements."""

from __future__ import annotations

import ast
import linecache
import types


def own_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
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


def function_node(code: types.CodeType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in code_nodes(code):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first_line = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if first_line == code.co_firstlineno:
                return node
    return None


def code_nodes(code: types.CodeType) -> tuple[ast.AST, ...]:
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
