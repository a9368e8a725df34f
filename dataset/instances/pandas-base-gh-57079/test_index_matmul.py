"""np.matmul of two 1-d Indexes reduces them to one number; pandas 2.3.3's Index.__array_wrap__
hands that number to Index(), which raises TypeError for a scalar."""
import numpy as np
import pandas as pd


def test_matmul_of_two_indexes_is_their_dot_product():
    assert np.matmul(pd.Index([1, 2]), pd.Index([3, 4])) == 11
    assert np.matmul(pd.Index([0.5, 2.0]), pd.Index([4.0, 1.0])) == 4.0
