"""Placing a contour label by hand on one of several contour levels.

ContourLabeler.add_label_near (which clabel(manual=[...]) calls for each position) finds the
nearest labelled contour as an index into *all* the contour set's paths (idx_level_min), but in
matplotlib 3.10.9 it then looks that index up in labelLevelList/labelCValueList, which only hold
the levels being labelled. With a subset of the levels (here one of three) the index runs past
their end: IndexError: list index out of range."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def test_manual_label_on_one_of_three_levels():
    fig, ax = plt.subplots()
    contours = ax.contour([[1, 2], [3, 4]], levels=[1.5, 2.5, 3.5])
    labels = ax.clabel(contours, levels=[2.5], manual=[(0.5, 0.5)], fmt="%.1f")
    assert [text.get_text() for text in labels] == ["2.5"]
    plt.close(fig)
