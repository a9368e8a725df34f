"""np.strings.center and zfill are documented for StringDType arrays. numpy 2.0.0 builds their
result dtype as `type(a.dtype)(width)`, a fixed-width dtype of the padded size; StringDType
takes no size, so padding a StringDType array raises TypeError (ljust and rjust special-case it)."""
import numpy as np
from numpy.dtypes import StringDType


def test_center_and_zfill_of_a_stringdtype_array():
    a = np.array(["a", "bcd"], dtype=StringDType())
    centered = np.strings.center(a, 5)
    assert centered.dtype == StringDType()
    assert centered.tolist() == ["  a  ", " bcd "]
    assert np.strings.center(a, 6, fillchar="*").tolist() == ["**a***", "*bcd**"]
    filled = np.strings.zfill(np.array(["7", "-42"], dtype=StringDType()), 5)
    assert filled.dtype == StringDType()
    assert filled.tolist() == ["00007", "-0042"]
    # ljust/rjust, and the fixed-width dtypes, as before
    assert np.strings.ljust(a, 4).tolist() == ["a   ", "bcd "]
    assert np.strings.center(np.array(["ab"]), 6).tolist() == ["  ab  "]
    assert np.strings.zfill(np.array([b"5"]), 3).tolist() == [b"005"]
