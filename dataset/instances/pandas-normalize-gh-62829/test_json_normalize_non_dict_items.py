"""pd.json_normalize(records, max_level=1) on a list whose items are not all dicts: pandas 2.3.3
flattens the list with nested_to_record, which calls `.items()` on each item, so an int among the
records surfaces as AttributeError ('int' object has no attribute 'items') from deep inside the
flattener. Items that are not records are bad input, and the function should reject them with a
TypeError that names the problem; a list of dicts with the same max_level must still flatten."""
import pandas as pd
import pytest


def test_json_normalize_with_max_level_on_a_list_holding_a_non_dict():
    with pytest.raises(TypeError, match="dict"):
        pd.json_normalize([{"a": {"b": 1}}, 5], max_level=1)

    flat = pd.json_normalize([{"a": {"b": 1}}, {"a": {"b": 2}}], max_level=1)
    assert list(flat.columns) == ["a.b"]
    assert list(flat["a.b"]) == [1, 2]
