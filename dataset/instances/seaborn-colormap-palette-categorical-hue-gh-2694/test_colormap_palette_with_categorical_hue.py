"""A matplotlib Colormap is a documented value of `palette` ("string, list, dict, or
matplotlib.colors.Colormap"), and with a categorical hue it should give each level a color taken
from the colormap. seaborn 0.13.2's categorical hue mapping hands the Colormap object to
color_palette, which treats every non-string palette as a sequence of colors and calls
`cycle(palette)` on it: TypeError ("'ListedColormap' object is not iterable" for
the colormap cubehelix_palette makes). A numeric
hue with the same colormap, or the colormap's name as a string, works."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import pyplot as plt
from matplotlib.colors import to_rgba


def test_scatterplot_categorical_hue_with_a_colormap_palette():
    cmap = sns.cubehelix_palette(rot=-0.2, as_cmap=True)
    data = pd.DataFrame({
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "y": [2.0, 1.0, 4.0, 3.0, 6.0, 5.0],
        "kind": ["low", "mid", "high", "low", "mid", "high"],
    })

    fig, ax = plt.subplots()
    try:
        sns.scatterplot(data=data, x="x", y="y", hue="kind", palette=cmap, ax=ax)
        colors = ax.collections[0].get_facecolors()
        by_level = {}
        for level, color in zip(data["kind"], colors):
            by_level.setdefault(level, set()).add(tuple(np.round(color, 6)))
        # one color per level, three different colors, each one of the colormap's colors
        assert all(len(found) == 1 for found in by_level.values())
        distinct = {next(iter(found)) for found in by_level.values()}
        assert len(distinct) == 3
        samples = cmap(np.linspace(0, 1, 256))
        for color in distinct:
            assert np.abs(samples - np.array(color)).max(axis=1).min() < 0.02
        # the legend names the three levels in order of appearance
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["low", "mid", "high"]
    finally:
        plt.close(fig)

    # a colormap passed to color_palette directly gives the requested number of colors
    colors = sns.color_palette(cmap, 4)
    assert len(colors) == 4 and len(set(colors)) == 4
    assert all(len(c) == 3 for c in colors)
    # a numeric hue maps through the colormap as before
    fig, ax = plt.subplots()
    try:
        sns.scatterplot(x=[1, 2, 3], y=[1, 2, 3], hue=[0.0, 5.0, 10.0], palette=cmap, ax=ax)
        first = ax.collections[0].get_facecolors()[0]
        assert np.allclose(first, to_rgba(cmap(0.0)), atol=0.02)
    finally:
        plt.close(fig)
