"""The universe of a backfill window from S&P 500 membership by date: literal inputs for the resolution, and
crawls of the project's fixture mirror with a membership file written here."""

from __future__ import annotations

import datetime as dt
import json

from domain.membership import Filer, parse_membership
from etl.crawl.edgar_mirror import MirrorServer
from etl.crawl.membership import window_universe
from etl.crawl.universe import SecTickerMap
from kernel.filing_records import read_records
from kernel.storage import open_lake

D = dt.date.fromisoformat
SEC = SecTickerMap.from_json({"0": {"cik_str": 1326801, "ticker": "META", "title": "Meta Platforms, Inc."},
                              "1": {"cik_str": 6201, "ticker": "AAL", "title": "American Airlines Group Inc."},
                              "2": {"cik_str": 21344, "ticker": "KO", "title": "COCA COLA CO"}})
ROWS = [{"Symbol": "META", "Security": "Meta Platforms", "CIK": "1326801"},
        {"Symbol": "AAL", "Security": "American Airlines Group", "CIK": "6201"},
        {"Symbol": "KO", "Security": "Coca-Cola", "CIK": "21344"}]
MEMBERSHIP = parse_membership("""ticker,start_date,end_date
FB,2013-12-23,2022-06-09
META,2022-06-09,
AAL,1996-01-02,1997-01-15
AAL,2015-03-23,2024-09-23
KO,1996-01-02,
XYZ,2010-01-01,2017-05-01
""", "literal")
# FB became META on 2022-06-09 (one filer); AAL named another company in 1996-1997 than American Airlines
# from 2015 (the reviewed line below is made up for the test: CIK 999 stands for that earlier filer); XYZ: a
# former member no source resolves.
FILERS = {"FB": [Filer("FB", 1326801, "Facebook, Inc.", None, D("2022-06-09"))],
          "AAL": [Filer("AAL", 999, "An earlier AAL", None, D("1998-01-01"))]}


def _universe(first, last, only=None):
    companies, problems = window_universe(ROWS, SEC, MEMBERSHIP, D(first), D(last) if last else None, only, FILERS)
    return {c.cik: c for c in companies}, problems


def test_the_window_universe_is_every_member_in_it_one_company_per_filer():
    companies, problems = _universe("2015-01-01", "2016-12-31")
    assert set(companies) == {1326801, 6201, 21344}  # FB resolved to Meta's CIK; no META period in 2015-2016
    assert companies[1326801].tickers == ("FB",) and companies[1326801].ticker == "FB"
    assert [p.ticker for p in companies[6201].member_periods] == ["AAL"]
    assert companies[6201].member_periods[0].start == D("2015-03-23")  # the 1996 period is another filer's
    assert [p.ticker for p in problems] == ["XYZ"] and "2010-01-01..2017-05-01" in problems[0].reason

    both, _ = _universe("2021-01-01", None)
    assert both[1326801].tickers == ("FB", "META") and both[1326801].ticker == "META"  # one member, two tickers


def test_a_reused_ticker_resolves_by_period():
    early, problems = _universe("1996-01-01", "1997-12-31")
    assert 999 in early and 6201 not in early and early[999].name == "An earlier AAL"
    assert [p.ticker for p in problems] == []  # XYZ joined later


def test_named_tickers_keep_their_companies_and_say_when_they_were_not_members():
    companies, problems = _universe("2015-01-01", "2016-12-31", only=["META", "TSLA", "KO"])
    assert set(companies) == {1326801, 21344}  # META named: Facebook's filer in 2015-2016
    assert [(p.ticker, "never an S&P 500 member" in p.reason) for p in problems] == [("TSLA", True)]
    companies, problems = _universe("1996-01-01", "1997-12-31", only=["META"])
    assert not companies and "not an S&P 500 member in 1996-01-01..1997-12-31 (member META 2022-06-09..now" \
        in problems[0].reason


