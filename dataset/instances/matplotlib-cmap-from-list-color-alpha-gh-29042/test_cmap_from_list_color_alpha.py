"""A colormap built from a list whose entries are (color, alpha) tuples.

matplotlib accepts a color given as a ``(color, alpha)`` tuple everywhere (to_rgba_array does),
but matplotlib 3.10.9's LinearSegmentedColormap.from_list decides whether its list holds
``(value, color)`` anchor pairs only from the first entry being a sized non-string of length 2.
``("red", 0.3)`` passes that check, so the list is unzipped into "values" ("red", "0.42", ...)
and "colors" (0.3, 0.1, ...), and converting the bare number 0.3 to a color raises
ValueError: Invalid RGBA argument: 0.3."""
import numpy as np
from matplotlib.colors import LinearSegmentedColormap, to_rgba_array


def test_from_list_with_color_alpha_tuples_blends_those_colors():
    colors = [("red", 0.3), ("0.42", 0.1), "green"]
    cmap = LinearSegmentedColormap.from_list("faded", colors, N=3)
    np.testing.assert_allclose(cmap([0.0, 0.5, 1.0]), to_rgba_array(colors))
    # (value, color) anchors keep working
    anchored = LinearSegmentedColormap.from_list("anchored", [(0, "blue"), (1, "white")], N=2)
    np.testing.assert_allclose(anchored([0.0, 1.0]), to_rgba_array(["blue", "white"]))
