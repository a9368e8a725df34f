"""DataFrame.eval calling a numpy function through `@np`: pandas 2.3.3 resolves the name `np` to
the numpy module, then checks `res.ndim > 2` on it; the module's `ndim` is a function, and the
comparison raises TypeError."""
import numpy as np
import pandas as pd


def test_eval_applies_a_numpy_function_named_with_at():
    frame = pd.DataFrame({"a": [1.5, -0.5, 2.0]})
    floored = frame.eval("@np.floor(a)", engine="python")
    assert list(floored) == [1.0, -1.0, 2.0]
