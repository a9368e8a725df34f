"""np.take with an `out` array of another dtype: numpy 2.4.1 accepts an out whose dtype casts safely
back to the input's (int32 values into an int8 out) but refuses the natural case of a wider out,
int32 values into a float64 or int64 out, with TypeError (the cast it checks goes the wrong way)."""
import numpy as np


def test_take_into_an_out_of_a_wider_dtype():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros(2)
    result = np.take(a, [0, 5], out=out)
    assert result is out
    assert out.tolist() == [0.0, 5.0]
    wide = np.zeros((2, 2), dtype=np.int64)
    np.take(a, [2, 0], axis=1, out=wide)
    assert wide.tolist() == [[2, 0], [5, 3]]
    # modes other than raise
    assert np.take(a, [7, -9], mode="clip", out=np.zeros(2)).tolist() == [5.0, 0.0]
    # same dtype and narrower outs as before
    same = np.zeros(2, dtype=np.int32)
    assert np.take(a, [1, 2], out=same).tolist() == [1, 2]
    assert np.take(a, [1, 2], out=np.zeros(2, dtype=np.int8)).tolist() == [1, 2]
