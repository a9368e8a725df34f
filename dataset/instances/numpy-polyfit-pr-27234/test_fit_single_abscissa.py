"""Polynomial.fit maps the data's x range (its default domain) onto the window. When every x is
the same value that range has no width, the mapping divides by zero, and numpy 2.0.0 hands the
resulting NaNs to the least-squares solver, whose SVD fails: LinAlgError, for a fit of degree 0
through one point."""
import numpy as np
from numpy.polynomial import Chebyshev, Polynomial


def test_fit_of_points_that_share_one_x():
    p = Polynomial.fit([1.0], [2.0], deg=0)
    assert np.allclose(p.coef, [2.0])
    assert np.isclose(p(1.0), 2.0)
    p = Polynomial.fit([3.0, 3.0], [2.0, 2.1], deg=0)
    assert np.isclose(p(3.0), 2.05)
    assert np.isclose(Chebyshev.fit([5, 5, 5], [1.0, 2.0, 3.0], deg=0)(5), 2.0)
    # a domain with width is unchanged
    p = Polynomial.fit([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], deg=1)
    assert p.domain.tolist() == [0.0, 2.0]
    assert np.allclose(p.convert().coef, [1.0, 2.0])
