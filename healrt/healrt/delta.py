"""Δk of a heal: every location whose value the heal changed, plus every location it wrote.

Computed in the dry-run fork (the live process never pays for it, and mutations there are free).
Locations (format in docs/control-protocol.md):
- `name:x`: a binding of the heal's namespace (the frame's locals over its module's globals);
- `attr:<path>.y`, `item:<path>[k]`: an attribute or item of an object reachable from those names,
  `<path>` being how it is first reached breadth-first (`self.cfg`, `sections['main']`).

Changes: before the heal, the objects reachable from the names are walked breadth-first to a
bounded depth and count, and each slot's value is remembered (a strong reference, so identities
stay meaningful). After it, the same objects' slots are read again. A slot changed if it now holds
a different object, except that equal immutable scalars count as the same value. A container's
own mutation (`lst.append(1)`) shows as the slots it gained or lost.
Writes: from the heal's AST (assignment, augmented assignment, delete and for targets, walrus,
imports, `setattr`/`delattr` with a literal name); target objects and keys are evaluated in the
namespace after the run, which is exact unless the heal rebinds a name after writing through it.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import itertools
import reprlib
import types
from typing import Any, Iterator

MAX_DEPTH = 4
MAX_OBJECTS = 2_000
MAX_ITEMS = 500  # slots read per container
MAX_ENTRIES = 200
_ABSENT: Any = object()

_SCALARS = (int, float, complex, str, bytes, bool, type(None), range, frozenset)
# Reached by name but never walked into: code, namespaces of their own, and machinery.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           types.CodeType, types.FrameType, types.GeneratorType, types.CoroutineType, types.TracebackType,
           types.BuiltinMethodType, types.MethodWrapperType, types.WrapperDescriptorType, property)
_SEQUENCES = (list, tuple, bytearray, collections.deque)

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlevel = 3


def short_repr(value: Any) -> str | None:
    if value is _ABSENT:
        return None
    try:
        return _REPR.repr(value)
    except BaseException as error:
        return f"<repr failed: {type(error).__name__}>"


Slot = tuple[str, Any]  # ("attr", name) | ("item", key)


def _slots(obj: Any) -> Iterator[tuple[Slot, Any]] | None:
    """The slots of a walkable object, or None if it is not walked into."""
    if isinstance(obj, _SCALARS) or isinstance(obj, _OPAQUE):
        return None
    if isinstance(obj, dict):
        return ((("item", key), value) for key, value in dict.items(obj))
    if isinstance(obj, _SEQUENCES):
        return ((("item", index), value) for index, value in enumerate(obj))
    if isinstance(obj, (set, frozenset)):
        return ((("item", member), member) for member in obj)
    try:
        attributes = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        attributes = {}
    slot_names = [name for klass in type(obj).__mro__ for name in getattr(klass, "__slots__", ())
                  if isinstance(name, str) and name not in ("__dict__", "__weakref__")]
    if not isinstance(attributes, dict) or (not attributes and not slot_names):
        return None

    def attribute_slots() -> Iterator[tuple[Slot, Any]]:
        yield from ((("attr", name), value) for name, value in dict.items(attributes) if not _internal(name))
        for name in slot_names:
            try:
                yield ("attr", name), object.__getattribute__(obj, name)
            except AttributeError:
                continue
    return attribute_slots()


def _read(obj: Any) -> tuple[dict[Slot, Any] | None, bool]:
    """(slots, capped); None if the object is not walkable."""
    slots = _slots(obj)
    if slots is None:
        return None, False
    read = dict(itertools.islice(slots, MAX_ITEMS + 1))
    if len(read) > MAX_ITEMS:
        read.popitem()
        return read, True
    return read, False


def location(path: str, slot: Slot) -> str:
    kind, key = slot
    if kind == "attr":
        return f"attr:{path}.{key}"
    return f"item:{path}[{short_repr(key)}]"


def _child_path(path: str, slot: Slot) -> str:
    return location(path, slot).partition(":")[2]


MAX_ALIASES = 3


@dataclasses.dataclass
class Snapshot:
    names: dict[str, Any]
    objects: dict[int, tuple[Any, str, dict[Slot, Any]]]  # id -> (object, path, slots)
    truncated: bool
    # id -> the other paths at which a walked object is reached (`view` beside `job`): the static
    # stage follows a heal's source by one name, so a source with another is not cleared by it.
    also: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def path_of(self, obj: Any) -> str | None:
        entry = self.objects.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None


def snapshot(namespace: dict[str, Any]) -> Snapshot:
    names = {name: value for name, value in namespace.items() if not _internal(name)}
    objects: dict[int, tuple[Any, str, dict[Slot, Any]]] = {}
    truncated = False
    also: dict[int, list[str]] = {}
    frontier: list[tuple[Any, str]] = list((value, name) for name, value in names.items())
    for depth in range(MAX_DEPTH + 1):
        following: list[tuple[Any, str]] = []
        for obj, path in frontier:
            if id(obj) in objects:
                paths = also.setdefault(id(obj), [])
                if len(paths) < MAX_ALIASES:
                    paths.append(path)
                continue
            slots, capped = _read(obj)
            if slots is None:
                continue
            if depth == MAX_DEPTH or len(objects) >= MAX_OBJECTS:
                truncated = True  # walkable but beyond the bounds: its inside is not compared
                continue
            truncated = truncated or capped
            objects[id(obj)] = (obj, path, slots)
            following.extend((value, _child_path(path, slot)) for slot, value in slots.items())
        frontier = following
    return Snapshot(names, objects, truncated, also)


def _internal(name: str) -> bool:
    """Dunder names (`__builtins__`, `__spec__`, ...) and the runtime's own: heals cannot touch them."""
    return name.startswith(("__", "_healrt"))


