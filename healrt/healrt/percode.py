"""Caches of facts that depend only on a code object, keyed by its identity.

functools.lru_cache is the wrong tool for code objects: hashing one hashes its bytecode and
constants (nested code objects included) on every lookup, microseconds for a large function, and
code objects compare equal across files (co_filename is not part of equality), so facts read
from one file's source would be served for another's. Here the key is id(code); a weak
reference with a callback drops the entry when the code object dies, so an id is never reused
while its entry exists and dynamically created code does not pile up.
"""

from __future__ import annotations

import types
import weakref
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class PerCode(Generic[T]):
    def __init__(self, compute: Callable[[types.CodeType], T]) -> None:
        self._compute = compute
        self._entries: dict[int, tuple[weakref.ref[types.CodeType], T]] = {}
        self.__doc__ = compute.__doc__

    def __call__(self, code: types.CodeType) -> T:
        entry = self._entries.get(id(code))
        if entry is not None:
            return entry[1]
        value = self._compute(code)
        key = id(code)
        entries = self._entries

        def forget(ref: weakref.ref[types.CodeType]) -> None:
            if entries.get(key, (None,))[0] is ref:
                del entries[key]

        entries[key] = (weakref.ref(code, forget), value)
        return value


def per_code(compute: Callable[[types.CodeType], T]) -> PerCode[T]:
    """Decorator: `compute(code)` runs once per live code object."""
    return PerCode(compute)
