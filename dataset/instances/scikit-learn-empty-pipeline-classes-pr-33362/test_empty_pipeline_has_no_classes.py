"""An empty Pipeline (steps=[], e.g. one built step by step, or a no-op stage in a larger
composition) asked whether it has `classes_`. Tools probe estimators with hasattr/getattr with a
default, which only treat AttributeError as "absent". scikit-learn 1.6.1's Pipeline.classes_
property reads self.steps[-1] without checking that there is a step: IndexError, which escapes
hasattr and getattr(..., default)."""
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


def test_empty_pipeline_has_no_classes():
    assert getattr(Pipeline([]), "classes_", None) is None
    assert not hasattr(Pipeline(steps=[]), "classes_")
    # a pipeline ending in a transformer has none either, one ending in a classifier has them
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    assert not hasattr(Pipeline([("scale", StandardScaler())]).fit(X), "classes_")
    pipe = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression())]).fit(X, y)
    assert list(pipe.classes_) == [0, 1]
