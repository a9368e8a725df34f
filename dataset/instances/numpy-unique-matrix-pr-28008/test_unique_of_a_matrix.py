"""np.unique flattens its input and returns the sorted distinct values. np.matrix stays 2-D when
flattened (a 1 x n matrix), so numpy 2.0.0 works on a 2-D array: for floats its NaN check asks
for the truth value of a whole row, ValueError; for integers it returns every value, not the
distinct ones."""
import numpy as np
import pytest


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_unique_of_a_matrix_gives_its_distinct_values():
    floats = np.matrix([[2.0, 1.0, 2.0], [3.0, 1.0, 1.0]])
    assert np.unique(floats).tolist() == [1.0, 2.0, 3.0]
    ints = np.matrix([[4, 4, 1], [1, 1, 4]])
    assert np.unique(ints).tolist() == [1, 4]
    assert np.unique(ints.T).tolist() == [1, 4]
    values, counts = np.unique(ints, return_counts=True)
    assert values.tolist() == [1, 4] and counts.tolist() == [3, 3]
    assert np.unique(np.matrix(7.5)).tolist() == [7.5]
    # plain arrays are unchanged
    assert np.unique(np.array([[2.0, 1.0], [2.0, np.nan]])).tolist()[:2] == [1.0, 2.0]
