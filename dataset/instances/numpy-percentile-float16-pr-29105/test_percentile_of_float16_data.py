"""np.percentile and np.quantile of float16 data compute in float16 (a Python float q takes the
data's type). numpy 2.0.0 also computes the position of the quantile in the sorted data in
float16, which holds 65504 at most and exact integers only up to 2048: for a large array the
position overflows or rounds past the end, and partitioning at it raises ValueError (kth out of
bounds)."""
import numpy as np


def test_percentiles_of_a_large_float16_array():
    data = np.zeros(65521, dtype=np.float16)
    data[:20000] = 1
    for method in ("lower", "higher", "nearest", "linear", "midpoint"):
        low = np.percentile(data, 50, method=method)
        high = np.percentile(data, 99, method=method)
        assert (low, high) == (0, 1), method
        assert low.dtype == np.float16 and high.dtype == np.float16
    values = np.arange(3000, dtype=np.float16)  # 0 .. 2048 exact, then even numbers
    top = np.quantile(values, 0.999)
    assert top.dtype == np.float16
    assert float(top) == float(np.quantile(values.astype(np.float64), 0.999).astype(np.float16))
    # float32 and float64 data are unchanged
    assert np.percentile(data.astype(np.float32), 99) == 1
    assert np.quantile(np.arange(5.0), 0.5) == 2.0
