"""DataFrame.query on a frame with two columns of the same name: pandas 2.3.3 builds one resolver
Series per column and asks `self.dtypes[label]` for its dtype; for the repeated label that lookup
returns a Series of two dtypes, and pandas_dtype() raises TypeError on it. Querying only the
column whose name is unique must work whatever the other columns are called."""
import pandas as pd


def test_query_on_a_frame_with_a_duplicated_column_name():
    frame = pd.DataFrame([[1, 10, 100], [2, 20, 200], [3, 30, 300]], columns=["a", "b", "b"])
    kept = frame.query("a >= 2")
    assert list(kept.index) == [1, 2]
    assert kept.shape == (2, 3)
    assert list(frame.eval("a * 2")) == [2, 4, 6]
