"""Sorting a masked structured array puts masked entries last by filling them with the largest value
of each field (minimum_fill_value). For a datetime64 or timedelta64 field that value is a plain
integer, and numpy 2.4.1 assembles the structured fill value from a tuple in which such an integer
array does not convert to a datetime: ValueError from sort and argsort."""
import numpy as np

EVENTS = np.dtype([("id", np.int64), ("when", "M8[D]")])


def test_sorting_a_masked_structured_array_with_a_datetime_field():
    data = np.array([(3, "2024-03-01"), (1, "2024-01-01"), (2, "2024-02-01")], dtype=EVENTS)
    events = np.ma.array(data, mask=[(False, False), (True, True), (False, False)])
    # the masked record goes last
    assert events.argsort().tolist() == [2, 0, 1]
    ordered = np.ma.sort(events)
    assert ordered["id"][:2].tolist() == [2, 3]
    assert ordered.mask["id"].tolist() == [False, False, True]
    # the fill values themselves: the extremes of each field
    assert np.ma.minimum_fill_value(EVENTS)["id"] == np.iinfo(np.int64).max
    assert np.ma.minimum_fill_value(EVENTS)["when"] == np.datetime64(np.iinfo(np.int64).max, "D")
    assert np.ma.maximum_fill_value(EVENTS)["id"] == np.iinfo(np.int64).min
    durations = np.dtype([("span", "m8[s]"), ("weight", np.float64)])
    assert np.ma.minimum_fill_value(durations)["span"] == np.timedelta64(np.iinfo(np.int64).max, "s")
    assert np.ma.minimum_fill_value(durations)["weight"] == np.inf