MEMBERS = """ticker,start_date,end_date
ACME,2019-01-01,
BETA.B,2015-01-01,2023-06-30
OLDCO,2010-01-01,2019-06-01
"""
# ACME joined on 2019-01-01 (its FY2018 10-K and 2018 10-Q are before it); BETA left mid-2023 (its FY2023 10-K
# is after it); OLDCO: a former member SEC's map does not know.


def _crawl_env(monkeypatch, server, fixture_mirror, membership):
    for name, value in {"EDGAR_WWW_URL": server.www_url, "EDGAR_DATA_URL": server.data_url,
                        "EDGAR_IDENTITY": "Secplat Tests tests@example.com", "HTTP_BACKOFF_BASE": "0.05",
                        "UNIVERSE_CSV": fixture_mirror["universe_csv"], "MEMBERSHIP_CSV": str(membership)}.items():
        monkeypatch.setenv(name, value)


def test_a_backfill_crawls_the_index_as_it_was(fixture_mirror, tmp_path, monkeypatch, capsys):
    from shell.cli import main

    membership = tmp_path / "members.csv"
    membership.write_text(MEMBERS)
    with MirrorServer(fixture_mirror["root"]) as server:
        _crawl_env(monkeypatch, server, fixture_mirror, membership)
        code = main(["crawl", "--lake", str(tmp_path / "lake"), "--tickers", "ALL", "--from", "2018-01-01"])
    out, err = capsys.readouterr()
    assert code == 1, err  # problems: OLDCO unresolved, BETA filed nothing while a member
    records = {r.accession: r for r in read_records(open_lake(str(tmp_path / "lake")))}
    assert sorted(records) == ["0001000001-24-000010", "0001000001-24-000020", "0001000001-24-000021",
                               "0001000001-24-000030"]  # ACME's filings of periods ending after it joined
    assert "(3 more outside S&P 500 membership)" in out
    report = json.loads(max((tmp_path / "lake" / "runs" / "crawl").glob("*.json")).read_text())
    problems = "\n".join(report["problems"])
    assert "OLDCO: S&P 500 member OLDCO 2010-01-01..2019-06-01: no filer known" in problems
    assert "BETA-B: S&P 500 member (BETA-B 2015-01-01..2023-06-30) but CIK 1000002" in problems
    directory = json.loads((tmp_path / "lake" / "manifests" / "companies.json").read_text())
    acme = next(c for c in directory["companies"] if c["cik"] == 1000001)
    assert acme["sp500_periods"] == [{"ticker": "ACME", "start": "2019-01-01", "end": None}]

    # the nightly's short recent window: today's constituents, nothing left out by membership
    with MirrorServer(fixture_mirror["root"]) as server:
        _crawl_env(monkeypatch, server, fixture_mirror, membership)
        today = dt.datetime.now(dt.UTC).date()
        assert main(["crawl", "--lake", str(tmp_path / "nightly"), "--tickers", "ALL",
                     "--from", str(today - dt.timedelta(days=1))]) == 0, capsys.readouterr().err


def test_a_bad_membership_file_is_refused_in_one_line_and_nothing_is_crawled(fixture_mirror, tmp_path,
                                                                           monkeypatch, capsys):
    from shell.cli import main

    membership = tmp_path / "members.csv"
    membership.write_text("ticker,start_date,end_date\nACME,2019-01-01,\nBETA.B,2020-02-30,\n")
    with MirrorServer(fixture_mirror["root"]) as server:
        _crawl_env(monkeypatch, server, fixture_mirror, membership)
        code = main(["crawl", "--lake", str(tmp_path / "lake"), "--tickers", "ALL", "--from", "2018-01-01"])
        assert not server.log
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: membership file {membership}, row 3: start_date '2020-02-30' is not a date")


