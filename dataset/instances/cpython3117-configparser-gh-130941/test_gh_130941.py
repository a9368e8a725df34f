"""gh-130941: interpolating a reference to an option that has no value (allow_no_value=True)."""
import configparser

import pytest

BASIC = """\
[build]
debug
target = out%(debug)s/bin
"""

EXTENDED = """\
[build]
debug
target = out${debug}/bin
"""


def test_basic_interpolation_of_valueless_option():
    parser = configparser.ConfigParser(allow_no_value=True)
    parser.read_string(BASIC)

    assert parser.get("build", "target") == "out/bin"
    assert parser.get("build", "debug") is None


def test_extended_interpolation_of_valueless_option():
    parser = configparser.ConfigParser(
        allow_no_value=True, interpolation=configparser.ExtendedInterpolation())
    parser.read_string(EXTENDED)

    assert parser.get("build", "target") == "out/bin"
    assert dict(parser.items("build"))["target"] == "out/bin"


def test_missing_option_is_still_an_error():
    parser = configparser.ConfigParser(allow_no_value=True)
    parser.read_string("[build]\ntarget = out%(nothere)s/bin\n")

    with pytest.raises(configparser.InterpolationMissingOptionError):
        parser.get("build", "target")
