"""histplot draws histograms of dates, and its `bins` may be the bin edges ("the breaks of the
bins"); for dates the natural edges are dates. seaborn 0.13.2 converts the dates it plots to
matplotlib's date numbers (days since 1970) but passes the edges through unconverted, so
np.histogram compares float data with datetime edges: TypeError ("'<' not supported between
instances of 'float' and 'datetime.date'"). A number of bins, or edges already converted with
matplotlib.dates.date2num, work."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import seaborn as sns
from matplotlib import dates as mdates
from matplotlib import pyplot as plt


def test_histplot_of_dates_with_datetime_bin_edges():
    visits = pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-02", "2020-01-05",
                             "2020-01-06", "2020-01-08"])
    edges = np.array(["2020-01-01", "2020-01-04", "2020-01-07", "2020-01-10"],
                     dtype="datetime64[D]")

    fig, ax = plt.subplots()
    try:
        sns.histplot(x=visits, bins=edges, ax=ax)
        assert [bar.get_height() for bar in ax.patches] == [3, 2, 1]
        assert [bar.get_x() for bar in ax.patches] == pytest.approx(mdates.date2num(edges[:-1]))
        assert [bar.get_width() for bar in ax.patches] == pytest.approx([3.0, 3.0, 3.0])
    finally:
        plt.close(fig)

    # the same edges given as pandas timestamps
    fig, ax = plt.subplots()
    try:
        sns.histplot(x=visits, bins=list(pd.to_datetime(edges)), ax=ax)
        assert [bar.get_height() for bar in ax.patches] == [3, 2, 1]
    finally:
        plt.close(fig)

    # numeric bins keep working
    fig, ax = plt.subplots()
    try:
        sns.histplot(x=visits, bins=mdates.date2num(edges), ax=ax)
        assert [bar.get_height() for bar in ax.patches] == [3, 2, 1]
        ax.clear()
        sns.histplot(x=[1.0, 2.0, 2.5, 7.0], bins=[0, 2, 4, 8], ax=ax)
        assert [bar.get_height() for bar in ax.patches] == [1, 2, 1]
    finally:
        plt.close(fig)
