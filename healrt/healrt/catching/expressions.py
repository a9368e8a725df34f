"""Resolving the expressions of except clauses and with items in a frame without running program
code: names, attributes looked up statically (no properties or `__getattr__`), tuples and
constants.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import types
from typing import Any

from ..percode import per_code
from .memo import ABSENT, depends_on, uncacheable


class Unresolvable(Exception):
    pass


@functools.lru_cache(maxsize=2048)
def parse_expression(source: str) -> ast.expr:
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


def resolve(node: ast.expr, frame: types.FrameType) -> Any:
    """The value of a name/attribute/tuple expression in the frame, without running program code."""
    if isinstance(node, ast.Name):
        local_names = _local_names(frame.f_code)
        if local_names is None or node.id in local_names:
            uncacheable()
            local_values = frame.f_locals
            if node.id in local_values:
                return local_values[node.id]
        for namespace in (frame.f_globals, vars(builtins)):
            value = namespace.get(node.id, ABSENT)
            depends_on(namespace, node.id, value)
            if value is not ABSENT:
                return value
        raise Unresolvable(f"name {node.id!r} is not bound")
    if isinstance(node, ast.Attribute):
        owner = resolve(node.value, frame)
        try:
            value = inspect.getattr_static(owner, node.attr)
        except AttributeError:
            uncacheable()
            raise Unresolvable(f"attribute {node.attr!r} not found statically") from None
        if isinstance(owner, types.ModuleType) and vars(owner).get(node.attr, ABSENT) is value:
            depends_on(vars(owner), node.attr, value)
        else:
            uncacheable()
        if isinstance(value, (staticmethod, classmethod)):
            return getattr(owner, node.attr)  # binding a static/class method runs no program code
        if isinstance(value, (property, types.MemberDescriptorType, types.GetSetDescriptorType)):
            raise Unresolvable(f"attribute {node.attr!r} is computed")
        return value
    if isinstance(node, ast.Tuple):
        return tuple(resolve(element, frame) for element in node.elts)
    if isinstance(node, ast.Constant):
        return node.value  # a message pattern given to assertRaisesRegex / pytest.raises
    raise Unresolvable(f"expression {ast.unparse(node)!r} is not evaluated")
