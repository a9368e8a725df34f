"""Heal labels: per-value wrappers for str, bytes, int, float and tuple, and per-object and
per-location labels for everything else.

A label says which heal points a value came from and how: its source (the location heal k wrote)
and the steps since (operation, file, line), capped. Labels are opaque: no attribute of a label can
be read except through this module (`_field`), and its repr is constant.

Wrappers are subclasses named like their base (`type(x).__name__ == "str"`, module `builtins`), so
error messages, reprs and the crash context look as without healrt. Their operations carry the
label to the result: arithmetic, concatenation, repetition, `%`, slicing, iteration, and every
method that returns data of the value. Comparisons and hashing are inherited unchanged.
`__str__`, `__repr__`, `__int__` and `__float__` return exact base values (the interpreter and
pathlib require it); `str(x)` in project code is labelled by the formatting rewrite instead
(fmtrewrite.py). The wrapper classes are sealed: their attributes cannot be set or deleted, so
heal code cannot switch propagation off (`type(x).upper = ...` raises).

A wrapper keeps its label in its instance `__dict__` under a dunder key: heal code cannot name it
(HealCore refuses dunders, also as getattr/setattr literals). The label itself is opaque.

Objects that cannot be wrapped (paths, lists, user objects) get an object label (`label_object`),
keyed by identity and kept alive by the table (bounded: OBJECT_CAP). Locations (attribute or item
slots of an owner, names of a scope) get location labels (`label_location`, `label_name`).
"""

from __future__ import annotations

import collections
import operator
import os
import sys
from typing import Any, Callable, Iterator

from .vault import state

STEP_CAP = 16  # steps kept per label: the first half, then a rolling window of the latest
OBJECT_CAP = 100_000
SCAN_DEPTH = 4
SCAN_BUDGET = 2_000
_KEY = "__healrt__"
HEALRT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_get = object.__getattribute__


# ---------------------------------------------------------------- labels

class Label:
    """heals: frozenset of heal points; source: dict (the location written); steps: tuple."""

    __slots__ = ("heals", "source", "steps")

    def __getattribute__(self, name: str) -> Any:
        raise AttributeError(name)

    def __repr__(self) -> str:
        return "<healrt label>"

    def __format__(self, spec: str) -> str:
        return "<healrt label>"

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("healrt labels cannot be copied")


def _make(heals: frozenset[int], source: dict[str, Any], steps: tuple[Any, ...]) -> Label:
    label = object.__new__(Label)
    object.__setattr__(label, "heals", heals)
    object.__setattr__(label, "source", source)
    object.__setattr__(label, "steps", steps)
    state().any_label = True
    return label


def _field(label: Label, name: str) -> Any:
    return _get(label, name)


def new_label(heal_point: int, source: dict[str, Any]) -> Label:
    return _make(frozenset((heal_point,)), dict(source, heal_point=heal_point), ())


def heals_of(label: Label) -> frozenset[int]:
    return _field(label, "heals")


def flow_of(label: Label) -> list[dict[str, Any]]:
    """The witness path: the source, then each recorded step (an elided count where capped)."""
    source = dict(_field(label, "source"), kind="source")
    steps: list[dict[str, Any]] = []
    for step in _field(label, "steps"):
        if isinstance(step, int):
            steps.append({"kind": "elided", "steps": step})
        else:
            op, file, line = step
            steps.append({"kind": "step", "op": op, "file": file, "line": line})
    return [source, *steps]


def merge(first: Label | None, second: Label | None) -> Label | None:
    """Both heal sets; the witness path of the first."""
    if first is None or first is second:
        return second
    if second is None:
        return first
    heals = _field(first, "heals") | _field(second, "heals")
    if heals == _field(first, "heals"):
        return first
    return _make(heals, _field(first, "source"), _field(first, "steps"))


