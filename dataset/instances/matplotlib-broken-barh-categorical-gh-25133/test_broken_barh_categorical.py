"""Horizontal broken bars on a categorical y axis: ``broken_barh(xranges, ("car engine", 0.8))``.

broken_barh gives its vertical extent as (start, height) and, in matplotlib 3.10.9, converts it
with ``convert_yunits((y0, y0 + dy))``: it adds the height to the start *before* converting
units. On a categorical axis the start is a category name, so that sum is "car engine" + 0.8:
TypeError: can only concatenate str (not "float") to str."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def test_broken_barh_rows_named_by_category():
    fig, ax = plt.subplots()
    engine = ax.broken_barh([(0, 5), (10, 3)], ("car engine", 0.8))
    hammer = ax.broken_barh([(3, 3)], ("jackhammer", 0.8))
    assert tuple(engine.get_datalim(ax.transData).intervaly) == (0, 0.8)
    assert tuple(hammer.get_datalim(ax.transData).intervaly) == (1, 1.8)
    # numeric rows keep their extent
    fig2, ax2 = plt.subplots()
    assert tuple(ax2.broken_barh([(0, 1)], (2, 3)).get_datalim(ax2.transData).intervaly) == (2, 5)
    plt.close(fig)
    plt.close(fig2)