def test_a_backfill_plan_names_each_periods_members_and_the_nightly_todays(fixture_mirror, tmp_path):
    from kernel.settings import load_settings
    from shell.tasks import plan_run

    membership = tmp_path / "members.csv"
    membership.write_text(MEMBERS)
    settings = load_settings(lake_root=str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                             membership_csv=str(membership), universe_tickers="ALL", edgar_mirror=str(tmp_path))
    backfill = plan_run({"filed_from": "2016-01-01", "filed_to": "2018-12-31"}, None, None, settings)
    assert backfill["tickers"] == ["BETA-B", "OLDCO"]  # ACME joined in 2019; OLDCO has left since
    today = dt.datetime.now(dt.UTC)
    nightly = plan_run({}, today - dt.timedelta(days=1), today, settings)
    assert nightly["tickers"] == ["ACME", "BETA-B"]  # today's constituents


def test_each_document_says_whether_its_company_was_a_member_on_its_period(fixture_mirror, tmp_path, monkeypatch,
                                                                          capsys):
    """Today's list crawled (no backfill): the directory records the periods, and convert flags each
    document by the rule (ACME joined on 2024-03-01: its FY2023 10-K is before, its 2024 10-Qs after)."""
    import pyarrow.parquet as pq

    from shell.cli import main

    membership = tmp_path / "members.csv"
    membership.write_text("ticker,start_date,end_date\nACME,2024-03-01,\nBETA.B,2015-01-01,2023-06-30\n")
    lake = tmp_path / "lake"
    with MirrorServer(fixture_mirror["root"]) as server:
        _crawl_env(monkeypatch, server, fixture_mirror, membership)
        assert main(["crawl", "--lake", str(lake), "--tickers", "ALL", "--forms", "10-K,10-Q"]) == 0, \
            capsys.readouterr().err
    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert main(["convert"]) == 0, capsys.readouterr().err
    rows = pq.read_table(lake / "datasets" / "documents").to_pylist()
    flags = {(r["ticker"], str(r["period_end"])): r["sp500_member"] for r in rows}
    assert flags[("ACME", "2023-12-31")] is False and flags[("ACME", "2024-03-31")] is True
    assert flags[("ACME", "2018-12-31")] is False and flags[("BETA-B", "2023-12-31")] is False
    assert main(["convert"]) == 0 and "0 converted" in capsys.readouterr().out  # idempotent


def test_the_nightly_notices_a_new_member_and_crawls_its_history(fixture_mirror, tmp_path, monkeypatch):
    """ACME joined the index yesterday: yesterday's nightly names it a new member and crawls its filings
    since HISTORY_FROM (not only the window's), flagged by the rule; BETA's crawl keeps to the window."""
    from shell.tasks import companies_to_crawl, crawl_company, plan_run

    today = dt.datetime.now(dt.UTC)
    joined = (today - dt.timedelta(days=1)).date()
    membership = tmp_path / "members.csv"
    membership.write_text(f"ticker,start_date,end_date\nACME,{joined},\nBETA.B,2015-01-01,\n")
    with MirrorServer(fixture_mirror["root"]) as server:
        _crawl_env(monkeypatch, server, fixture_mirror, membership)
        for name, value in {"LAKE_ROOT": str(tmp_path / "lake"), "HISTORY_FROM": "2019-01-01",
                            "UNIVERSE_TICKERS": "ALL"}.items():
            monkeypatch.setenv(name, value)
        plan = plan_run({}, today - dt.timedelta(days=1), today)
        assert plan["new_members"] == ["ACME"] and plan["history_from"] == "2019-01-01"
        assert companies_to_crawl(plan) == ["ACME"]  # nothing filed in the window: only the new member
        done = crawl_company(plan, "ACME")
        assert done["fetched"] == 5 and not done["problems"]  # since 2019-01-01: the 2018 10-Q is before
        assert crawl_company(plan, "BETA-B")["discovered"] == 0  # the window only
    directory = json.loads((tmp_path / "lake" / "manifests" / "companies.json").read_text())
    acme = next(c for c in directory["companies"] if c["cik"] == 1000001)
    assert acme["sp500_periods"] == [{"ticker": "ACME", "start": str(joined), "end": None}]