def step(label: Label | None, op: str) -> Label | None:
    """The label with one more step: `op` at the innermost frame outside healrt."""
    if label is None:
        return None
    file, line = caller_location()
    steps = _field(label, "steps")
    entry = (op, file, line)
    if len(steps) < STEP_CAP:
        steps = (*steps, entry)
    else:
        # Keep the first half; then an elided count; then the latest steps.
        head = steps[:STEP_CAP // 2]
        elided = steps[STEP_CAP // 2]
        tail = steps[STEP_CAP // 2 + 1:]
        elided = (elided if isinstance(elided, int) else 1) + 1
        steps = (*head, elided, *tail[1:], entry)
    return _make(_field(label, "heals"), _field(label, "source"), steps)


def caller_location() -> tuple[str, int]:
    """(file, line) of the innermost frame outside healrt."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(HEALRT_DIR):
        frame = frame.f_back
    if frame is None:
        return "?", 0
    return frame.f_code.co_filename, frame.f_lineno or 0


# ---------------------------------------------------------------- wrappers

class _Sealed(type):
    """Metaclass of the wrappers: their attributes cannot be replaced or removed."""

    def __setattr__(cls, name: str, value: Any) -> None:
        raise TypeError(f"cannot set {name!r} attribute of immutable type {cls.__name__!r}")

    def __delattr__(cls, name: str) -> None:
        raise TypeError(f"cannot delete {name!r} attribute of immutable type {cls.__name__!r}")


def label_of(value: Any) -> Label | None:
    """The label a value carries itself (wrappers only; cheap)."""
    if type(value) in _WRAPPER_TYPES:
        return _get(value, "__dict__").get(_KEY)
    return None


def plain(value: Any) -> Any:
    """The value as its exact base type (a wrapper's copy; anything else unchanged)."""
    convert = _TO_PLAIN.get(type(value))
    return value if convert is None else convert(value)


def wrap(value: Any, label: Label | None) -> Any:
    """The value carrying `label` (merged with its own); None if its type cannot carry one."""
    kind = type(value)
    wrapper = _WRAPPERS.get(kind)
    if wrapper is None:
        if kind not in _WRAPPER_TYPES:
            return None
        own = _get(value, "__dict__").get(_KEY)
        merged = merge(own, label)
        if merged is own:
            return value
        wrapper = kind
        value = plain(value)
    else:
        merged = label
    if merged is None:
        return value
    wrapped = _BASE[wrapper].__new__(wrapper, value)
    _get(wrapped, "__dict__")[_KEY] = merged
    return wrapped


def carry(result: Any, label: Label | None, op: str) -> Any:
    """`result` labelled with `label` plus one step `op`: wrapped where its type allows, items of
    fresh lists and tuples (split, partition, divmod) wrapped one by one, paths object-labelled."""
    if label is None:
        return result
    label = step(label, op)
    return _attach(result, label)


def _attach(result: Any, label: Label | None) -> Any:
    kind = type(result)
    if kind in _WRAPPERS or kind in _WRAPPER_TYPES:
        return wrap(result, label)
    if kind is list:
        return [_attach(item, label) for item in result]
    if kind not in _PLAIN_SCALARS and result is not NotImplemented and not isinstance(result, _OPAQUE_TYPES):
        label_object(result, label)
    return result


def args_label(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Label | None:
    label = None
    for arg in args:
        label = merge(label, find_label(arg, 2))
    if kwargs:
        for arg in kwargs.values():
            label = merge(label, find_label(arg, 2))
    return label


def _method(base: type, name: str) -> Callable[..., Any]:
    function = getattr(base, name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = function(self, *args, **kwargs)
        return carry(result, merge(label_of(self), args_label(args, kwargs)), name)

    method.__name__ = method.__qualname__ = name
    return method


def _join(base: type) -> Callable[..., Any]:
    function = base.join

    def join(self: Any, iterable: Any) -> Any:
        items = list(iterable)  # once: the label scan must not consume a one-shot iterator
        result = function(self, items)
        return carry(result, merge(label_of(self), args_label(tuple(items))), "join")

    return join


def _concat(base: type, name: str, reflected: bool) -> Callable[..., Any]:
    """Sequence +, *, % (str, bytes, tuple): the base operation, NotImplemented passed through.
    Reflected + and % need a left operand of the base type; repetition commutes."""
    function = getattr(base, name)
    swap = reflected and name != "__mul__"

    def method(self: Any, other: Any) -> Any:
        if swap:
            if not isinstance(other, base):
                return NotImplemented
            result = function(other, self)
        else:
            result = function(self, other)
        if result is NotImplemented:
            return result
        return carry(result, merge(label_of(self), find_label(other, 2)), _SYMBOLS.get(name, name))

    method.__name__ = method.__qualname__ = ("__r" + name[2:]) if reflected else name
    return method


def _numeric(operation: Callable[..., Any], name: str, reflected: bool) -> Callable[..., Any]:
    """Arithmetic on the exact base value with full dispatch (int + float, int + Fraction, ...)."""

    def method(self: Any, other: Any) -> Any:
        result = operation(other, plain(self)) if reflected else operation(plain(self), other)
        return carry(result, merge(label_of(self), label_of(other)), _SYMBOLS.get(name, name))

    method.__name__ = method.__qualname__ = name
    return method


def _unary(base: type, name: str) -> Callable[..., Any]:
    function = getattr(base, name)

    def method(self: Any, *args: Any) -> Any:
        return carry(function(plain(self), *args), label_of(self), _SYMBOLS.get(name, name))

    method.__name__ = method.__qualname__ = name
    return method


def _getitem(base: type) -> Callable[..., Any]:
    function = base.__getitem__

    def __getitem__(self: Any, key: Any) -> Any:
        return carry(function(self, key), merge(label_of(self), label_of(key)), "[]")

    return __getitem__


def _iter(base: type) -> Callable[..., Any]:
    function = base.__iter__

    def __iter__(self: Any) -> Iterator[Any]:
        label = step(label_of(self), "iter")
        for item in function(self):
            yield _attach(item, label)

    return __iter__


def _format(base: type) -> Callable[..., Any]:
    function = base.__format__

    def __format__(self: Any, spec: str) -> Any:
        return carry(function(plain(self), spec), merge(label_of(self), label_of(spec)), "format")

    return __format__


def _to_base(base: type) -> Callable[..., Any]:
    """`__reduce_ex__`: pickles as the plain base value (no healrt class in a pickle)."""

    def __reduce_ex__(self: Any, protocol: Any) -> Any:
        return base, (plain(self),)

    return __reduce_ex__


def _same(self: Any, *memo: Any) -> Any:
    return self  # immutable: copy.copy/deepcopy keep the object, and so the label


_SYMBOLS = {
    "__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/", "__floordiv__": "//",
    "__mod__": "%", "__divmod__": "divmod", "__pow__": "**", "__lshift__": "<<", "__rshift__": ">>",
    "__and__": "&", "__or__": "|", "__xor__": "^", "__neg__": "-x", "__pos__": "+x", "__abs__": "abs",
    "__invert__": "~", "__round__": "round", "__trunc__": "trunc", "__floor__": "floor", "__ceil__": "ceil",
}
_STR_METHODS = (
    "capitalize", "casefold", "center", "encode", "expandtabs", "format", "format_map", "ljust", "lower",
    "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rjust", "rpartition", "rsplit",
    "rstrip", "split", "splitlines", "strip", "swapcase", "title", "translate", "upper", "zfill",
)
_BYTES_METHODS = (
    "capitalize", "center", "decode", "expandtabs", "hex", "ljust", "lower", "lstrip", "partition",
    "removeprefix", "removesuffix", "replace", "rjust", "rpartition", "rsplit", "rstrip", "split",
    "splitlines", "strip", "swapcase", "title", "translate", "upper", "zfill",
)
_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "divmod", "pow", "lshift", "rshift",
               "and", "or", "xor")
_OPERATORS: dict[str, Callable[..., Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "divmod": divmod, "pow": pow,
    "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_, "or": operator.or_,
    "xor": operator.xor,
}


def _common(base: type) -> dict[str, Any]:
    return {"__module__": "builtins", "__qualname__": base.__name__, "__doc__": base.__doc__,
            "__copy__": _same, "__deepcopy__": _same, "__reduce_ex__": _to_base(base)}


def _sequence_namespace(base: type, methods: tuple[str, ...]) -> dict[str, Any]:
    namespace = _common(base)
    for name in methods:
        namespace[name] = _method(base, name)
    for name in ("__add__", "__mul__", "__mod__"):
        if hasattr(base, name):
            namespace[name] = _concat(base, name, reflected=False)
            namespace["__r" + name[2:]] = _concat(base, name, reflected=True)
    namespace["__getitem__"] = _getitem(base)
    namespace["__iter__"] = _iter(base)
    if base is not tuple:
        namespace["join"] = _join(base)
    return namespace


def _number_namespace(base: type, unary: tuple[str, ...], methods: tuple[str, ...]) -> dict[str, Any]:
    namespace = _common(base)
    for short in _ARITHMETIC:
        name = f"__{short}__"
        if short in ("lshift", "rshift", "and", "or", "xor") and base is float:
            continue
        namespace[name] = _numeric(_OPERATORS[short], name, reflected=False)
        namespace[f"__r{short}__"] = _numeric(_OPERATORS[short], name, reflected=True)
    for name in unary:
        namespace[name] = _unary(base, name)
    for name in methods:
        namespace[name] = _method(base, name)
    namespace["__format__"] = _format(base)
    return namespace


_tstr = _Sealed("str", (str,), {**_sequence_namespace(str, _STR_METHODS), "__format__": _format(str)})
_tbytes = _Sealed("bytes", (bytes,), _sequence_namespace(bytes, _BYTES_METHODS))
_ttuple = _Sealed("tuple", (tuple,), _sequence_namespace(tuple, ()))
_tint = _Sealed("int", (int,), _number_namespace(
    int, ("__neg__", "__pos__", "__abs__", "__invert__", "__round__", "__trunc__", "__floor__", "__ceil__"),
    ("to_bytes", "conjugate", "as_integer_ratio", "bit_length")))
_tfloat = _Sealed("float", (float,), _number_namespace(
    float, ("__neg__", "__pos__", "__abs__", "__round__", "__trunc__", "__floor__", "__ceil__"),
    ("conjugate", "as_integer_ratio", "hex")))

_WRAPPERS: dict[type, type] = {str: _tstr, bytes: _tbytes, int: _tint, float: _tfloat, tuple: _ttuple}
_WRAPPER_TYPES = frozenset(_WRAPPERS.values())
_BASE = {wrapper: base for base, wrapper in _WRAPPERS.items()}
_TO_PLAIN: dict[type, Callable[[Any], Any]] = {
    _tstr: str.__str__, _tbytes: bytes.__bytes__, _tint: int.__int__, _tfloat: float.__float__,
    _ttuple: lambda value: tuple.__getitem__(value, slice(None)),
}


# ---------------------------------------------------------------- object and location labels

def label_object(obj: Any, label: Label | None) -> None:
    """Label a whole object that cannot carry a wrapper (kept alive by the table, up to OBJECT_CAP)."""
    if label is None or obj is None or type(obj) is bool:
        return
    vault = state()
    entry = vault.objects.get(id(obj))
    if entry is not None and entry[0] is obj:
        vault.objects[id(obj)] = (obj, merge(entry[1], label))
        return
    if len(vault.objects) >= OBJECT_CAP:
        vault.object_cap_hit = True
        return
    vault.objects[id(obj)] = (obj, label)


def object_label(obj: Any) -> Label | None:
    entry = state().objects.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def label_location(owner: Any, slot: tuple[str, Any], label: Label) -> None:
    """Label the attribute or item slot of `owner` (("attr", name) or ("item", key))."""
    vault = state()
    entry = vault.owners.get(id(owner))
    if entry is None or entry[0] is not owner:
        entry = (owner, {})
        vault.owners[id(owner)] = entry
    entry[1][slot] = merge(entry[1].get(slot), label)


def location_label(owner: Any, slot: tuple[str, Any] | None = None) -> Label | None:
    """The label of one slot of `owner`, or (slot None) of any of its slots."""
    entry = state().owners.get(id(owner))
    if entry is None or entry[0] is not owner:
        return None
    if slot is not None:
        try:
            return entry[1].get(slot)
        except TypeError:  # an unhashable key
            return None
    return next(iter(entry[1].values()), None)


def label_name(scope: Any, name: str, label: Label) -> None:
    """Label a name of a scope: a module's globals dict, or a function's code object (its locals)."""
    vault = state()
    old = vault.scopes.get((id(scope), name))
    vault.scopes[(id(scope), name)] = (scope, merge(old[1] if old and old[0] is scope else None, label))


def name_label(scope: Any, name: str) -> Label | None:
    entry = state().scopes.get((id(scope), name))
    return entry[1] if entry is not None and entry[0] is scope else None


# ---------------------------------------------------------------- scanning

_PLAIN_SCALARS = frozenset((str, bytes, int, float, complex, bool, type(None), range))
_SEQUENCE_TYPES = (list, tuple, collections.deque)
_OPAQUE_TYPES = (type, type(sys), type(len), type(_make), type(_make.__code__), type(sys._getframe()))


def find_label(value: Any, depth: int = SCAN_DEPTH, budget: int = SCAN_BUDGET) -> Label | None:
    """The label of `value` or of anything inside it: items of containers, attributes and slots of
    objects, arguments of exceptions, object and location labels; bounded by depth and budget.
    Runs no program code (no __iter__, __getattr__ or properties of the program's classes)."""
    if not state().any_label:
        return None
    return _scan(value, depth, [budget], set())


def _scan(value: Any, depth: int, budget: list[int], seen: set[int]) -> Label | None:
    kind = type(value)
    if kind in _WRAPPER_TYPES:
        return _get(value, "__dict__").get(_KEY)
    if kind in _PLAIN_SCALARS:
        return None
    found = object_label(value) or location_label(value)
    if found is not None or depth <= 0 or budget[0] <= 0 or id(value) in seen:
        return found
    seen.add(id(value))
    for child in _children(value):
        budget[0] -= 1
        if budget[0] <= 0:
            return None
        found = _scan(child, depth - 1, budget, seen)
        if found is not None:
            return found
    return None


def _children(value: Any) -> Iterator[Any]:
    if isinstance(value, _OPAQUE_TYPES):
        return iter(())
    if isinstance(value, dict):
        return (part for pair in dict.items(value) for part in pair)
    if isinstance(value, list):
        return iter(list.__getitem__(value, slice(None)))
    if isinstance(value, tuple):
        return iter(tuple.__getitem__(value, slice(None)))
    if isinstance(value, (set, frozenset)):
        return iter(frozenset.__iter__(value) if isinstance(value, frozenset) else set.__iter__(value))
    if isinstance(value, collections.deque):
        return iter(collections.deque.__iter__(value))
    return _object_children(value)


def _object_children(value: Any) -> Iterator[Any]:
    if isinstance(value, BaseException):
        yield from BaseException.__dict__["args"].__get__(value)
    try:
        attributes = _get(value, "__dict__")
    except AttributeError:
        attributes = None
    if isinstance(attributes, dict):
        yield from dict.values(attributes)
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if isinstance(name, str) and not name.startswith("__"):
                try:
                    yield _get(value, name)
                except AttributeError:
                    continue
