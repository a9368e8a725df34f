"""np.roll takes an integer shift. numpy 2.0.0 keeps a NumPy unsigned shift unsigned while it
builds the slices, so `-offset` wraps around to a huge positive number, the slices no longer
match and the copy fails: ValueError (could not broadcast), for a shift by 1."""
import numpy as np


def test_roll_by_an_unsigned_shift():
    x = np.arange(10)
    assert np.roll(x, np.uint64(1)).tolist() == [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert np.roll(x, np.uint8(3)).tolist() == np.roll(x, 3).tolist()
    grid = np.arange(6).reshape(2, 3)
    assert np.roll(grid, np.uint32(1), axis=1).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert np.roll(grid, (np.uint16(1), np.uint16(2)), axis=(0, 1)).tolist() == [[4, 5, 3], [1, 2, 0]]
    # signed and negative shifts keep working
    assert np.roll(x, -2).tolist() == [2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    assert np.roll(x, np.int64(12)).tolist() == np.roll(x, 2).tolist()
