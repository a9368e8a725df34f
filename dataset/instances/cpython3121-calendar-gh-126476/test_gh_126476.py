"""gh-126476: calendar.month() / formatmonth() given a month number above 12."""
import calendar

import pytest


def test_month_above_twelve_is_an_illegal_month():
    with pytest.raises(calendar.IllegalMonthError):
        calendar.month(2024, 13)


def test_html_formatmonth_above_twelve_is_an_illegal_month():
    with pytest.raises(calendar.IllegalMonthError):
        calendar.HTMLCalendar().formatmonth(2024, 13)


def test_valid_month_still_formats():
    text = calendar.TextCalendar(calendar.MONDAY).formatmonth(2024, 2)

    assert text.splitlines()[0].strip() == "February 2024"
    assert "29" in text
