"""np.isdtype answers kind questions about any NumPy dtype. numpy 2.4.1 looks a dtype up by its scalar
type among the built-in NumPy scalar types, and StringDType's scalar type is Python's str: its
instances are rejected with TypeError as if they were no dtype at all."""
import numpy as np
from numpy.dtypes import StringDType


def test_isdtype_of_a_variable_width_string_dtype():
    assert not np.isdtype(StringDType(), "numeric")
    assert not np.isdtype(StringDType(), ("bool", "integral", "real floating"))
    assert np.isdtype(StringDType(), StringDType)
    assert np.isdtype(StringDType(na_object=None), (StringDType, "bool"))
    assert np.isdtype(StringDType, StringDType)
    # the dtype of an actual array of strings
    names = np.array(["ada", "grace"], dtype=StringDType())
    assert not np.isdtype(names.dtype, "numeric")
    # other dtypes are not StringDType
    assert not np.isdtype(np.float64, StringDType)
    assert np.isdtype(np.dtype("f8"), "real floating")
