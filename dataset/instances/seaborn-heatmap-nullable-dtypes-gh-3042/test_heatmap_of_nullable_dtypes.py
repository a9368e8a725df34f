"""A heatmap of a DataFrame with pandas' nullable numeric columns (Int64, Float64) colors the
cells by value and leaves the missing ones blank, as it does for float columns with NaN.
seaborn 0.13.2 takes `data.values`, which for such columns is an object array holding pd.NA,
and computes the color limits with `plot_data.astype(float)`: float(pd.NA) raises TypeError
("float() argument must be a string or a real number, not 'NAType'")."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import pyplot as plt


def _cells(ax):
    mesh = ax.collections[0]
    cells = mesh.get_array()
    return np.ma.getdata(cells).ravel(), np.ma.getmaskarray(cells).ravel()


def test_heatmap_of_nullable_integer_and_float_columns():
    counts = pd.DataFrame({
        "mon": pd.array([1, None, 3], dtype="Int64"),
        "tue": pd.array([4, 5, 6], dtype="Int64"),
    }, index=["a", "b", "c"])

    fig, ax = plt.subplots()
    try:
        sns.heatmap(counts, annot=True, ax=ax)
        values, missing = _cells(ax)
        assert missing.tolist() == [False, False, True, False, False, False]
        assert values[~missing].tolist() == [1.0, 4.0, 5.0, 3.0, 6.0]
        mesh = ax.collections[0]
        assert (mesh.norm.vmin, mesh.norm.vmax) == (1.0, 6.0)
        assert [t.get_text() for t in ax.texts] == ["1", "4", "5", "3", "6"]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["mon", "tue"]
    finally:
        plt.close(fig)

    # the same frame as plain floats draws the same cells
    fig, ax = plt.subplots()
    try:
        sns.heatmap(counts.astype(float), ax=ax)
        values, missing = _cells(ax)
        assert missing.tolist() == [False, False, True, False, False, False]
    finally:
        plt.close(fig)

    # Float64 columns without any missing value
    fig, ax = plt.subplots()
    try:
        sns.heatmap(pd.DataFrame({"x": pd.array([0.5, 1.5], dtype="Float64"),
                                  "y": pd.array([2.5, 3.5], dtype="Float64")}), ax=ax)
        values, missing = _cells(ax)
        assert not missing.any()
        assert values.tolist() == [0.5, 2.5, 1.5, 3.5]
    finally:
        plt.close(fig)
