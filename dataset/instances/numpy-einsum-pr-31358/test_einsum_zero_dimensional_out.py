"""einsum with an `out` array and an optimizing contraction path goes through bmm_einsum, which
copies its result into `out` with `out[:] = ...`. numpy 2.4.1 does so for a full contraction too,
whose `out` is 0-d and cannot be sliced: IndexError, where the unoptimized einsum works."""
import numpy as np


def test_einsum_into_a_zero_dimensional_out_with_an_optimized_path():
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([4.0, 5.0, 6.0])
    out = np.zeros(())
    np.einsum("i,i->", a, b, out=out, optimize="optimal")
    assert out == 32.0
    out = np.zeros(())
    np.einsum("ij,ij->", np.ones((2, 3)), np.full((2, 3), 2.0), out=out, optimize=True)
    assert out == 12.0
    # an out with dimensions keeps working, also when the product needs a transpose
    m = np.arange(6.0).reshape(2, 3)
    n = np.arange(12.0).reshape(3, 4)
    out2 = np.zeros((4, 2))
    np.einsum("ij,jk->ki", m, n, out=out2, optimize=True)
    assert (out2 == (m @ n).T).all()
