"""S&P 500 membership by date on literal periods (real index events where a row names one)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.membership import (
    MemberPeriod,
    MembershipError,
    belongs,
    member_on,
    members_in_window,
    parse_membership,
)

D = dt.date.fromisoformat
ROWS = """ticker,start_date,end_date
FB,2013-12-23,2022-06-09
META,2022-06-09,
PCG,1996-01-02,2019-01-18
PCG,2022-10-03,
AAL,1996-01-02,1997-01-15
AAL,2015-03-23,2024-09-23
TFX,2019-01-18,2025-04-24
"""
# FB renamed META on 2022-06-09 (one company, two tickers); PCG left on 2019-01-18 (bankruptcy) and came back on
# 2022-10-03; AAL named another filer in 1996-1997 than American Airlines from 2015; TFX joined in PCG's place.


def _periods(ticker: str) -> list[MemberPeriod]:
    return [p for p in parse_membership(ROWS, "t.csv") if p.ticker == ticker]


def test_a_period_holds_from_its_start_to_the_day_before_its_end():
    fb, (meta,) = _periods("FB"), _periods("META")
    assert member_on(fb, D("2022-06-08")) and not member_on(fb, D("2022-06-09"))
    assert member_on([meta], D("2022-06-09")) and not member_on([meta], D("2022-06-08"))
    assert member_on([meta], D("2030-01-01"))  # still a member


def test_a_filing_belongs_by_its_reported_period_end_else_its_filing_date():
    tfx = _periods("TFX")  # joined 2019-01-18
    assert not belongs(tfx, D("2018-12-31"), D("2019-02-25"))  # its FY2018 10-K: the year ended before it joined
    assert belongs(tfx, D("2019-12-31"), D("2020-02-20"))  # joined mid-year: that year's 10-K belongs
    assert belongs(tfx, D("2025-03-30"), D("2025-05-01"))  # left mid-quarter (2025-04-24): Q1 ended before
    assert not belongs(tfx, D("2025-06-29"), D("2025-07-31"))  # the quarter it left in ended after it
    assert belongs(tfx, None, D("2019-01-18")) and not belongs(tfx, None, D("2019-01-17"))  # no period: filed


def test_a_ticker_that_left_and_came_back_and_a_reused_ticker():
    pcg, aal = _periods("PCG"), _periods("AAL")
    assert member_on(pcg, D("2018-12-31")) and not member_on(pcg, D("2020-12-31")) and member_on(pcg, D("2023-12-31"))
    window = members_in_window(parse_membership(ROWS, "t.csv"), D("2015-01-01"), D("2016-12-31"))
    assert set(window) == {"FB", "PCG", "AAL"} and window["AAL"] == [aal[1]]  # AAL's 1996 period is not this one
    assert set(members_in_window(parse_membership(ROWS, "t.csv"), D("2019-01-18"), D("2019-01-18"))) == \
        {"FB", "AAL", "TFX"}  # PCG left that day, TFX joined it


@pytest.mark.parametrize("text, message", [
    ("ticker,start_date,end_date\nKO,2015-13-01,\n", "row 2: start_date '2015-13-01' is not a date"),
    ("ticker,start_date,end_date\nKO,2015-01-01,\nPEP,2016-01-01,2015-01-01\n", "row 3: PEP ends (2015-01-01) before"),
    ("ticker,start_date,end_date,sector\nKO,2015-01-01,,x\n", "unknown column(s) sector"),
    ("ticker,start\nKO,2015-01-01\n", "missing column(s) end_date, start_date"),
    ("ticker,start_date,end_date\n,2015-01-01,\n", "row 2: no ticker"),
    ("ticker,start_date,end_date\n", "no rows"),
])
def test_a_bad_membership_file_is_refused_naming_the_row(text, message):
    with pytest.raises(MembershipError, match=None) as caught:
        parse_membership(text, "m.csv")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_reviewed_filers_cover_the_days_of_a_period_they_name():
    from domain.membership import Filer, assign, reviewed_filers

    google = Filer("GOOGL", 1288776, "Google Inc.", None, D("2015-10-02"))
    period = MemberPeriod("GOOGL", D("2006-04-03"))
    assert assign(period, D("2014-01-01"), D("2014-12-31"), [google]) == ([google], False)  # Google Inc. only
    assert assign(period, D("2015-01-01"), D("2016-12-31"), [google]) == ([google], True)  # and Alphabet after
    assert assign(period, D("2016-01-01"), D("2016-12-31"), [google]) == ([], True)  # Alphabet only
    assert assign(period, None, None, []) == ([], True)
    fb = MemberPeriod("FB", D("2013-12-23"), D("2022-06-09"))
    mapped = reviewed_filers()["FB"]
    assert assign(fb, D("2015-01-01"), None, mapped) == (mapped, False) and mapped[0].cik == 1326801
    assert all(f.cik > 0 and f.name for fs in reviewed_filers().values() for f in fs)
