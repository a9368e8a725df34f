"""A slotted dataclass asking for a weakref slot must accept a base class that already provides
__weakref__ (any ordinary class without __slots__) instead of declaring it a second time."""
import dataclasses
import weakref


def test_weakref_slot_dataclass_on_ordinary_base():
    class Base:
        pass

    @dataclasses.dataclass(slots=True, weakref_slot=True)
    class Point(Base):
        x: int
        y: int = 0

    p = Point(1)
    ref = weakref.ref(p)

    assert ref() is p
    assert "__weakref__" not in Point.__slots__
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y"]
    assert (p.x, p.y) == (1, 0)
