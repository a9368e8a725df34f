"""pd.melt with id_vars=["a"] on a frame whose columns are ["a", "a", "b"]: pandas 2.3.3 pops the id
column with frame.pop("a"), which for a repeated label gives back a DataFrame of both columns, and
then asks that frame for `.dtype`; DataFrame has no such attribute, so melt dies with a misleading
AttributeError. A repeated id label is a usage problem that melt should report as such (ValueError
naming the label); melting a frame whose id column is unique must keep working."""
import pandas as pd
import pytest


def test_melt_with_an_id_label_naming_two_columns():
    frame = pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=["a", "a", "b"])
    with pytest.raises(ValueError, match="'a'"):
        pd.melt(frame, id_vars=["a"], value_vars=["b"])

    unique = pd.DataFrame({"a": [1, 4], "b": [3, 6]})
    melted = pd.melt(unique, id_vars=["a"], value_vars=["b"])
    assert list(melted.columns) == ["a", "variable", "value"]
    assert list(melted["value"]) == [3, 6]
