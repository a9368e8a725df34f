"""np.memmap creates the file it maps in mode 'w+'. An array without elements needs no data,
but numpy 2.0.0 then asks mmap for a mapping of length 0, which mmap reads as "the whole file",
and the fresh file is empty: ValueError (cannot mmap an empty file)."""
import numpy as np


def test_memmap_of_an_array_without_elements(tmp_path):
    empty = np.memmap(tmp_path / "empty.dat", dtype=np.float64, mode="w+", shape=(0,))
    assert empty.shape == (0,)
    assert empty.tolist() == []
    grid = np.memmap(tmp_path / "grid.dat", dtype=np.int32, mode="w+", shape=(0, 3))
    assert grid.shape == (0, 3)
    assert grid.sum() == 0
    # an array with elements is unchanged, and reads back
    full = np.memmap(tmp_path / "full.dat", dtype=np.int16, mode="w+", shape=(4,))
    full[:] = [1, 2, 3, 4]
    full.flush()
    again = np.memmap(tmp_path / "full.dat", dtype=np.int16, mode="r")
    assert again.tolist() == [1, 2, 3, 4]
    del full, again, empty, grid
