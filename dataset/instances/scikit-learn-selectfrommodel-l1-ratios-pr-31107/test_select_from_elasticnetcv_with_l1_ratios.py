"""SelectFromModel around an ElasticNetCV that searches several l1_ratio values (a list, as its
documentation suggests). To pick its default threshold, scikit-learn 1.6.1's _calculate_threshold
asks whether the model is l1-penalized with `np.isclose(estimator.l1_ratio, 1.0)`, which for a
list of ratios is an array; the `and`/`or` chain then takes the truth value of that array:
ValueError ("The truth value of an array with more than one element is ambiguous"), so fitting
the selector crashes although the fitted model has one chosen ratio (l1_ratio_)."""
import numpy as np
from sklearn.feature_selection import SelectFromModel
from sklearn.linear_model import ElasticNetCV


def test_select_from_model_of_elasticnetcv_with_a_list_of_l1_ratios():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 5))
    y = 3 * X[:, 0] - 2 * X[:, 1] + 0.01 * rng.normal(size=40)
    selector = SelectFromModel(ElasticNetCV(l1_ratio=[0.5, 1.0], n_alphas=5, cv=3))
    Xt = selector.fit_transform(X, y)
    support = selector.get_support()
    # the two informative features are kept
    assert support[0] and support[1]
    assert Xt.shape == (40, support.sum())
    # the threshold is one of the two defaults: 1e-5 for an l1 penalty, else the mean importance
    mean_importance = np.mean(np.abs(selector.estimator_.coef_))
    assert np.isclose(selector.threshold_, 1e-5) or np.isclose(selector.threshold_, mean_importance)
    assert np.array_equal(support, np.abs(selector.estimator_.coef_) >= selector.threshold_)
