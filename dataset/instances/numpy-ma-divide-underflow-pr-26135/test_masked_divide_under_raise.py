"""Dividing a masked array first works out where the divisor is too small (its domain), by
scaling the dividend with the smallest normal float. For a dividend below 1 that product
(inexact, e.g. 0.1 * tiny) underflows; numpy 2.0.0 only silences `invalid` there, so under np.errstate(under="raise") a
harmless division raises FloatingPointError."""
import numpy as np


def test_masked_division_when_underflow_raises():
    values = np.arange(0, 3, 0.1)  # 0.1 * tiny is an inexact subnormal
    masked = np.ma.array(values, mask=values > 2.5)
    with np.errstate(under="raise"):
        halved = masked / 2.0
        ratio = np.ma.divide(masked, np.full(values.shape, 4.0))
    assert halved.filled(-1).tolist() == [v / 2 if v <= 2.5 else -1 for v in values]
    assert ratio.filled(-1).tolist() == [v / 4 if v <= 2.5 else -1 for v in values]
    # division by zero is still masked, as before
    assert np.ma.array([1.0, 2.0]).__truediv__(np.array([0.0, 2.0])).mask.tolist() == [True, False]
