"""SimpleImputer(strategy="most_frequent") on an object column whose most frequent values are
tied. scikit-learn 1.6.1 breaks the tie with the builtin min() over the tied values, as
scipy.stats.mode would, but an object column may hold values of types that do not order (a
string and None, a string and an int): min() raises TypeError, so fitting crashes only when
there is a tie, while the same column without a tie fits."""
import numpy as np
from sklearn.impute import SimpleImputer


def test_most_frequent_fits_when_incomparable_values_tie():
    imputer = SimpleImputer(strategy="most_frequent")
    X = np.array([["a", 1], [None, 1], ["a", 2], [None, np.nan]], dtype=object)
    Xt = imputer.fit_transform(X)
    # column 0 ties "a" and None (2 each): one of them is picked, and nothing is missing there
    assert imputer.statistics_[0] in ("a", None)
    assert list(Xt[:, 0]) == ["a", None, "a", None]
    # column 1: 1 is the most frequent value, and fills the NaN
    assert imputer.statistics_[1] == 1
    assert Xt[3, 1] == 1
    # the choice does not depend on the order of the rows
    again = SimpleImputer(strategy="most_frequent").fit(X[::-1])
    assert again.statistics_[0] == imputer.statistics_[0]
