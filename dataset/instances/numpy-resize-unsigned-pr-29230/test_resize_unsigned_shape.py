"""np.resize repeats the data to fill a new shape. With a shape of NumPy unsigned integers,
numpy 2.0.0 keeps the new size unsigned, so negating it for a ceiling division wraps around to
a huge repeat count, which cannot be used to repeat the data: OverflowError."""
import numpy as np


def test_resize_to_a_shape_of_unsigned_integers():
    data = np.arange(3)
    grid = np.resize(data, (np.uint64(2), np.uint64(2)))
    assert grid.tolist() == [[0, 1], [2, 0]]
    shape = np.array([2, 3], dtype=np.uint32)
    assert np.resize(data, tuple(shape)).tolist() == [[0, 1, 2], [0, 1, 2]]
    assert np.resize(data, np.uint64(5)).tolist() == [0, 1, 2, 0, 1]
    # signed lengths as before
    assert np.resize(data, (2, 2)).tolist() == [[0, 1], [2, 0]]
    assert np.resize(data, 0).tolist() == []
