"""StandardScaler fitted on a pandas DataFrame while array API dispatch is enabled
(sklearn.set_config(array_api_dispatch=True), with SCIPY_ARRAY_API=1). A DataFrame is not an
array API array, but like a list or a sparse matrix it is converted to a NumPy array by input
validation, so it should simply run on NumPy. scikit-learn 1.6.1's get_namespace drops only
strings, None and sparse inputs before asking array_api_compat for the inputs' namespace, and
array_api_compat rejects the DataFrame: TypeError ("DataFrame is not a supported array type")
before any validation, so no array-API-aware estimator accepts dataframes under dispatch."""
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.preprocessing import StandardScaler


@pytest.fixture
def array_api_dispatch():
    sklearn.set_config(array_api_dispatch=True)
    yield
    sklearn.set_config(array_api_dispatch=False)


def test_standard_scaler_on_a_dataframe_under_array_api_dispatch(array_api_dispatch):
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [10.0, 10.0, 30.0, 30.0]})
    scaler = StandardScaler().fit(X)
    assert list(scaler.feature_names_in_) == ["a", "b"]
    np.testing.assert_allclose(scaler.mean_, [2.5, 20.0])
    Xt = scaler.transform(X)
    np.testing.assert_allclose(np.asarray(Xt).mean(axis=0), [0.0, 0.0], atol=1e-12)
    # NumPy input keeps working under dispatch
    np.testing.assert_allclose(StandardScaler().fit(X.to_numpy()).scale_, scaler.scale_)
