"""A 3D line collection whose lines have different numbers of points, added with autolim.

Line3DCollection documents that its lines may differ in length, but in matplotlib 3.10.9
Axes3D.add_collection3d(col, autolim=True) computes the data limits from
``np.array(col._segments3d).transpose()``, which needs every line to have as many points as the
others: for a ragged list numpy refuses to build the array (ValueError: setting an array
element with a sequence ... inhomogeneous shape)."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from mpl_toolkits.mplot3d import art3d


def test_autolim_covers_lines_of_different_lengths():
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    wire = [
        [(0, 0, 0), (1, 1, 1), (2, 2, 2)],
        [(0, 1, 0), (1, 2, 1)],
        [(1, 0, 1), (2, 1, 2), (3, 2, 3), (4, 3, 4)],
    ]
    collection = ax.add_collection3d(art3d.Line3DCollection(wire), autolim=True)
    assert collection is not None
    (x0, x1), (y0, y1), (z0, z1) = ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d()
    assert x0 <= 0 and x1 >= 4
    assert y0 <= 0 and y1 >= 3
    assert z0 <= 0 and z1 >= 4
    assert x1 < 5 and y1 < 4 and z1 < 5  # the limits come from the lines, not a default
    plt.close(fig)
