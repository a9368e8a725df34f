"""DataFrame.combine on two frames whose columns are ["x", "x", "y"]: pandas 2.3.3 loops over the
column labels and fetches each side with frame[label]; for the repeated label "x" that is a
two-column DataFrame, and asking it for `.dtype` raises AttributeError. With the same labels on
both sides the columns pair up one to one, so the combination is well defined column by column."""
import numpy as np
import pandas as pd


def test_combine_two_frames_with_a_repeated_column_label():
    left = pd.DataFrame([[1, 8, 9], [5, 2, 0]], columns=["x", "x", "y"])
    right = pd.DataFrame([[3, 4, 1], [2, 7, 6]], columns=["x", "x", "y"])
    combined = left.combine(right, np.maximum)
    assert list(combined.columns) == ["x", "x", "y"]
    assert combined.values.tolist() == [[3, 8, 9], [5, 7, 6]]

    unique = pd.DataFrame({"p": [1.0, None]}).combine(
        pd.DataFrame({"p": [5.0, 6.0]}), lambda s, t: s.fillna(t)
    )
    assert list(unique["p"]) == [1.0, 6.0]
