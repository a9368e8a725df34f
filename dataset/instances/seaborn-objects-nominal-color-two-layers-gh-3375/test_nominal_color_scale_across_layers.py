"""A Plot whose color variable is numeric, drawn as a Nominal scale, with a second layer that
overrides the data with a shorter vector: each layer's points get the palette color of their
level. In seaborn 0.13.2 the second layer's color column is aligned to the common data's index,
so it holds NaN and the values the scale is set up on are floats (levels "1.0", "2.0", "3.0"),
while the first layer's integer values stringify as "1", "2", "3": the axis-less category
converter adds them as new categories, their indices run past the palette and np.take raises
IndexError, which Mark._resolve reports as PlotSpecError ("Scaling operation failed for the
`color` variable")."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import seaborn.objects as so
from matplotlib import pyplot as plt


def _dot_colors(plot):
    compiled = plot.plot()
    try:
        return [c.get_facecolors()[:, :3] for c in compiled._figure.axes[0].collections]
    finally:
        plt.close(compiled._figure)


def test_nominal_color_scale_shared_by_a_layer_with_its_own_shorter_data():
    first, second = _dot_colors(
        so.Plot(x=[1, 2, 3], y=[1, 2, 3], color=[1, 2, 3])
        .add(so.Dot())
        .add(so.Dot(), x=[1], y=[1], color=[1])
        .scale(color=so.Nominal())
    )
    # three levels, three different colors, the ones a single layer gets
    (alone,) = _dot_colors(
        so.Plot(x=[1, 2, 3], y=[1, 2, 3], color=[1, 2, 3]).add(so.Dot()).scale(color=so.Nominal())
    )
    assert len({tuple(np.round(c, 6)) for c in alone}) == 3
    assert np.allclose(first, alone)
    # the second layer's single point has the color of level 1
    assert np.allclose(second, alone[:1])
