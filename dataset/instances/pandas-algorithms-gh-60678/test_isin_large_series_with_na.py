"""Series.isin on a Series longer than 10**6 with values that include pd.NA: pandas 2.3.3 switches
to np.isin for large inputs and passes the NA along; numpy compares elements with ==, pd.NA == 1
is NA, and NA's truth value raises TypeError ('boolean value of NA is ambiguous'). Short Series
take the hash-table path and work."""
import numpy as np
import pandas as pd


def test_isin_on_a_long_series_with_na_among_the_values():
    numbers = pd.Series(np.arange(1_000_001, dtype="int64"))
    found = numbers.isin([3, pd.NA, 999_999])
    assert found.sum() == 2
    assert bool(found.iloc[3]) and bool(found.iloc[999_999])
    assert not found.iloc[0]
