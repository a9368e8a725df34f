"""setxor1d takes array_like inputs and returns a 1-D result. Without assume_unique they are
flattened by unique(); numpy 2.0.0 uses them as they are with assume_unique=True, so inputs that
are not 1-D fail to concatenate (or to be flagged): ValueError."""
import numpy as np


def test_setxor1d_of_inputs_that_are_not_one_dimensional_with_assume_unique():
    a = np.array([[1, 2], [3, 4]])
    b = np.array([[3, 4], [5, 6]])
    assert np.setxor1d(a, b, assume_unique=True).tolist() == [1, 2, 5, 6]
    assert np.setxor1d(a, b).tolist() == [1, 2, 5, 6]
    # a scalar and a list, and inputs of different shapes
    assert np.setxor1d(1, [1, 2, 3], assume_unique=True).tolist() == [2, 3]
    assert np.setxor1d(np.array([[7, 8, 9]]), [9, 10], assume_unique=True).tolist() == [7, 8, 10]
    # 1-D inputs are unchanged
    assert np.setxor1d([1, 2, 3], [2, 3, 4], assume_unique=True).tolist() == [1, 4]
