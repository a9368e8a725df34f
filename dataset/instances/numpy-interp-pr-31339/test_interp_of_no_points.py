"""Interpolating at no points at all gives no values, whatever the sample points. numpy 2.4.1's
interp hands an empty x with empty sample points to its compiled kernel, which rejects the empty
sample points first: ValueError, where an empty result is due."""
import numpy as np
import pytest


def test_interp_at_no_points_from_no_samples_is_empty():
    result = np.interp([], [], [])
    assert result.shape == (0,) and result.dtype == np.float64
    # a two-dimensional empty x keeps its shape
    assert np.interp(np.zeros((2, 0)), [], []).shape == (2, 0)
    # complex values give a complex (empty) result
    result = np.interp([], [], np.array([], dtype=complex))
    assert result.shape == (0,) and result.dtype == np.complex128
    # periodic interpolation too
    assert np.interp([], [], [], period=360).shape == (0,)
    # with sample points, nothing changes
    assert np.interp([], [1.0, 2.0], [3.0, 4.0]).shape == (0,)
    assert np.interp([1.5], [1.0, 2.0], [3.0, 4.0]).tolist() == [3.5]
    # points to evaluate without sample points remain an error
    with pytest.raises(ValueError):
        np.interp([1.0], [], [])
