"""The modified Bessel function i0(x) grows like exp(x)/sqrt(2*pi*x), so it stays below the largest
double up to x ~ 713.98, past the point where exp(x) itself overflows (x ~ 709.78). numpy 2.4.1
computes exp(x) first: for x in between, the intermediate overflows, which under
np.errstate(over='raise') is a FloatingPointError (and inf otherwise) although the value fits."""
import math

import numpy as np


def _asymptotic_i0(x):
    # i0(x) = exp(x) / sqrt(2 pi x) * (1 + 1/(8x) + 9/(128x^2) + ...), taken in logarithms
    return math.exp(x - 0.5 * math.log(2 * math.pi * x) + math.log1p(1 / (8 * x) + 9 / (128 * x * x)))


def test_i0_of_large_arguments_whose_value_is_finite():
    with np.errstate(over="raise", invalid="raise"):
        for x in (700.0, 711.5, 713.0, 713.9):
            value = np.i0(x)
            assert np.isfinite(value)
            assert math.isclose(value, _asymptotic_i0(x), rel_tol=1e-9)
        values = np.i0(np.array([-712.0, 1.0, 712.0]))
    assert np.isfinite(values).all()
    assert values[0] == values[2]
    assert math.isclose(values[1], 1.2660658777520082, rel_tol=1e-12)
