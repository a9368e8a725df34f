"""Two arrays whose dtypes cannot be compared elementwise (a string and a number) are not equal.
numpy 2.0.0's array_equal and array_equiv call `.all()` on `a1 == a2`, and for two 0-d arrays of
such dtypes that comparison is a plain Python bool, which has no `all`: AttributeError."""
import numpy as np


def test_array_equal_and_equiv_of_a_string_and_a_number_are_false():
    text, number = np.array("foo"), np.array(1)
    assert np.array_equal(text, number) is False
    assert np.array_equal(number, text) is False
    assert np.array_equiv(text, number) is False
    assert np.array_equiv(np.array(b"x"), np.array(2.5)) is False
    # comparable arrays keep their answers
    assert np.array_equal(np.array("foo"), np.array("foo")) is True
    assert np.array_equal(np.array([1, 2]), np.array([1, 2]), equal_nan=True) is True
    assert np.array_equiv([1, 2], [[1, 2], [1, 2]]) is True
    assert np.array_equiv([1, 2], [[1, 2], [1, 3]]) is False
