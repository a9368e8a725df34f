"""MLPClassifier(early_stopping=True) on text class labels. With early stopping, each epoch
scores the model on a held-out validation split through _score_with_function, which in
scikit-learn 1.6.1 first checks the predictions for NaN and infinity with np.isnan/np.isinf to
catch a diverged regressor; a classifier's predictions are its class labels, and np.isnan is not
defined for strings: TypeError, so any classifier with text labels cannot use early stopping."""
import numpy as np
import pytest
from sklearn.neural_network import MLPClassifier


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_mlp_classifier_early_stopping_on_text_labels():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    clf = MLPClassifier(hidden_layer_sizes=(5,), early_stopping=True, max_iter=15, random_state=0)
    clf.fit(X, y)
    assert list(clf.classes_) == ["no", "yes"]
    # one validation accuracy per epoch, each a proper score
    assert len(clf.validation_scores_) == clf.n_iter_
    assert all(0.0 <= score <= 1.0 for score in clf.validation_scores_)
    assert set(clf.predict(X)) <= {"no", "yes"}
