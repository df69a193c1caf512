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


MEMBERS = """ticker,start_date,end_date
AMD,1996-01-02,2013-09-23
AMD,2017-03-20,
FB,2013-12-23,2022-06-09
META,2022-06-09,
TSLA,2020-12-21,
PLTR,2024-09-23,
INTC,1996-01-02,2023-12-30
DOW,2019-04-02,
"""
# Real events, from the shared history: AMD left in 2013 and came back in 2017; Facebook's ticker FB became META
# on 2022-06-09 (one filer, CIK 1326801); Tesla joined on 2020-12-21, Palantir on 2024-09-23, Dow Inc. on
# 2019-04-02. Made up: Intel leaving on 2023-12-30 (it has not), to see a leaver's last period go.


def test_a_backfill_of_the_mirror_crawls_the_index_as_it_was(edgar_mirror, universe_csv, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from kernel.filing_records import read_records
    from kernel.storage import open_lake

    membership = tmp_path / "members.csv"
    membership.write_text(MEMBERS)
    env = {**os.environ, "LAKE_ROOT": str(tmp_path / "lake"), "UNIVERSE_CSV": universe_csv,
           "MEMBERSHIP_CSV": str(membership), "EDGAR_IDENTITY": "Secplat Tests tests@example.com"}
    secplat = str(Path(sys.executable).with_name("secplat"))
    done = subprocess.run([secplat, "crawl", "--mirror", str(edgar_mirror), "--tickers", "ALL", "--from",
                           "2018-01-01"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]  # a problem: Palantir filed nothing (here) while a member
    records = {r.accession: r for r in read_records(open_lake(str(tmp_path / "lake")))}
    by_ticker: dict[str, set] = {}
    for r in records.values():
        by_ticker.setdefault(r.ticker, set()).add((r.form, str(r.report_date)))
    assert ("10-K", "2017-12-30") in by_ticker["AMD"]  # back in the index in 2017
    meta = {r.report_date.isoformat() for r in records.values() if r.cik == 1326801 and r.form == "10-Q"}
    assert "2019-03-31" in meta  # Facebook's 10-Q under FB, the same filer as META
    assert ("10-Q", "2023-07-01") in by_ticker["INTC"] and ("10-K", "2023-12-30") not in by_ticker["INTC"]
    assert "PLTR" not in by_ticker  # its mirrored filings are of 2023, before it joined
    assert {f for f, _ in by_ticker["TSLA"]} >= {"10-K", "10-Q"} and "DOW" in by_ticker
    assert "more outside S&P 500 membership" in done.stdout
    report = json.loads(max((tmp_path / "lake" / "runs" / "crawl").glob("*.json")).read_text())
    assert [p.split(" but ")[0] for p in report["problems"]] == ["PLTR: S&P 500 member (PLTR 2024-09-23..now)"]
