"""gh-135487: reprlib.repr() of an int with more digits than int->str conversion allows."""
import reprlib
import sys

import pytest


@pytest.fixture
def digit_limit():
    # Pin the limit so the test does not depend on PYTHONINTMAXSTRDIGITS.
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    yield 4300
    sys.set_int_max_str_digits(old)


def test_repr_of_int_beyond_digit_limit(digit_limit):
    huge = 7 * 10 ** (digit_limit + 50)

    text = reprlib.repr(huge)

    assert isinstance(text, str)
    assert len(text) <= reprlib.aRepr.maxother + 10


def test_repr_of_long_int_within_limit_is_abbreviated(digit_limit):
    text = reprlib.repr(10 ** 100)

    assert text.startswith("1000")
    assert "..." in text
    assert len(text) == reprlib.aRepr.maxlong
