"""Displaying a SkyCoord with proper motions but no radial velocity, then applying space
motion, must not change the coordinate. In astropy 8.0.1 BaseRepresentation.represent_as, asked
for the same representation class with another differential class, reuses `self` and attaches
the converted differentials to it: printing the coordinate (which asks for the frame's
differential class) thus replaces the SphericalDifferential that apply_space_motion's ICRS
representation holds by a SphericalCosLatDifferential, and a second apply_space_motion reads
`d_lon` from it: AttributeError."""
import astropy.units as u
from astropy.coordinates import Distance, SkyCoord


def test_apply_space_motion_twice_with_display_in_between():
    c = SkyCoord(
        ra=66.42 * u.deg,
        dec=-70.0 * u.deg,
        distance=Distance(parallax=22.76 * u.mas),
        pm_ra_cosdec=144.9 * u.mas / u.yr,
        pm_dec=5.4 * u.mas / u.yr,
        obstime="J2000",
    )
    str(c)
    first = c.apply_space_motion(dt=10 * u.yr)
    str(c)
    second = c.apply_space_motion(dt=10 * u.yr)
    assert first.separation(second).to_value(u.uas) < 1e-3
    assert c.separation(first).to_value(u.arcsec) > 1.0
