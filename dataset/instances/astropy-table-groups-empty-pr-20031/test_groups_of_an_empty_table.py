"""Grouping a table with no rows gives a TableGroups with no groups. astropy 8.0.1's
BaseGroups.__len__ is `len(self.indices) - 1`, assuming indices always hold the leading 0, but the
group indices of an empty table are an empty array, so the length is -1: TableGroups.filter
sizes its mask with `len(self)` and Python's len() rejects the negative length (ValueError)."""
import numpy as np
from astropy.table import Table


def test_filter_and_len_of_groups_of_an_empty_table():
    t = Table({"a": np.array([], dtype=int), "b": np.array([], dtype=float)})
    grouped = t.group_by("a")
    kept = grouped.groups.filter(lambda group, keys: True)
    assert len(kept) == 0
    assert kept.colnames == ["a", "b"]
    assert len(grouped.groups) == 0
    assert list(grouped.groups) == []
    # a non-empty table still groups as before
    t2 = Table({"a": [1, 2, 1], "b": [1.0, -2.0, 3.0]})
    g2 = t2.group_by("a")
    assert len(g2.groups) == 2
    positive = g2.groups.filter(lambda group, keys: bool(np.all(group["b"] > 0)))
    assert list(positive["a"]) == [1, 1]
