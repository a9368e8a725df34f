"""Index.sort_values with a key function that maps each label to a tuple (what a natural-sort key
such as natsort's does): pandas 2.3.3 turns the key's result back into an Index with Index(...),
which builds a MultiIndex from a list of tuples, and nargsort then raises TypeError because it
does not sort a MultiIndex."""
import pandas as pd


def version_key(labels):
    return [tuple(int(part) for part in label.split(".")) for label in labels]


def test_sort_values_with_a_key_returning_tuples():
    versions = pd.Index(["1.10", "1.2", "0.9", "1.9"])
    assert list(versions.sort_values(key=version_key)) == ["0.9", "1.2", "1.9", "1.10"]
    assert list(versions.sort_values(key=version_key, ascending=False)) == ["1.10", "1.9", "1.2", "0.9"]
