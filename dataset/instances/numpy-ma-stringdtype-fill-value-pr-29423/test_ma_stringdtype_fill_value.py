"""A masked array of variable-width strings (StringDType) should accept a text fill value, like
masked arrays of fixed-width unicode or bytes do. numpy 2.0.0 only lets a str fill value through
for the dtype characters of the classic string and object dtypes, so asking for a text fill value
on a StringDType masked array raises TypeError."""
import numpy as np
from numpy.dtypes import StringDType


def test_masked_stringdtype_array_takes_a_text_fill_value():
    names = np.ma.array(["ada", "grace", "linus"], dtype=StringDType(),
                        mask=[False, True, False], fill_value="<hidden>")
    assert names.fill_value == "<hidden>"
    assert names.filled().tolist() == ["ada", "<hidden>", "linus"]
    # changing it afterwards works the same way
    names.fill_value = "-"
    assert names.filled().tolist() == ["ada", "-", "linus"]
    # an explicit fill value handed to filled() is honoured as well
    assert names.filled("?!").tolist() == ["ada", "?!", "linus"]
    # a fixed-width unicode masked array behaves identically
    classic = np.ma.array(["ada", "grace"], mask=[True, False], fill_value="x")
    assert classic.filled().tolist() == ["x", "grace"]
