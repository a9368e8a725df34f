"""parse_time with fractional minutes whose seconds round to a full million microseconds:
isodate 0.6.1 hands microsecond=1000000 to datetime.time, which raises ValueError."""
from datetime import time

from isodate import parse_time


def test_parse_time_with_long_fractional_minutes():
    assert parse_time("23:59.99999999999") == time(23, 59, 59, 999999)
    assert parse_time("10:30.5") == time(10, 30, 30)
