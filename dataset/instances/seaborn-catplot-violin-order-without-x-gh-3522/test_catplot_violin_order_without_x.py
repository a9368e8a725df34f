"""catplot with only `y` assigned, faceted by `col`, and an `order` list (as scanpy's
violin(multi_panel=True) calls it) draws one violin per facet, as seaborn 0.12 did.
In seaborn 0.13.2 the unassigned categorical axis gets an anonymous "" category, which the
given `order` then filters out, so no violin is drawn anywhere; the plotter's last facet axes is
never set and the legend step calls ax.get_legend_handles_labels() on None: AttributeError."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import pyplot as plt
from matplotlib.collections import PolyCollection


def test_catplot_violins_faceted_by_col_with_an_order_and_no_x():
    rng = np.random.default_rng(0)
    data = pd.DataFrame({
        "species": np.repeat(["setosa", "versicolor", "virginica"], 20),
        "sepal_length": np.concatenate([rng.normal(5.0, 0.3, 20), rng.normal(5.9, 0.5, 20),
                                        rng.normal(6.6, 0.6, 20)]),
    })
    keys = ["setosa", "versicolor"]

    g = sns.catplot(data=data, y="sepal_length", kind="violin", col="species",
                    col_order=keys, order=keys, cut=0, inner=None)
    try:
        assert g.axes.shape == (1, 2)
        for ax, key in zip(g.axes.flat, keys):
            assert ax.get_title() == f"species = {key}"
            violins = [c for c in ax.collections if isinstance(c, PolyCollection)]
            assert len(violins) == 1
            # the violin spans exactly that species' values (cut=0)
            ys = violins[0].get_paths()[0].vertices[:, 1]
            values = data.loc[data["species"] == key, "sepal_length"]
            assert np.isclose(ys.min(), values.min()) and np.isclose(ys.max(), values.max())
    finally:
        plt.close(g.figure)

    # the same call without `order` already drew the violins
    g = sns.catplot(data=data, y="sepal_length", kind="violin", col="species",
                    col_order=keys, cut=0, inner=None)
    try:
        assert all(len(ax.collections) == 1 for ax in g.axes.flat)
    finally:
        plt.close(g.figure)
