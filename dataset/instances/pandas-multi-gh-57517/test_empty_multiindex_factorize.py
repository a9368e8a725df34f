"""MultiIndex.factorize() on an empty MultiIndex (e.g. a filter that kept no row): pandas 2.3.3
factorizes the tuples and turns the uniques back into a MultiIndex with MultiIndex.from_tuples,
which raises TypeError ("Cannot infer number of levels from empty list") when there is no tuple.
Factorizing an empty index must give empty codes and an empty MultiIndex of the same depth."""
import pandas as pd


def test_factorize_of_an_empty_multiindex():
    full = pd.MultiIndex.from_arrays([[1, 1, 2], ["a", "a", "b"]])
    empty = full[:0]
    codes, uniques = empty.factorize()
    assert len(codes) == 0
    assert isinstance(uniques, pd.MultiIndex)
    assert len(uniques) == 0
    assert uniques.nlevels == 2

    codes, uniques = full.factorize()
    assert list(codes) == [0, 0, 1]
    assert list(uniques) == [(1, "a"), (2, "b")]
