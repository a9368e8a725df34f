"""astropy.stats.histogram with a number of bins, a range and weights. astropy 8.0.1's
calculate_bin_edges drops the data outside `range` before finding the bin edges (meant for the
string bin-width estimators) but passes the full-length weights on to
numpy.histogram_bin_edges, which rejects weights whose shape differs from the truncated data:
ValueError, although numpy.histogram itself accepts the same arguments."""
import numpy as np
from astropy.stats import histogram


def test_histogram_with_integer_bins_range_and_weights():
    x = np.array([0.5, 1.5, 2.5, 3.5, 10.0])
    w = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    counts, edges = histogram(x, bins=4, range=(0, 4), weights=w)
    expected_counts, expected_edges = np.histogram(x, bins=4, range=(0, 4), weights=w)
    assert np.allclose(edges, expected_edges)
    assert np.allclose(counts, expected_counts)
    assert np.allclose(counts, [1.0, 2.0, 3.0, 4.0])
    # without weights, and with a bin-width estimator, as before
    counts, edges = histogram(x, bins=2, range=(0, 4))
    assert list(counts) == [2, 2]
    counts, edges = histogram(x, bins="scott", range=(0, 4))
    assert counts.sum() == 4
