"""An in-place operation between a table Column with a unit and a Quantity, `col += 1 * u.m`,
should update the column in its own unit. astropy 8.0.1 hands it to Quantity.__array_ufunc__,
which computes the result unit (the column's) and then checks the output: the column is not a
Quantity, and check_output refuses to store a result with a unit in any non-Quantity array,
without looking at the unit the Column itself carries: UnitTypeError."""
import numpy as np
import astropy.units as u
from astropy.table import Column, Table


def test_inplace_add_and_subtract_quantity_on_column_with_unit():
    col = Column([1.0, 2.0, 3.0], name="x", unit="m")
    col += 1 * u.m
    assert np.allclose(col, [2.0, 3.0, 4.0])
    assert col.unit == u.m
    # the quantity is converted to the column's unit
    col -= 1 * u.km
    assert np.allclose(col, [-998.0, -997.0, -996.0])
    assert col.unit == u.m
    # a column inside a table
    t = Table({"flux": Column([10.0, 20.0], unit="Jy")})
    t["flux"] += 500 * u.mJy
    assert np.allclose(t["flux"], [10.5, 20.5])
    assert t["flux"].unit == u.Jy
