"""The operations rewritten formatting code calls once the guard is armed (fmtrewrite.py).

Each one does exactly what the original expression does, then labels the result when an input
carries a label: the interpreter's own f-strings, `%`, `.format`, `.join` and `str()` build plain
strings from labelled parts. Instrumented modules see this module as `_healrt_t`.

Calls are selected by name (fmtrewrite.CALL_NAMES / CALL_ATTRS): their result gets the label of any
argument or of the receiver (str/bytes methods, paths). A selected call of a project function is
propagated the same way (its arguments flow into its result); its own body propagates anyway.
"""

from __future__ import annotations

import types
from typing import Any

from . import sinks
from .taint import _WRAPPER_TYPES, carry, find_label, label_of, merge, plain, step, wrap
from .vault import state

_CONVERSIONS = {115: str, 114: repr, 97: ascii}
_NAMED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


def fv(value: Any, conversion: int, spec: Any) -> Any:
    """One replacement field of an f-string: conversion, then format(value, spec)."""
    converted = _CONVERSIONS[conversion](value) if conversion in _CONVERSIONS else value
    piece = format(converted, spec)
    if not state().any_label:
        return piece
    label = merge(merge(label_of(piece), find_label(value, 3)), label_of(spec))
    return piece if label is None else wrap(piece, label)


def fstr(*parts: Any) -> Any:
    """An f-string's pieces joined."""
    text = "".join(parts)
    if not state().any_label:
        return text
    label = None
    for part in parts:
        if type(part) in _WRAPPER_TYPES:
            label = merge(label, label_of(part))
    return text if label is None else wrap(text, step(label, "f-string"))


def mod(left: Any, right: Any) -> Any:
    """`left % right`: printf-style formatting of plain templates with labelled arguments."""
    result = left % right
    if type(result) not in (str, bytes) or not state().any_label:
        return result
    return carry(result, merge(find_label(left, 1), find_label(right, 3)), "%")


def item(container: Any, key: Any) -> Any:
    """`container[key]`: an item chosen by a labelled key is labelled."""
    result = container[key]
    if type(key) in _WRAPPER_TYPES:
        return carry(result, label_of(key), "[]")
    return result


def call(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """A selected call (str(), int(), .format, .join, os.path.*, Path(), json.dumps, ...)."""
    receiver = function.__self__ if type(function) in (types.BuiltinMethodType, types.MethodType) else None
    if args and type(receiver) in (str, bytes, *_WRAPPER_TYPES) and function.__name__ == "join":
        args = (list(args[0]), *args[1:])  # materialized once: the scan must not consume it
    result = function(*args, **kwargs)
    if not state().any_label:
        return result
    label = None
    for arg in args:
        label = merge(label, find_label(arg, 3))
    for arg in kwargs.values():
        label = merge(label, find_label(arg, 3))
    if receiver is not None and not isinstance(receiver, (type, types.ModuleType)):
        label = merge(label, find_label(receiver, 1))
    if label is None:
        return result
    name = function.__name__ if isinstance(function, _NAMED) else "call"
    if type(result) in _WRAPPER_TYPES:
        result = plain(result)  # re-labelled below with the merged label and this step
    return carry(result, label, f"{name}()")


def cond(index: int, value: Any, name: str) -> Any:
    """A declared check condition reads the name `name` in a branch test."""
    sinks.check_condition(index, value, None, ("name", name))
    return value


def cond_attr(index: int, owner: Any, name: str) -> Any:
    """A declared check condition reads `owner.name` in a branch test."""
    value = getattr(owner, name)
    sinks.check_condition(index, value, owner, ("attr", name))
    return value


def cond_item(index: int, owner: Any, key: Any) -> Any:
    """A declared check condition reads `owner[key]` in a branch test."""
    value = owner[key]
    sinks.check_condition(index, value, owner, ("item", key))
    return value
