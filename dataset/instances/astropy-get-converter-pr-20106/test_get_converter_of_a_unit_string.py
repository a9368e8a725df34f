"""UnitBase.get_converter documents `other` as unit-like, but astropy 8.0.1 uses it as given.
For a string such as "km" the direct scale (`_to`) does not apply and the equivalency search
fails, so the error path formats both units with `get_err_str`, which calls `.to_string` on the
string: AttributeError instead of a converter (the same call with `u.km` works)."""
import numpy as np
import astropy.units as u


def test_get_converter_accepts_a_unit_string():
    to_km = u.m.get_converter("km")
    assert np.allclose(to_km(np.array([1500.0, 20.0])), [1.5, 0.02])
    to_cm = u.m.get_converter("cm")
    assert to_cm(2.0) == 200.0
    # with an equivalency, given by name as well
    to_hz = u.AA.get_converter("Hz", equivalencies=u.spectral())
    assert np.isclose(to_hz(5000.0), (5000.0 * u.AA).to_value(u.Hz, u.spectral()))
    # unit objects keep working
    assert u.m.get_converter(u.km)(1000.0) == 1.0
