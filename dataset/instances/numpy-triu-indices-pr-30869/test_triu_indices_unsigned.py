"""Sizes of a triangle are counts, often NumPy unsigned integers (a shape element, a uint64 from a
file). numpy 2.4.1's tri computes -k and M - k in the argument's own type, and for an unsigned
scalar the -1 of the default offset does not fit: OverflowError from triu_indices(np.uint64(3))."""
import numpy as np


def test_triangle_indices_of_unsigned_sizes():
    rows, cols = np.triu_indices(np.uint64(3))
    assert rows.tolist() == [0, 0, 0, 1, 1, 2]
    assert cols.tolist() == [0, 1, 2, 1, 2, 2]
    expected = np.triu_indices(3, 1, 4)
    got = np.triu_indices(np.uint32(3), np.uint32(1), np.uint32(4))
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    # an unsigned offset of 0 must not wrap around when triu_indices steps below it
    got = np.triu_indices(3, k=np.uint8(0), m=4)
    assert [g.tolist() for g in got] == [e.tolist() for e in np.triu_indices(3, 0, 4)]
    got = np.tril_indices(np.uint16(3), k=np.uint16(1))
    assert [g.tolist() for g in got] == [e.tolist() for e in np.tril_indices(3, 1)]
    assert np.tri(np.uint64(2), np.uint64(3), dtype=int).tolist() == [[1, 0, 0], [1, 1, 0]]
