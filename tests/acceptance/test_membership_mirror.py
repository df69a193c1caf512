"""Membership by date against the shared data: the reviewed renames agree with SEC's ticker map, and the
shared history reads whole (1996-2025, every row a period)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from domain.membership import members_in_window
from domain.vocabulary import load
from etl.crawl.membership import read_membership, window_universe
from etl.crawl.universe import SecTickerMap, read_constituents

pytestmark = pytest.mark.shared


def test_every_reviewed_rename_is_the_filer_sec_lists_under_its_later_ticker(edgar_mirror):
    sec = SecTickerMap.from_json(json.loads((edgar_mirror / "www.sec.gov/files/company_tickers.json").read_text()))
    renames = [f for f in load("former_tickers")["filers"] if f.get("later")]
    assert len(renames) >= 20
    wrong = [f"{f['ticker']}: {f['cik']} but {f['later']} is {sec.by_ticker.get(f['later'])}" for f in renames
             if sec.by_ticker.get(f["later"], (None,))[0] != f["cik"]]
    assert not wrong, wrong


def test_the_shared_history_gives_each_years_universe(shared, edgar_mirror, universe_csv):
    periods = read_membership(str(shared / "data" / "sp500-membership" / "sp500_ticker_start_end.csv"))
    assert len(periods) > 1200
    sec = SecTickerMap.from_json(json.loads((edgar_mirror / "www.sec.gov/files/company_tickers.json").read_text()))
    first, last = dt.date(2016, 1, 1), dt.date(2016, 12, 31)
    companies, problems = window_universe(read_constituents(universe_csv), sec, periods, first, last)
    members = members_in_window(periods, first, last)
    placed = {t for c in companies for t in c.tickers} | {p.ticker for p in problems}
    assert placed == set(members)  # every member ticker is a company's or a reported problem, none dropped
    meta = next(c for c in companies if c.cik == 1326801)
    assert meta.tickers == ("FB",) and meta.member_periods[0].end == dt.date(2022, 6, 9)
    assert len(companies) > 440 and len(problems) < 80
