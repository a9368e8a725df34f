"""HealCore by value: what the names, attributes and callees of a heal are, checked as it runs.

The re-check (healcheck.py) and the gate read the heal's text, so they know a name, never what it
holds in the paused program. A module keeps `sys` as `_sys`, a program keeps `getattr` as `ga`,
`type(int)` is `type` itself. So before a heal runs, every name it reads is looked up in the
frame's namespace, and while it runs (dry run and live run alike) every attribute it reads and
every callable it calls passes through a check here:

- a module object is refused unless importing an allowlisted name gives it (`os.path` is posixpath);
- refused callables are refused under any name: eval and its kin, the process-ending and
  fork-hook functions of os, imports by computed name;
- reflective callables (getattr, attrgetter, ...) get their attribute names checked at run time;
- a metaclass (`type`, whatever expression produced it) is called with one positional argument only;
- a format string's replacement fields may not walk dunder, hidden or forbidden attributes.

The heal's tree is rewritten so that `a.b` reads `_healrt_attr(a, "b")` and `f(...)` calls
`_healrt_callee(f)(...)`; both names carry the runtime's hidden prefix, which heal code cannot
name, and are stripped from what a heal writes back.
"""

from __future__ import annotations

import ast
import builtins
import copy
import importlib
import operator
import os
import string
import sys
import types
from typing import Any, Callable

from .healcheck import (FORBIDDEN_ATTRIBUTES, FORBIDDEN_NAMES, IMPORT_ALLOWLIST, REFLECTIVE_CALLABLES,
                        SINGLE_ARGUMENT_REASON, HealRejected, format_refusal, reflective_name_reason)

ATTR_HOOK = "_healrt_attr"
CALLEE_HOOK = "_healrt_callee"


class HealValueRefused(HealRejected):
    """A value the heal reached at run time is not HealCore (raised inside the dry run)."""


def _refused_callables() -> dict[int, tuple[Any, str]]:
    """id -> (the object, kept alive so the id stays its own; why it is refused)."""
    refused: dict[int, tuple[Any, str]] = {}

    def refuse(value: Any, reason: str) -> None:
        if value is not None:
            refused[id(value)] = (value, reason)

    for name in ("eval", "exec", "compile", "__import__", "breakpoint", "input", "globals", "locals", "vars"):
        refuse(getattr(builtins, name, None), FORBIDDEN_NAMES.get(name, f"{name} is not HealCore"))
    for name in ("exit", "quit"):  # site's Quitter objects, when site installed them
        refuse(getattr(builtins, name, None), FORBIDDEN_NAMES[name])
    refuse(sys.exit, "sys.exit ends the healed process instead of repairing it")
    refuse(importlib.import_module, FORBIDDEN_NAMES["importlib"])
    for name, reason in FORBIDDEN_ATTRIBUTES.items():
        value = getattr(os, name, None)
        if callable(value):
            refuse(value, reason)
    return refused


_REFUSED = _refused_callables()
_REFLECTIVE_BY_VALUE: dict[int, tuple[Any, str]] = {
    id(value): (value, name) for name, value in (
        ("getattr", getattr), ("setattr", setattr), ("delattr", delattr), ("hasattr", hasattr),
        ("attrgetter", operator.attrgetter), ("methodcaller", operator.methodcaller))}
_STR_FORMATTERS = (str.format, str.format_map)


def _allowed_modules() -> set[int]:
    return {id(module) for name, module in list(sys.modules.items())
            if module is not None and name.partition(".")[0] in IMPORT_ALLOWLIST}


def _check_module(value: Any, what: str) -> None:
    if isinstance(value, types.ModuleType) and id(value) not in _allowed_modules():
        raise HealValueRefused(f"{what} is the module {getattr(value, '__name__', '?')!r}, which is not "
                               f"on the HealCore import allowlist (a module is refused whatever name it hides under)")


