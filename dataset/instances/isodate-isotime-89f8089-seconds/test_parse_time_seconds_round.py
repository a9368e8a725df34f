"""parse_time with more than 6 fractional second digits: isodate 0.6.1 rounds to
microseconds, so 59.9999999 s becomes 60 s and datetime.time raises ValueError."""
from datetime import time

from isodate import parse_time


def test_parse_time_with_seven_fractional_second_digits():
    assert parse_time("23:59:59.9999999") == time(23, 59, 59, 999999)
    assert parse_time("12:30:15.1234567") == time(12, 30, 15, 123456)
