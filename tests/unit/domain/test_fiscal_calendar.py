"""A company's fiscal calendar read off one report, and the fiscal year an event's day falls in."""

from __future__ import annotations

import datetime as dt

from domain.rules import as_date, event_fiscal_year, year_end_of


def test_a_years_end_read_off_a_year_or_a_quarter():
    assert year_end_of(dt.date(2025, 1, 26), "FY") == "0126"  # NVIDIA: the last Sunday of January
    assert year_end_of(dt.date(2023, 8, 31), "Q1") == "0531"  # Oracle: three quarters before May's end
    assert year_end_of(dt.date(2023, 9, 1), "Q3") == "1201"  # Adobe: a 52/53-week year, about
    assert year_end_of(dt.date(2023, 6, 30), "Q2") == "1231" and year_end_of(dt.date(2023, 12, 31), "Q4") == "1231"
    assert year_end_of(dt.date(2023, 6, 30), None) is None and year_end_of(dt.date(2023, 6, 30), "9M") is None


def test_the_fiscal_year_an_events_day_falls_in():
    assert event_fiscal_year(dt.date(2026, 3, 2), "0126") == 2027
    assert event_fiscal_year(dt.date(2026, 1, 20), "0126") == 2026
    assert event_fiscal_year(dt.date(2019, 7, 3), "0531") == 2020
    assert event_fiscal_year(dt.date(2019, 11, 7), "0928") == 2020  # Apple's year ends in late September
    assert event_fiscal_year(dt.date(2023, 10, 4), "0203", shift=-1) == 2023  # a year numbered by its start
    # a calendar-year company's early January day is of the year it begins (a period ending on it is not)
    assert event_fiscal_year(dt.date(2024, 1, 5), "1231") == 2024
    assert event_fiscal_year(dt.date(2023, 12, 20), "1231") == 2023
    assert as_date("2026-03-02") == as_date(dt.date(2026, 3, 2)) == dt.date(2026, 3, 2)
