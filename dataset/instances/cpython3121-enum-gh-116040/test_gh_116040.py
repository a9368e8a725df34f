"""An enum whose values are tuples can be looked up with the tuple's items as separate
arguments; a falsey second item (0) must not be dropped."""
import enum


def test_multi_value_lookup_with_falsey_second_item():
    class Cardinal(enum.Enum):
        RIGHT = (1, 0)
        UP = (0, 1)
        LEFT = (-1, 0)
        DOWN = (0, -1)

    assert Cardinal(1, 0) is Cardinal.RIGHT
    assert Cardinal(-1, 0) is Cardinal.LEFT
    assert Cardinal(0, 1) is Cardinal.UP
    assert Cardinal((0, -1)) is Cardinal.DOWN
