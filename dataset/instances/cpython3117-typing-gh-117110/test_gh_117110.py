"""A class deriving from typing.Any must be constructible with the arguments its own
__init__ takes; only Any itself refuses instantiation."""
import typing

import pytest


def test_subclass_of_any_takes_constructor_arguments():
    class Record(typing.Any):
        def __init__(self, name, size=0):
            self.name = name
            self.size = size

    rec = Record("a", size=3)

    assert isinstance(rec, Record)
    assert (rec.name, rec.size) == ("a", 3)
    with pytest.raises(TypeError, match="Any cannot be instantiated"):
        typing.Any()
