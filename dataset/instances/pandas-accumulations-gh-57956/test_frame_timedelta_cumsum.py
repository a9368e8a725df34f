"""DataFrame.cumsum on timedelta64 columns: a frame hands its 2-D block (rows x columns) to the
datetimelike accumulation, which calls np.cumsum without an axis; that flattens the block to 1-D,
and indexing the flat result with the 2-D missing-value mask raises IndexError ('too many
indices'). Series.cumsum (1-D) works, so the frame's columns should accumulate the same way."""
import pandas as pd


def test_frame_cumsum_of_timedelta_columns():
    frame = pd.DataFrame(
        {
            "lap": pd.to_timedelta(["1min", "2min", "3min"]),
            "pause": pd.to_timedelta(["10s", None, "30s"]),
        }
    )
    total = frame.cumsum()
    assert list(total["lap"]) == list(pd.to_timedelta(["1min", "3min", "6min"]))
    assert total["pause"].isna().tolist() == [False, True, False]
    assert total["pause"].iloc[2] == pd.Timedelta("40s")
