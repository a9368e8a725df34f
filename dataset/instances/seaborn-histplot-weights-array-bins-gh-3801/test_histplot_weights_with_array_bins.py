"""A weighted histogram with its bin edges given as a numpy array draws one bar per bin.
seaborn 0.13.2's histplot checks whether it must replace numpy's 'auto' bins (which numpy cannot
use with weights) by testing `estimate_kws["bins"] == "auto"` inside an `and` chain; with an
array of edges that comparison is an elementwise boolean array, whose truth value is ambiguous:
ValueError before anything is drawn. A list of edges, or no weights, works."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import seaborn as sns
from matplotlib import pyplot as plt


def test_histplot_with_weights_and_array_bin_edges():
    x = np.array([0.1, 0.15, 0.35, 0.4, 0.45, 0.7, 0.95])
    weights = np.array([1.0, 2.0, 0.5, 0.5, 1.0, 3.0, 2.0])
    edges = np.array([0.0, 0.25, 0.5, 0.75, 1.0])

    fig, ax = plt.subplots()
    try:
        sns.histplot(x=x, weights=weights, bins=edges, ax=ax)
        heights = [bar.get_height() for bar in ax.patches]
        assert heights == pytest.approx([3.0, 2.0, 3.0, 2.0])
        assert [bar.get_x() for bar in ax.patches] == pytest.approx(edges[:-1])
    finally:
        plt.close(fig)

    # the same edges as a list already worked, and 'auto' bins with weights still fall back to 10
    fig, ax = plt.subplots()
    try:
        sns.histplot(x=x, weights=weights, bins=list(edges), ax=ax)
        assert [bar.get_height() for bar in ax.patches] == pytest.approx([3.0, 2.0, 3.0, 2.0])
    finally:
        plt.close(fig)
    fig, ax = plt.subplots()
    try:
        with pytest.warns(UserWarning, match="cannot be 'auto'"):
            sns.histplot(x=x, weights=weights, ax=ax)
        assert len(ax.patches) == 10
    finally:
        plt.close(fig)
