"""len() of a groupby that keeps missing keys as a group (dropna=False): pandas 2.3.3 counts the
groups through Grouping.groups, which builds a Categorical from the group keys; with NaN among
those keys the Categorical refuses a missing category and raises ValueError, although the
grouping itself (ngroups, sum) handles the NaN group."""
import pandas as pd


def test_len_of_a_groupby_keeping_the_missing_key():
    frame = pd.DataFrame({"key": [1.0, None, 1.0, 2.0], "value": [1, 2, 3, 4]})
    grouped = frame.groupby("key", dropna=False)
    assert len(grouped) == 3
    assert len(grouped) == grouped.ngroups
    assert grouped["value"].sum().tolist() == [4, 4, 2]
