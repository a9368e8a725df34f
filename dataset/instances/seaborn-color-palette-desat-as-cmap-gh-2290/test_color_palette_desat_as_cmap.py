"""color_palette(..., desat=..., as_cmap=True) returns a colormap of the desaturated palette.
seaborn 0.13.2 builds the colormap first (a named matplotlib palette with as_cmap=True is a
ListedColormap) and then desaturates with `[desaturate(c, desat) for c in palette]`, iterating
over the colormap object: TypeError ("'ListedColormap' object is not iterable"). Either option
alone works."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import seaborn as sns
from matplotlib.colors import Colormap, to_rgb


def test_color_palette_desaturated_as_a_colormap():
    cmap = sns.color_palette("Set1", desat=0.8, as_cmap=True)
    assert isinstance(cmap, Colormap)

    # its colors are the desaturated Set1 colors
    expected = sns.color_palette("Set1", desat=0.8)
    got = [tuple(np.round(cmap(i / (cmap.N - 1))[:3], 4)) for i in range(cmap.N)]
    assert cmap.N == len(expected) == 9
    assert got == [tuple(np.round(c, 4)) for c in expected]
    # and less saturated than the originals
    plain = sns.color_palette("Set1")
    assert got != [tuple(np.round(c, 4)) for c in plain]

    # continuous palettes too
    viridis = sns.color_palette("viridis", desat=0.5, as_cmap=True)
    assert isinstance(viridis, Colormap)
    r, g, b = viridis(0.5)[:3]
    assert np.allclose(to_rgb(sns.desaturate(sns.color_palette("viridis", as_cmap=True)(0.5), 0.5)),
                       (r, g, b), atol=0.02)

    # the two options alone keep working
    assert len(sns.color_palette("Set1", desat=0.8)) == 9
    assert isinstance(sns.color_palette("Set1", as_cmap=True), Colormap)
