"""An empty-string annotation is not a valid forward reference: get_type_hints must report it
as a SyntaxError like any other malformed string annotation."""
import typing

import pytest


def test_empty_string_annotation_is_a_syntax_error():
    def f(x: ""):
        return x

    with pytest.raises(SyntaxError, match="Forward reference must be an expression"):
        typing.get_type_hints(f)
    with pytest.raises(SyntaxError):
        typing.ForwardRef("")
    assert typing.get_type_hints(lambda: None) == {}
