"""The cursor readout of a uint8 image drawn with NoNorm (pixel values used as colormap indices).

To choose how many digits to show, the image's format_cursor_data looks at the neighbouring
color intervals: ``int(normed * n)`` with n the colormap size (256). NoNorm returns the data
value unchanged, here a numpy uint8 scalar, and under numpy 2's promotion rules uint8 * 256
keeps the uint8 type, which cannot hold the Python integer 256: matplotlib 3.10.9 raises
OverflowError: Python integer 256 out of bounds for uint8."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colors


def test_cursor_readout_of_a_nonorm_uint8_pixel():
    fig, ax = plt.subplots()
    image = ax.imshow(np.array([[0, 44]], dtype=np.uint8), norm=colors.NoNorm())
    assert image.format_cursor_data(np.uint8(44)) == "[44.000]"
    # a float image with the default norm keeps its readout
    other = ax.imshow(np.array([[0.0, 1.0]]))
    assert other.format_cursor_data(0.5) == "[0.500]"
    plt.close(fig)
