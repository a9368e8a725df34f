"""repr of a long Series (more rows than display.max_rows) whose attrs hold a DataFrame: to
truncate, pandas 2.3.3 concatenates the head and the tail, and concat's __finalize__ keeps the
attrs only if both pieces' attrs are equal, testing `obj.attrs == attrs`; comparing the dicts
compares the DataFrames in them element-wise, and the truth value of that DataFrame raises
ValueError. Short Series, which are not truncated, print fine."""
import pandas as pd


def test_repr_of_a_truncated_series_with_a_frame_in_its_attrs():
    frame = pd.DataFrame({"reading": range(100)})
    frame.attrs["calibration"] = pd.DataFrame({"offset": [0.5, 0.25]})
    column = frame["reading"]
    text = repr(column)
    assert "Name: reading, Length: 100" in text
    assert "\n95    95\n" in text
    assert column.attrs["calibration"]["offset"].tolist() == [0.5, 0.25]