def check_names(tree: ast.Module, namespace: dict[str, Any]) -> None:
    """Every name the heal reads, by the value it has in the paused frame (builtins included)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = namespace.get(node.id, getattr(builtins, node.id, None))
            where = f"name {node.id!r} (line {node.lineno})"
            _check_module(value, where)
            refused = _REFUSED.get(id(value))
            if refused is not None and refused[0] is value:
                raise HealValueRefused(f"{where} is refused: {refused[1]}")


class _Instrument(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        hooked = ast.Call(ast.Name(ATTR_HOOK, ast.Load()), [node.value, ast.Constant(node.attr)], [])
        return ast.copy_location(hooked, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        node.func = ast.copy_location(ast.Call(ast.Name(CALLEE_HOOK, ast.Load()), [node.func], []), node.func)
        return node


def instrument(tree: ast.Module) -> ast.Module:
    """A copy of the heal's tree whose attribute reads and calls pass through the checks."""
    return ast.fix_missing_locations(_Instrument().visit(copy.deepcopy(tree)))


def hooks() -> dict[str, Callable[..., Any]]:
    """The names an instrumented heal's namespace must hold."""
    return {ATTR_HOOK: _attr, CALLEE_HOOK: _callee}


def _attr(value: Any, name: str) -> Any:
    result = getattr(value, name)
    _check_module(result, f"attribute {name!r}")
    return result


def _check_attribute_name(name: Any, callable_name: str) -> None:
    names = name.split(".") if callable_name == "attrgetter" and isinstance(name, str) else [name]
    for part in names:
        reason = reflective_name_reason(part) if isinstance(part, str) else None
        if reason is not None:
            raise HealValueRefused(f"{callable_name}(..., {part!r}) is refused: {reason}")


def _callee(function: Any) -> Any:
    refused = _REFUSED.get(id(function))
    if refused is not None and refused[0] is function:
        raise HealValueRefused(f"calling {getattr(function, '__name__', function)!r} is refused: {refused[1]}")
    reflective = _REFLECTIVE_BY_VALUE.get(id(function))
    if reflective is not None and reflective[0] is function:
        return _reflective(function, reflective[1])
    if isinstance(function, type) and issubclass(function, type):
        return _one_argument(function)
    template = _format_template_of(function)
    if template is not None:
        return template
    return function


def _reflective(function: Any, name: str) -> Callable[..., Any]:
    which = REFLECTIVE_CALLABLES[name].lower()

    def checked(*args: Any, **kwargs: Any) -> Any:
        names = args[:1] if which == "first" else args[1:2] if which == "second" else args
        for attribute in names:
            _check_attribute_name(attribute, name)
        return function(*args, **kwargs)
    return checked


def _one_argument(metaclass: type) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        if len(args) != 1 or kwargs:
            raise HealValueRefused(f"calling the metaclass {metaclass.__name__!r} with {len(args)} argument(s) "
                                   f"is refused: {SINGLE_ARGUMENT_REASON}")
        return metaclass(*args)
    return checked


def _format_template_of(function: Any) -> Callable[..., Any] | None:
    """A checking stand-in for a format call (bound str.format/format_map, str.format itself, or a
    string.Formatter's format/vformat), or None for any other callable."""
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", None)
    if isinstance(owner, str) and name in ("format", "format_map"):
        return _checking_format(function, lambda args: owner)
    if any(function is formatter for formatter in _STR_FORMATTERS):
        return _checking_format(function, lambda args: args[0] if args else None)
    if isinstance(owner, string.Formatter) and name in ("format", "vformat"):
        return _checking_format(function, lambda args: args[0] if args else None)
    return None


def _checking_format(function: Any, template_of: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        template = template_of(args)
        if isinstance(template, str):
            reason = format_refusal(str.__str__(template))
            if reason is not None:
                raise HealValueRefused(f"format string {template!r} is refused: {reason}")
        return function(*args, **kwargs)
    return checked
