"""The crawl's company directory on literal inputs: what a run learns is merged into what earlier runs
recorded, and the lake holds it whole."""

from __future__ import annotations

import datetime as dt

from etl.crawl.companies import merged, record_names
from etl.crawl.discovery import filer_names
from etl.crawl.universe import Company
from kernel.company_directory import read_directory, rebuild_directory
from kernel.layout import COMPANIES_KEY, company_record_key
from kernel.storage import LocalLake

SUBMISSIONS = {"name": "Meta Platforms, Inc.", "tickers": ["META"],
               "formerNames": [{"name": "FACEBOOK INC", "from": "2012-05-18T00:00:00.000Z", "to": "2021-10-28T00:00:00.000Z"},
                               {"bad": "entry"}]}


def test_filer_names_read_the_submissions_and_skip_what_is_malformed():
    names = filer_names(SUBMISSIONS)
    assert names["edgar_name"] == "Meta Platforms, Inc." and names["tickers"] == ["META"]
    assert names["former_names"] == [{"name": "FACEBOOK INC", "since": dt.date(2012, 5, 18),
                                      "until": dt.date(2021, 10, 28)}]
    assert filer_names({"name": 5, "formerNames": "x"}) == {"edgar_name": None, "former_names": [], "tickers": []}


def test_a_run_updates_what_it_read_and_keeps_the_rest(tmp_path):
    lake = LocalLake(tmp_path)
    meta = Company(1326801, "META", "Meta Platforms", tickers=("META",), sec_title="Meta Platforms, Inc.")
    ford = Company(37996, "F", "Ford Motor Company", tickers=("F",), sec_title="FORD MOTOR CO")
    assert record_names(lake, [meta, ford], {1326801: filer_names(SUBMISSIONS)}) == 2
    assert lake.exists(COMPANIES_KEY) and lake.exists(company_record_key(37996))
    first = read_directory(lake)
    assert first[1326801].former_names[0].name == "FACEBOOK INC" and first[37996].edgar_name is None
    # a later crawl of Ford alone (the nightly DAG maps the crawl over companies): Meta's record stays
    assert record_names(lake, [ford], {37996: {"edgar_name": "FORD MOTOR CO", "former_names": [],
                                               "tickers": ["F", "F-PB"]}}) == 2
    later = read_directory(lake)
    assert later[1326801] == first[1326801]
    assert later[37996].edgar_name == "FORD MOTOR CO" and later[37996].tickers == ["F", "F-PB"]
    # a run that resolved Ford but could not read its submissions keeps what was read before
    assert merged(later[37996], ford, None, dt.date(2026, 11, 28)) == later[37996]


def test_a_directory_lost_to_a_concurrent_writer_is_rebuilt_from_the_records(tmp_path):
    lake = LocalLake(tmp_path)
    meta = Company(1326801, "META", "Meta Platforms", tickers=("META",))
    record_names(lake, [meta], {})
    lake.write_bytes(COMPANIES_KEY, b'{"companies": []}')  # another task's rebuild, from before this record
    assert read_directory(lake) == {}
    assert rebuild_directory(lake) == 1 and set(read_directory(lake)) == {1326801}


def test_an_unreadable_directory_is_an_empty_one(tmp_path):
    lake = LocalLake(tmp_path)
    lake.write_bytes(COMPANIES_KEY, b"{not json")
    assert read_directory(lake) == {}


def test_a_corrected_membership_period_replaces_the_one_recorded():
    """Issue 56: a membership file corrected since (the period that started on a day now ends earlier)
    replaces the recorded period, which convert then re-flags documents by; another window's periods stay."""
    from domain.membership import MemberPeriod

    start, early = dt.date(2010, 1, 4), dt.date(2005, 3, 1)
    first = Company(7, "T", "T Corp", tickers=("T",), member_periods=(MemberPeriod("T", early, dt.date(2007, 1, 2)),
                                                                       MemberPeriod("T", start, None)))
    old = merged(None, first, None, dt.date(2026, 11, 27))
    corrected = Company(7, "T", "T Corp", tickers=("T",), member_periods=(MemberPeriod("T", start, dt.date(2016, 9, 19)),))
    spans = merged(old, corrected, None, dt.date(2026, 11, 28)).sp500_periods
    assert [(s.start, s.end) for s in spans] == [(early, dt.date(2007, 1, 2)), (start, dt.date(2016, 9, 19))]