def _same(before: Any, after: Any) -> bool:
    if before is after:
        return True
    if before is _ABSENT or after is _ABSENT:
        return False
    if isinstance(before, _SCALARS) and type(before) is type(after):
        try:
            return bool(before == after)
        except Exception:
            return False
    return False


@dataclasses.dataclass
class _Entry:
    before: Any
    after: Any
    changed: bool = False
    written: bool = False
    also: list[str] = dataclasses.field(default_factory=list)  # other paths to the slot's owner


def compute(tree: ast.Module, before: Snapshot, namespace: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """Δk as `delta` entries, and whether it is truncated (bounds reached)."""
    entries: dict[str, _Entry] = {}
    for name in [*before.names, *(n for n in namespace if n not in before.names and not _internal(n))]:
        old, new = before.names.get(name, _ABSENT), namespace.get(name, _ABSENT)
        if not _same(old, new):
            entries[f"name:{name}"] = _Entry(old, new, changed=True)
    truncated = before.truncated
    for obj, path, old_slots in before.objects.values():
        new_slots, capped = _read(obj)
        truncated = truncated or capped
        for slot in [*old_slots, *(s for s in (new_slots or {}) if s not in old_slots)]:
            old, new = old_slots.get(slot, _ABSENT), (new_slots or {}).get(slot, _ABSENT)
            if not _same(old, new):
                entries[location(path, slot)] = _Entry(old, new, changed=True, also=before.also.get(id(obj), []))
    for where, old, new, owner in _writes(tree, before, namespace):
        entry = entries.setdefault(where, _Entry(old, new, also=before.also.get(owner, []) if owner is not None else []))
        entry.written = True
    out = [{"location": where, "kind": "both" if e.changed and e.written else "changed" if e.changed else "written",
            "before": short_repr(e.before), "after": short_repr(e.after), **({"also": e.also} if e.also else {})}
           for where, e in entries.items()]
    if len(out) > MAX_ENTRIES:
        return out[:MAX_ENTRIES], True
    return out, truncated


def _writes(tree: ast.Module, before: Snapshot, namespace: dict[str, Any]) -> Iterator[tuple[str, Any, Any, int | None]]:
    """(location, value before, value after, id of the slot's owner or None for a name) of each location the
    heal's code writes."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = alias.asname or alias.name.partition(".")[0]
                yield f"name:{name}", before.names.get(name, _ABSENT), namespace.get(name, _ABSENT), None
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            yield from _slot_write(node.args[0], ("attr", node.args[1].value), before, namespace)
        for target in targets:
            yield from _target_writes(target, before, namespace)


def _target_writes(target: ast.expr, before: Snapshot, namespace: dict[str, Any]
                   ) -> Iterator[tuple[str, Any, Any, int | None]]:
    if isinstance(target, ast.Name):
        yield f"name:{target.id}", before.names.get(target.id, _ABSENT), namespace.get(target.id, _ABSENT), None
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_writes(element, before, namespace)
    elif isinstance(target, ast.Starred):
        yield from _target_writes(target.value, before, namespace)
    elif isinstance(target, ast.Attribute):
        yield from _slot_write(target.value, ("attr", target.attr), before, namespace)
    elif isinstance(target, ast.Subscript):
        try:
            key = _evaluate_key(target.slice, namespace)
        except Exception:
            return
        yield from _slot_write(target.value, ("item", key), before, namespace)


def _evaluate_key(node: ast.expr, namespace: dict[str, Any]) -> Any:
    if isinstance(node, ast.Slice):
        parts = [None if part is None else _evaluate(part, namespace) for part in (node.lower, node.upper, node.step)]
        return slice(*parts)
    return _evaluate(node, namespace)


def _evaluate(node: ast.expr, namespace: dict[str, Any]) -> Any:
    return eval(compile(ast.Expression(node), "<heal-target>", "eval"), namespace)


def _slot_write(owner_node: ast.expr, slot: Slot, before: Snapshot, namespace: dict[str, Any]
                ) -> Iterator[tuple[str, Any, Any, int | None]]:
    try:
        owner = _evaluate(owner_node, namespace)
    except Exception:
        return
    path = before.path_of(owner) or ast.unparse(owner_node)
    walked = before.objects.get(id(owner))
    old = walked[2].get(slot, _ABSENT) if walked is not None and walked[0] is owner else _ABSENT
    current, _ = _read(owner)
    new = (current or {}).get(slot, _ABSENT)
    if new is _ABSENT and slot[0] == "attr":
        new = getattr(owner, slot[1], _ABSENT)
    if slot[0] == "item" and isinstance(slot[1], slice):
        new = _ABSENT
    yield location(path, slot), old, new, id(owner)
