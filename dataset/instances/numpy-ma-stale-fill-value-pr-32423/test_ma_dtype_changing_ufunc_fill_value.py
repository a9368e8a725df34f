"""A masked array of text with a text fill value goes through a ufunc that returns integers
(np.strings.find, np.strings.str_len). numpy 2.4.1 copies the text fill value onto the integer
result unchecked; the first view of that result (slicing, .view(), reshape) re-validates it and
raises TypeError because "N/A" is no integer."""
import numpy as np


def test_integer_result_of_a_string_ufunc_on_a_masked_text_array_can_be_viewed():
    words = np.ma.MaskedArray(["foo", "bar", "baz", "qux"],
                              mask=[False, True, False, False], fill_value="N/A")
    where = np.strings.find(words, "a")
    assert where.dtype.kind == "i"
    assert where.mask.tolist() == [False, True, False, False]
    # taking views of the integer result must work
    head = where[:3]
    assert head.compressed().tolist() == [-1, 1]
    assert where.view().compressed().tolist() == [-1, 1, -1]
    # and the fill value it falls back on must be a valid integer
    filled = where.filled()
    assert filled.dtype == where.dtype
    assert filled[0] == -1 and filled[2] == 1 and filled[3] == -1
    lengths = np.strings.str_len(words).reshape(2, 2)
    assert lengths.sum() == 9
    # the source array keeps its own text fill value
    assert words.fill_value == "N/A"
