"""read_csv with na_values given per column as a dict and index_col naming a column whose name is
None: for that index column pandas 2.3.3 keeps the whole dict as its set of NA values (the
per-column lookup is skipped for a None name) and hands it to the Cython sanitizer, which
requires a set: TypeError. Both parsing engines share this code."""
import io

import pandas as pd

CSV = ",x,y\nMA,1,2\nNA,2,1\nOA,,3\n"


def test_read_csv_dict_na_values_with_an_unnamed_index_column():
    frame = pd.read_csv(
        io.StringIO(CSV),
        index_col=0,
        header=0,
        names=[None, "x", "y"],
        dtype={0: "object", "x": "float32", "y": "float32"},
        na_values={"x": {"", "squid"}, "y": {"", "squid"}},
        keep_default_na=False,
    )
    assert list(frame.index) == ["MA", "NA", "OA"]
    assert frame["x"].isna().tolist() == [False, False, True]
    assert frame["y"].tolist() == [2.0, 1.0, 3.0]
