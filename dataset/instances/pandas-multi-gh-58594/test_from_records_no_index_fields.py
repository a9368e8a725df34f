"""DataFrame.from_records with an empty list of index fields: pandas 2.3.3 builds an index from
no sequences at all, a MultiIndex of zero levels, and MultiIndex raises ValueError."""
import pandas as pd


def test_from_records_with_no_index_fields_keeps_the_default_index():
    empty = pd.DataFrame.from_records([], index=[])
    assert empty.shape == (0, 0)
    rows = pd.DataFrame.from_records([(1, "x"), (2, "y")], columns=["n", "s"], index=[])
    assert list(rows.index) == [0, 1]
    assert list(rows["n"]) == [1, 2]
