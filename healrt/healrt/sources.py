"""Labelling the heal sources of heal k in the live process, right after the heal ran.

Heal sources (docs/control-protocol.md, "HealGuard: the dynamic stage"): every location whose
value the heal changed, plus every location it wrote. They are found as Δk is (delta.py), but on
the live objects: the objects reachable from the heal's namespace are walked before the heal
(delta.snapshot), their slots compared after it; names rebound or assigned by the heal, and the
return slot, are names; written-but-unchanged attribute and item targets are re-read when their
owner is a plain name, attribute or constant item chain (re-evaluating anything else could run
the heal's side effects twice).

Each source gets label k (its source location and the crash site recorded in the label):
- a str/bytes/int/float/tuple value is replaced by its wrapper, in place: the name is written back
  wrapped; an attribute in the instance (or class) `__dict__` or a slot, an item of a list or of a
  dict without its own `__setitem__`, is overwritten with the equal wrapped value (no program code
  runs); elsewhere only the location label is kept;
- the location itself is labelled (owner, slot) or (scope, name), whatever its value;
- bool and None cannot be wrapped: the location is recorded for the conservative rule and a
  `guard_conservative` record is returned (with the heal's static verdict; a `clean` one waives
  the rule within the frames the analysis covered, guard.py);
- any other object gets an object label; an object the heal created (not seen before it ran) is
  walked and its contents labelled the same way, as values computed by the heal.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import types
from typing import Any, Iterator

from . import taint
from .delta import _ABSENT, Snapshot, _read, _same, location  # one definition of slots and "changed"
from .vault import state

DEEP_DEPTH = 3
DEEP_OBJECTS = 500
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           types.CodeType, types.FrameType)


class _NotSimple(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Waiver:
    """The heal's static verdict, and (verdict clean) the outermost frame its analysis covered."""
    static_verdict: str | None = None
    within: types.FrameType | None = None


def label_sources(heal_point: int, tree: ast.Module, before: Snapshot, namespace: dict[str, Any],
                  updates: dict[str, Any], frame: types.FrameType, site_file: str, site_line: int,
                  waiver: Waiver = Waiver()) -> list[dict[str, Any]]:
    """Label heal k's sources; `updates` (names to write back) gets the wrapped values.
    Returns the guard_conservative records (bool/None written)."""
    labeller = _Labeller(heal_point, before, site_file, site_line, waiver)
    labeller.names(tree, namespace, updates, frame)
    labeller.slots(tree, namespace)
    return labeller.conservative


