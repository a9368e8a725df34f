"""pd.to_numeric of a single Timedelta or Timestamp: a Series of them converts to their integer
nanoseconds, but pandas 2.3.3 puts the scalar in an object array and hands it to
lib.maybe_convert_numeric, which knows no such objects and raises TypeError ('Invalid object
type at position 0')."""
import pandas as pd


def test_to_numeric_of_timedelta_and_timestamp_scalars():
    lap = pd.Timedelta(minutes=1, seconds=30)
    assert pd.to_numeric(pd.Series([lap])).iloc[0] == 90_000_000_000
    assert pd.to_numeric(lap) == 90_000_000_000
    start = pd.Timestamp("2020-01-01")
    assert pd.to_numeric(start) == pd.to_numeric(pd.Series([start])).iloc[0]
