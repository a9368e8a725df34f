"""convert_dtypes() on complex numbers: pandas 2.3.3's dtypes.cast.convert_dtypes lumps dtype kind
'c' with the floats and chooses the nullable Float64 dtype for a complex128 column, and the cast
then fails in the masked-array constructor with TypeError (complex128 cannot be converted to
FloatingDtype). There is no nullable complex dtype, so a complex column should simply stay
complex128 while the other columns are converted as usual."""
import numpy as np
import pandas as pd


def test_convert_dtypes_leaves_complex_columns_complex():
    series = pd.Series([1 + 2j, 3j])
    converted = series.convert_dtypes()
    assert converted.dtype == np.complex128
    assert list(converted) == [1 + 2j, 3j]

    frame = pd.DataFrame({"z": [1 + 1j, 2 - 1j], "n": [1.0, 2.0]})
    out = frame.convert_dtypes()
    assert out["z"].dtype == np.complex128
    assert str(out["n"].dtype) == "Int64"
