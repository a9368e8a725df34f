"""isin's table method indexes a lookup table with `element - min(test_elements)`. numpy 2.0.0
computes that difference with dtype=intp, and a minimum above the intp range (a uint64 at or
past 2**63) cannot be converted: OverflowError, for a lookup whose answer is well defined."""
import numpy as np


def test_isin_with_unsigned_values_beyond_the_intp_range():
    big = np.array([2**63, 2**63 + 1, 5], dtype=np.uint64)
    assert np.isin(big, np.array([2**63 + 1], dtype=np.uint64)).tolist() == [False, True, False]
    assert np.isin(big, np.array([2**63 + 1], dtype=np.uint64), invert=True).tolist() == [True, False, True]
    # the example of the upstream report: nothing of [0, 1] is in [2**63, 2**63]
    small = np.array([0, 1], dtype=np.uint64)
    test = np.array([2**63, 2**63], dtype=np.uint64)
    assert np.isin(small, test, assume_unique=True, invert=True).tolist() == [True, True]
    # values that cannot be in range at all
    assert np.isin(np.array([1, 2], dtype=np.int32), np.uint64(2**63 + 1)).tolist() == [False, False]
    # forcing the table method gives the same answers
    assert np.isin(big, np.uint64(2**63), kind="table").tolist() == [True, False, False]
    # and small values are unaffected
    assert np.isin(np.arange(6), [1, 4], kind="table").tolist() == [False, True, False, False, True, False]
