"""scatterplot passes extra keyword arguments on to matplotlib's scatter, where `s` may be one
size per point. With a `hue` legend, seaborn 0.13.2 also builds each legend handle from the
same keywords: _scatter_legend_artist makes a Line2D with markersize=np.sqrt(s), and a vector
of sizes cannot be one marker size: TypeError ("cannot convert the series to <class 'float'>").
Without hue (no legend), or with a scalar `s`, the plot works."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import pyplot as plt


def test_scatterplot_with_per_point_sizes_and_a_hue_legend():
    data = pd.DataFrame({
        "subject": [1, 2, 3, 4, 5, 6],
        "score": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        "solutions": [1, 2, 3, 1, 2, 3],
        "attention": ["divided", "focused"] * 3,
    })
    sizes = data["solutions"] * 20

    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data, x="subject", y="score", s=sizes, hue="attention", ax=ax)
        points = ax.collections[0]
        assert points.get_sizes().tolist() == sizes.tolist()
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["divided", "focused"]
        assert legend.get_title().get_text() == "attention"
        handles = legend.legend_handles
        assert len(handles) == 2
        assert handles[0].get_color() != handles[1].get_color()
    finally:
        plt.close(fig)

    # the sizes as a plain list behave the same
    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data, x="subject", y="score", s=list(sizes), hue="attention", ax=ax)
        assert ax.collections[0].get_sizes().tolist() == sizes.tolist()
        assert len(ax.get_legend().legend_handles) == 2
    finally:
        plt.close(fig)

    # a scalar size keeps sizing the legend markers
    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data, x="subject", y="score", s=64, hue="attention", ax=ax)
        assert np.isclose(ax.get_legend().legend_handles[0].get_markersize(), 8.0)
    finally:
        plt.close(fig)
