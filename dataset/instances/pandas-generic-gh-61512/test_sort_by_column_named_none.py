"""DataFrame.sort_values(by=None) on a frame that has a column labelled None (e.g. built from a
dict with a None key): pandas 2.3.3 resolves the sort key through _get_label_or_level_values, and
its label test _is_label_reference returns False for any key that is None, so the existing column
is not found and sort_values raises KeyError(None). Sorting by that column, alone or with another
one, must work like sorting by any other label."""
import pandas as pd


def test_sort_values_by_a_column_named_none():
    frame = pd.DataFrame({None: [3, 1, 2], "b": [10, 20, 30]})
    ordered = frame.sort_values(by=None)
    assert list(ordered["b"]) == [20, 30, 10]

    both = frame.sort_values(by=[None, "b"], ascending=False)
    assert list(both["b"]) == [10, 30, 20]
