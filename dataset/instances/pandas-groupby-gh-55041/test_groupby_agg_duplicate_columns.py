"""DataFrameGroupBy.agg with a dict naming a column label that two columns share: pandas 2.3.3
selects that label as one SeriesGroupBy whose object is really a two-column DataFrame, and when
the aggregated result is wrapped as a Series it reads `obj.name`, which a DataFrame does not
have: AttributeError. Both columns of that name should be aggregated."""
import pandas as pd


def test_groupby_agg_dict_on_a_duplicated_column():
    frame = pd.DataFrame(
        [[1, 2, 3, 4], [1, 3, 4, 5], [2, 4, 5, 6]],
        columns=["key", "b", "c", "c"],
    )
    summed = frame.groupby("key").agg({"c": "sum"})
    assert list(summed.columns) == ["c", "c"]
    assert summed.loc[1].tolist() == [7, 9]
    assert summed.loc[2].tolist() == [5, 6]
