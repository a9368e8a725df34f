"""np.linalg.norm of an array without elements: every norm that is a maximum (the vector
inf-norm, the matrix 1-, inf- and 2-norms) is 0, like the sums it is made of. numpy 2.0.0
takes the maximum of an empty array, which has no identity: ValueError."""
import numpy as np


def test_max_based_norms_of_arrays_without_elements_are_zero():
    assert np.linalg.norm(np.zeros(0), ord=np.inf) == 0.0
    assert np.linalg.norm(np.zeros((0, 3)), ord=np.inf) == 0.0
    assert np.linalg.norm(np.zeros((4, 0)), ord=1) == 0.0
    assert np.linalg.norm(np.zeros((0, 2)), ord=2) == 0.0
    # batched: one norm per (empty) matrix
    assert np.linalg.norm(np.zeros((2, 0, 3)), ord=np.inf, axis=(1, 2)).tolist() == [0.0, 0.0]
    # the sum-based norms already were 0, and non-empty inputs are unchanged
    assert np.linalg.norm(np.zeros((0, 3))) == 0.0
    assert np.linalg.norm(np.array([3.0, -4.0]), ord=np.inf) == 4.0
    assert np.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1) == 6.0
    assert np.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=np.inf) == 7.0
