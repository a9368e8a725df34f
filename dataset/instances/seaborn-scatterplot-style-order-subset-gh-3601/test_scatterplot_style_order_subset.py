"""scatterplot with a `style_order` naming only some of the style variable's values should draw
the points of those levels, as lineplot does. seaborn 0.13.2's scatterplot draws every row
and looks up the marker of each one in the style mapping, which only holds the ordered levels:
KeyError for the first value left out of style_order."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import pyplot as plt


def test_scatterplot_draws_only_the_levels_named_in_style_order():
    data = pd.DataFrame({
        "price": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "carat": [3.0, 1.0, 2.0, 5.0, 4.0, 6.0],
        "cut": ["fair", "good", "ideal", "fair", "good", "ideal"],
    })

    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data, x="price", y="carat", style="cut", style_order=["fair", "good"], ax=ax)
        points = ax.collections[0]
        offsets = np.asarray(points.get_offsets())
        assert offsets.tolist() == [[1.0, 3.0], [2.0, 1.0], [4.0, 5.0], [5.0, 4.0]]
        # two markers, one per level: the fair points share one, the good points the other
        paths = [p.vertices.round(6).tobytes() for p in points.get_paths()]
        assert len(paths) == 4
        assert paths[0] == paths[2] and paths[1] == paths[3] and paths[0] != paths[1]
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["fair", "good"]
    finally:
        plt.close(fig)

    # without style_order every level is drawn
    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data, x="price", y="carat", style="cut", ax=ax)
        assert len(ax.collections[0].get_offsets()) == 6
    finally:
        plt.close(fig)