class _Labeller:
    def __init__(self, heal_point: int, before: Snapshot, file: str, line: int, waiver: Waiver) -> None:
        self.heal_point = heal_point
        self.waiver = waiver
        self.before = before
        self.file = file
        self.line = line
        self.conservative: list[dict[str, Any]] = []
        self._seen_before = set(before.objects) | {id(v) for v in before.names.values()}
        self._deep_budget = DEEP_OBJECTS

    def _label(self, where: str) -> taint.Label:
        return taint.new_label(self.heal_point, {"location": where, "file": self.file, "line": self.line})

    # ------------------------------------------------------------ names

    def names(self, tree: ast.Module, namespace: dict[str, Any], updates: dict[str, Any], frame: types.FrameType) -> None:
        code = frame.f_code
        optimized = bool(code.co_flags & inspect.CO_OPTIMIZED)
        local_names = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
        written = {name for name in _written_names(tree) if name in namespace}
        for name in sorted(set(updates) | written):
            if name.startswith(("__", "_healrt")):
                continue
            value = updates.get(name, namespace.get(name, _ABSENT))
            if value is _ABSENT:
                continue
            is_local = optimized and name in local_names
            scope: Any = code if is_local else frame.f_globals
            label = self._label(f"name:{name}")
            taint.label_name(scope, name, label)
            module = None if is_local else _module_of(frame.f_globals)
            if module is not None:  # read elsewhere as module.name
                taint.label_location(module, ("attr", name), label)
            wrapped = taint.wrap(value, label)
            if wrapped is not None:
                updates[name] = wrapped
            elif value is None or type(value) is bool:
                self._conservative("local" if is_local else "global", scope, name, label, f"name:{name}", value)
            else:
                self._object(value, label)

    # ------------------------------------------------------------ attributes and items

    def slots(self, tree: ast.Module, namespace: dict[str, Any]) -> None:
        done: set[tuple[int, Any]] = set()
        for owner, path, slot in [*self._changed(), *_written_slots(tree, namespace, self.before)]:
            try:
                key = (id(owner), slot)
                if key in done:
                    continue
                done.add(key)
            except TypeError:  # an unhashable item key
                continue
            current, _ = _read(owner)
            value = (current or {}).get(slot, _ABSENT)
            if value is _ABSENT and slot[0] == "attr":
                value = inspect.getattr_static(owner, slot[1], _ABSENT)
            where = location(path, slot)
            label = self._label(where)
            taint.label_location(owner, slot, label)
            if isinstance(owner, types.ModuleType) and slot[0] == "attr":
                taint.label_name(vars(owner), slot[1], label)
            if value is _ABSENT:
                continue
            wrapped = taint.wrap(value, label)
            if wrapped is not None:
                _store(owner, slot, wrapped)
            elif value is None or type(value) is bool:
                self._conservative(slot[0], owner, slot[1], label, where, value)
            else:
                self._object(value, label)

    def _changed(self) -> Iterator[tuple[Any, str, tuple[str, Any]]]:
        for obj, path, old_slots in self.before.objects.values():
            new_slots, _ = _read(obj)
            new_slots = new_slots or {}
            for slot in [*old_slots, *(s for s in new_slots if s not in old_slots)]:
                if not _same(old_slots.get(slot, _ABSENT), new_slots.get(slot, _ABSENT)):
                    yield obj, path, slot

    # ------------------------------------------------------------ values

    def _conservative(self, kind: str, scope: Any, key: Any, label: taint.Label, where: str, value: Any) -> None:
        waived_within = self.waiver.within
        state().conservative.append({"kind": kind, "scope": scope, "key": key, "label": label, "location": where,
                                     "waived_within": waived_within})
        self.conservative.append({"kind": "guard_conservative", "heal_point": self.heal_point,
                                  "reason": "None" if value is None else "bool", "location": where,
                                  "stage": "dynamic", "verdict": "recorded" if waived_within is None else "waived",
                                  "static_verdict": self.waiver.static_verdict})

    def _object(self, value: Any, label: taint.Label, depth: int = DEEP_DEPTH) -> None:
        """Object label; for an object the heal created, its contents are labelled too."""
        if isinstance(value, _OPAQUE) or self._deep_budget <= 0:
            return
        taint.label_object(value, label)
        if id(value) in self._seen_before or depth <= 0:
            return
        self._deep_budget -= 1
        self._seen_before.add(id(value))  # each object once
        slots, _ = _read(value)
        for slot, item in (slots or {}).items():
            wrapped = taint.wrap(item, label)
            if wrapped is not None:
                _store(value, slot, wrapped)
            elif item is not None and type(item) is not bool:
                self._object(item, label, depth - 1)


def _store(owner: Any, slot: tuple[str, Any], value: Any) -> None:
    """Overwrite a slot with an equal (wrapped) value without running program code; else leave it."""
    kind, key = slot
    if kind == "item":
        if type(owner) is list:
            owner[key] = value
        elif isinstance(owner, dict) and type(owner).__setitem__ is dict.__setitem__ and key in owner:
            dict.__setitem__(owner, key, value)
        return
    if isinstance(owner, type):
        if type(owner).__setattr__ is type.__setattr__:
            try:
                type.__setattr__(owner, key, value)
            except TypeError:  # an immutable (built-in) type
                pass
        return
    try:
        attributes = object.__getattribute__(owner, "__dict__")
    except AttributeError:
        attributes = None
    if isinstance(attributes, dict) and key in attributes:
        attributes[key] = value
        return
    descriptor = inspect.getattr_static(type(owner), key, None)
    if type(descriptor).__name__ == "member_descriptor":  # a __slots__ slot
        descriptor.__set__(owner, value)


def _written_names(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield alias.asname or alias.name.partition(".")[0]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name


def _written_slots(tree: ast.Module, namespace: dict[str, Any], before: Snapshot
                   ) -> Iterator[tuple[Any, str, tuple[str, Any]]]:
    """(owner, path, slot) of attribute and item targets whose owner is a simple chain."""
    for node in ast.walk(tree):
        target: Any = None
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            target = ast.Attribute(node.args[0], node.args[1].value, ast.Store())
        if target is None:
            continue
        try:
            owner = _simple(target.value, namespace)
            slot = ("attr", target.attr) if isinstance(target, ast.Attribute) else ("item", _constant(target.slice))
        except Exception:  # not a simple chain, or it no longer resolves
            continue
        yield owner, before.path_of(owner) or ast.unparse(target.value), slot


def _simple(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """Evaluate a name / attribute / constant-item chain (what a heal target's owner usually is)."""
    if isinstance(node, ast.Name):
        if node.id not in namespace:
            raise _NotSimple
        return namespace[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_simple(node.value, namespace), node.attr)
    if isinstance(node, ast.Subscript):
        return _simple(node.value, namespace)[_constant(node.slice)]
    raise _NotSimple


def _constant(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    raise _NotSimple


def _module_of(globals_dict: dict[str, Any]) -> types.ModuleType | None:
    module = sys.modules.get(str(globals_dict.get("__name__")))
    return module if module is not None and vars(module) is globals_dict else None
