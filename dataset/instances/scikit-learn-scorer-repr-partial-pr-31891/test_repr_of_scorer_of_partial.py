"""repr() of a scorer made from a functools.partial. make_scorer accepts any callable with the
metric's signature, and a partial is the usual way to fix a metric's parameter (fbeta_score's
beta). scikit-learn 1.6.1's _Scorer.__repr__ names the score function by its `__name__`, which a
partial object does not have: AttributeError, so printing the scorer, or anything that shows it
(a search's repr, a log line), crashes."""
from functools import partial

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import fbeta_score, make_scorer


def test_repr_of_a_scorer_made_from_a_partial_metric():
    scorer = make_scorer(partial(fbeta_score, beta=2), average="macro")
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    # the scorer itself works
    assert scorer(LogisticRegression().fit(X, y), X, y) == 1.0
    text = repr(scorer)
    assert text.startswith("make_scorer(")
    assert "fbeta_score" in text
    assert "average=macro" in text
    # a plain function keeps its name
    assert repr(make_scorer(fbeta_score, beta=2)) == "make_scorer(fbeta_score, response_method='predict', beta=2)"
