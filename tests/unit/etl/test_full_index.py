"""Discovery that scales: a historical window finds its filers in EDGAR's quarterly form index (one request a
quarter, finished quarters kept in the lake) instead of one submissions request per company."""

from __future__ import annotations

import datetime as dt

import pytest

from etl.crawl import crawler as crawler_module
from etl.crawl.crawler import Crawler, build_http
from etl.crawl.edgar_mirror import MirrorServer
from etl.crawl.full_index import FullIndexError, is_final, parse, quarter_end, quarters, render
from etl.crawl.membership import resolve_universe
from etl.crawl.options import CrawlOptions
from kernel.filing_records import read_records
from kernel.layout import full_index_key
from kernel.run_policy import historical_window
from kernel.storage import LocalLake
from tests.conftest import make_settings

EDGAR_SAMPLE = """Description:           Master Index of EDGAR Dissemination Feed by Form Type
Last Data Received:    April 30, 2016
Comments:              webmaster@sec.gov
Anonymous FTP:         ftp://ftp.sec.gov/edgar/
 
 
 
 
Form Type   Company Name                                                  CIK         Date Filed  File Name
---------------------------------------------------------------------------------------------------------------------------------------------
1-A         American Homeowner Preservation 2015A LLC                     1667307     2016-04-26  edgar/data/1667307/0001214659-16-010965.txt         
SC 13G/A    Soci\xe9t\xe9 G\xe9n\xe9rale                                              1000001     2016-04-27  edgar/data/1000001/0001000001-16-000001.txt         
10-K        broken row without a file name                                1000002     2016-04-28
"""  # noqa: W291, W293 - EDGAR's own trailing spaces


def test_edgar_layout_parses_and_renders_back():
    entries = parse(EDGAR_SAMPLE, "sample")
    assert [(e.form, e.cik, e.filed, e.accession) for e in entries] == [
        ("1-A", 1667307, dt.date(2016, 4, 26), "0001214659-16-010965"),
        ("SC 13G/A", 1000001, dt.date(2016, 4, 27), "0001000001-16-000001")]  # a form type with a space
    assert entries[0].company == "American Homeowner Preservation 2015A LLC"
    text = render(entries, dt.date(2016, 4, 30))
    assert text.splitlines()[:10] == EDGAR_SAMPLE.splitlines()[:10]  # the header, byte for byte
    assert text.splitlines()[10] == EDGAR_SAMPLE.splitlines()[10]  # a row, column for column
    assert parse(text, "rendered") == entries
    with pytest.raises(FullIndexError, match="no form index header"):
        parse("<html>Not Found</html>", "junk")


def test_quarters_and_the_history_rule():
    assert quarters(dt.date(2023, 11, 5), dt.date(2024, 4, 1)) == [(2023, 4), (2024, 1), (2024, 2)]
    assert quarter_end(2024, 1) == dt.date(2024, 3, 31) and quarter_end(2023, 4) == dt.date(2023, 12, 31)
    today = dt.date(2026, 11, 23)
    assert historical_window(dt.date(2024, 5, 1), dt.date(2024, 5, 31), today)
    assert not historical_window(dt.date(2026, 11, 20), dt.date(2026, 11, 22), today)  # a nightly window
    assert not historical_window(dt.date(2024, 5, 1), None, today)  # open: up to today


def test_only_a_complete_quarter_is_final():
    """2024 Q1 ended on a Sunday: EDGAR's last data of Friday March 29 closes it, Thursday's does not."""
    def header(day: dt.date) -> str:
        return render([], day)

    assert is_final(header(dt.date(2024, 3, 29)), 2024, 1)
    assert not is_final(header(dt.date(2024, 3, 28)), 2024, 1)
    assert is_final(header(dt.date(2024, 6, 30)), 2024, 2) and not is_final(header(dt.date(2024, 5, 10)), 2024, 2)
    assert not is_final("no header", 2024, 1)


def _crawl(server, lake_root, **kw):
    settings = make_settings(server, str(lake_root), universe_tickers="ACME,BETA-B", forms="10-K,10-Q,8-K", **kw)
    lake = LocalLake(lake_root)
    options = CrawlOptions.from_settings(settings)
    http = build_http(options)
    companies, _ = resolve_universe(options, http)
    server.clear_log()
    report = Crawler(options, lake, http=http).run(companies)
    return lake, report, [e.path for e in server.log]


def test_a_historical_window_asks_only_the_companies_that_filed(fixture_mirror, tmp_path, monkeypatch):
    window = {"universe_csv": fixture_mirror["universe_csv"], "filed_from": "2024-05-01", "filed_to": "2024-05-31"}
    with MirrorServer(fixture_mirror["root"]) as server:
        lake, report, paths = _crawl(server, tmp_path / "index", **window)
        assert report.index_filings == 2 and not report.problems  # ACME's 10-Q and 10-Q/A
        assert sum("/full-index/2024/QTR2/form.idx" in p for p in paths) == 1
        assert not any("CIK0001000002" in p for p in paths)  # BETA filed nothing in May: not asked
        assert lake.exists(full_index_key(2024, 2))  # a finished quarter is kept
        again, _, paths = _crawl(server, tmp_path / "index", **window)
        assert not any("full-index" in p for p in paths)  # and read from the lake afterwards
        monkeypatch.setattr(crawler_module, "historical_window", lambda *a: False)
        reference, ref_report, paths = _crawl(server, tmp_path / "submissions", **window)
        assert any("CIK0001000002" in p for p in paths) and ref_report.index_filings is None
    records = {(r.accession, r.form, r.primary_document, r.status) for r in read_records(lake)}
    assert records == {(r.accession, r.form, r.primary_document, r.status) for r in read_records(reference)}
    assert {a for a, *_ in records} == {"0001000001-24-000020", "0001000001-24-000021"}


def test_an_unreadable_index_falls_back_to_every_companys_submissions(fixture_mirror, tmp_path):
    broken = fixture_mirror["root"] / "www.sec.gov/Archives/edgar/full-index/2024/QTR2"
    broken.mkdir(parents=True)
    (broken / "form.idx").write_text("<html>maintenance</html>")
    window = {"universe_csv": fixture_mirror["universe_csv"], "filed_from": "2024-05-01", "filed_to": "2024-05-31",
              "http_max_retries": 1}
    with MirrorServer(fixture_mirror["root"]) as server:
        lake, report, paths = _crawl(server, tmp_path / "lake", **window)
    assert any("full index 2024 QTR2" in p and "submissions are read instead" in p for p in report.problems)
    assert any("CIK0001000002" in p for p in paths)
    assert {r.accession for r in read_records(lake)} == {"0001000001-24-000020", "0001000001-24-000021"}
    assert not lake.exists(full_index_key(2024, 2))


def test_the_mirror_serves_each_quarter_from_its_submissions(fixture_mirror):
    with MirrorServer(fixture_mirror["root"], as_of=dt.date(2024, 5, 10)) as server:
        http = build_http(CrawlOptions.from_settings(make_settings(server, "unused")))
        text = http.get(f"{server.www_url}/Archives/edgar/full-index/2024/QTR2/form.idx").content.decode()
        older = http.get(f"{server.www_url}/Archives/edgar/full-index/2018/QTR4/form.idx").content.decode()
    entries = parse(text, "mirror")
    assert "Last Data Received:    May 10, 2024" in text and not is_final(text, 2024, 2)  # cut at as_of: not kept
    assert {(e.form, e.accession) for e in entries} == {("10-Q", "0001000001-24-000020")}
    assert [(e.form, e.cik, e.company) for e in parse(older, "mirror")] == [("10-Q", 1000001, "ACME CORP")]
