"""MinCovDet on data with as many samples as features. Its default support size is the minimum
breakdown value ceil((n_samples + n_features + 1) / 2), which exceeds n_samples when
n_samples == n_features; scikit-learn 1.6.1 uses it unclamped, so the C-step's
np.argpartition(dist, n_support - 1) asks for an element past the end of the n_samples distances:
ValueError ("kth(=4) out of bounds (4)"), where earlier releases fitted such data."""
import numpy as np
from sklearn.covariance import MinCovDet


def test_mincovdet_fits_as_many_samples_as_features():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(4, 4))
    mcd = MinCovDet(random_state=0).fit(X)
    assert mcd.covariance_.shape == (4, 4)
    assert mcd.location_.shape == (4,)
    # the support cannot hold more observations than there are
    assert mcd.support_.shape == (4,)
    assert 0 < mcd.support_.sum() <= 4
    assert mcd.dist_.shape == (4,)
