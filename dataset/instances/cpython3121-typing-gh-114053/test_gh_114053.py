"""With postponed evaluation of annotations, get_type_hints on a PEP 695 generic class must
resolve the class's own type parameters."""
from __future__ import annotations

import typing


class Box[T]:
    item: T
    items: list[T]
    label: str


def test_get_type_hints_resolves_class_type_params():
    hints = typing.get_type_hints(Box)

    (T,) = Box.__type_params__
    assert hints == {"item": T, "items": list[T], "label": str}
