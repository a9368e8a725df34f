"""A matrix with no rows (or no columns) has no singular values and rank 0. numpy 2.4.1's
matrix_rank derives its default tolerance from the largest singular value, and the maximum of none
raises ValueError."""
import numpy as np


def test_matrix_rank_of_a_matrix_without_rows_or_columns_is_zero():
    assert np.linalg.matrix_rank(np.zeros((0, 3))) == 0
    assert np.linalg.matrix_rank(np.ones((4, 0))) == 0
    # a stack of them: one rank each
    assert np.linalg.matrix_rank(np.zeros((2, 0, 3))).tolist() == [0, 0]
    # an explicit relative tolerance takes the same path
    assert np.linalg.matrix_rank(np.zeros((3, 0)), rtol=1e-3) == 0
    # and matrices with entries keep their rank
    assert np.linalg.matrix_rank(np.diag([2.0, 1.0, 0.0])) == 2
    assert np.linalg.matrix_rank(np.ones((2, 3, 4))).tolist() == [1, 1]
