"""pd.json_normalize with record_path and a meta key that is not a string (records parsed from a
dict whose keys are ints): pandas 2.3.3 names each meta column with "sep.join(path)", and joining a
path that holds the int 1 raises TypeError. Without record_path the same key is accepted and gives
a column named 1, so with record_path the meta value must be pulled and repeated per record too."""
import pandas as pd


def test_json_normalize_record_path_with_an_int_meta_key():
    data = [
        {"rows": [{"x": 1}, {"x": 2}], 1: "first"},
        {"rows": [{"x": 3}], 1: "second"},
    ]
    frame = pd.json_normalize(data, record_path="rows", meta=[1])
    assert len(frame) == 3
    assert list(frame["x"]) == [1, 2, 3]
    assert list(frame[1]) == ["first", "first", "second"]
