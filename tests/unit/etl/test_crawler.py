"""Crawler behaviour on the project's own small SEC-layout fixture (runs without ../shared)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time

import pytest

from etl.crawl.crawler import Crawler, build_http
from etl.crawl.discovery import DiscoveryError, discover_filings
from etl.crawl.edgar_http import EdgarHttp, HostUnreachable
from etl.crawl.edgar_mirror import FaultPlan, MirrorServer
from etl.crawl.membership import resolve_universe
from etl.crawl.options import CrawlOptions
from etl.crawl.ratelimit import RateLimiter
from etl.crawl.universe import SecTickerMap, build_universe, read_constituents
from kernel.filing_records import read_records
from kernel.layout import MANIFEST_KEY
from kernel.storage import open_lake, read_parquet
from tests.conftest import free_port, make_settings
from tests.mirror_process import MirrorProcess


def _crawl(settings, lake=None, rate=None):
    lake = lake or open_lake(settings.lake_root, settings.s3_endpoint_url)
    options = CrawlOptions.from_settings(settings)
    http = build_http(options, RateLimiter(rate) if rate else None)
    companies, problems = resolve_universe(options, http)
    report = Crawler(options, lake, http=http).run(companies)
    return lake, report, problems


def test_discovery_follows_paginated_files_and_keeps_amendments(fixture_mirror):
    with MirrorServer(fixture_mirror["root"]) as server:
        s = make_settings(server, "unused")
        http = build_http(CrawlOptions.from_settings(s))
        refs = discover_filings(http, server.data_url, 1000001, forms=["10-K", "10-Q", "8-K"])
        forms = {r.accession: r.form for r in refs}
        assert forms["0001000001-19-000005"] == "10-K"  # from the older files[] page
        assert forms["0001000001-18-000007"] == "10-Q"
        assert forms["0001000001-24-000021"] == "10-Q/A"
        assert "0001000001-24-000031" not in forms  # Form 4 is not crawled
        assert [r.is_amendment for r in refs].count(True) == 1
        no_amend = discover_filings(http, server.data_url, 1000001, forms=["10-K", "10-Q", "8-K"],
                                    include_amendments=False)
        assert "0001000001-24-000021" not in {r.accession for r in no_amend}
        window = discover_filings(http, server.data_url, 1000001, forms=["10-K", "10-Q"],
                                  filed_from=dt.date(2019, 1, 1), filed_to=dt.date(2024, 3, 1))
        assert [r.accession for r in window] == ["0001000001-19-000005", "0001000001-24-000010"]
        # the older page is skipped entirely when the window excludes it
        server.clear_log()
        discover_filings(http, server.data_url, 1000001, forms=["10-K"], filed_from=dt.date(2024, 1, 1))
        assert not any("submissions-001" in e.path for e in server.log)


def test_crawl_writes_lake_manifest_and_is_idempotent(fixture_mirror, tmp_path):
    with MirrorServer(fixture_mirror["root"]) as server:
        s = make_settings(server, str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                          universe_tickers="ALL")
        lake, report, problems = _crawl(s)
        assert problems == []
        expected = [f for f in fixture_mirror["filings"] if f["form"] != "4"]
        assert report.fetched == len(expected) and report.failed == 0
        for f in expected:
            key = f"raw/edgar/{f['cik']}/{f['accession'].replace('-', '')}/{f['primary_document']}"
            assert lake.read_bytes(key) == f["html"]
            rec = json.loads(lake.read_bytes(key.rsplit("/", 1)[0] + "/filing.json"))
            assert rec["sha256"] == hashlib.sha256(f["html"]).hexdigest()
            assert rec["status"] == "ok" and rec["form"] == f["form"]
            assert rec["is_amendment"] == f["form"].endswith("/A")
        beta = [r for r in report.records if r.cik == 1000002]
        assert beta and beta[0].ticker == "BETA-B"  # dotted CSV ticker matched in SEC's dashed spelling
        table = read_parquet(lake, MANIFEST_KEY)
        assert table.num_rows == len(expected)
        assert set(table.column("accession").to_pylist()) == {f["accession"] for f in expected}

        server.clear_log()
        _, again, _ = _crawl(s)
        assert again.fetched == 0 and again.skipped == len(expected)
        assert not any("/Archives/" in e.path for e in server.log)


def test_404_is_recorded_as_missing_not_retried(fixture_mirror, tmp_path):
    victim = fixture_mirror["filings"][0]
    folder = fixture_mirror["root"] / "www.sec.gov/Archives/edgar/data" / str(victim["cik"])
    (folder / victim["accession"].replace("-", "") / f"{victim['primary_document']}.gz").unlink()
    with MirrorServer(fixture_mirror["root"]) as server:
        s = make_settings(server, str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                          universe_tickers="ACME")
        _, report, _ = _crawl(s)
        assert report.missing == 1
        missing = [r for r in report.records if r.status == "missing"]
        assert missing[0].accession == victim["accession"] and "404" in missing[0].error
        doc_requests = [e for e in server.log if e.path.endswith(victim["primary_document"])]
        assert len(doc_requests) == 1  # no retry on 404


def test_retry_after_is_honoured(fixture_mirror):
    with MirrorServer(fixture_mirror["root"], faults=FaultPlan(rate=1.0, kinds=("429",), retry_after=1)) as server:
        http = EdgarHttp("Tests tests@example.com", RateLimiter(10), max_retries=1, backoff_base=0.01)
        with pytest.raises(Exception, match="429"):
            http.get(f"{server.data_url}/submissions/CIK0001000001.json")
        times = [e.at for e in server.log]
        assert len(times) == 2 and times[1] - times[0] >= 0.95


def test_truncated_and_short_bodies_are_retried_until_whole(fixture_mirror):
    f = fixture_mirror["filings"][0]
    url_path = f"Archives/edgar/data/{f['cik']}/{f['accession'].replace('-', '')}/{f['primary_document']}"
    for kind in ("truncate", "short", "reset"):
        plan = FaultPlan(rate=0.5, kinds=(kind,), seed=3)
        with MirrorServer(fixture_mirror["root"], faults=plan) as server:
            http = EdgarHttp("Tests tests@example.com", RateLimiter(10), backoff_base=0.01, max_retries=10)
            resp = http.get(f"{server.www_url}/{url_path}", expected_size=len(f["html"]))
            assert resp.content == f["html"], kind
            assert any(e.outcome == kind for e in server.log), f"no {kind} fault was injected"


def test_unknown_tickers_and_share_classes(shared, universe_csv, edgar_mirror):
    sec = SecTickerMap.from_json(json.loads((edgar_mirror / "www.sec.gov/files/company_tickers.json").read_text()))
    rows = read_constituents(universe_csv)
    companies, problems = build_universe(rows, sec, ["GOOG", "GOOGL", "BRK.B", "XOM", "NOPE1"])
    by_ticker = {c.ticker: c for c in companies}
    assert by_ticker["GOOGL"].cik == 1652044 and set(by_ticker["GOOGL"].tickers) == {"GOOG", "GOOGL"}
    assert "GOOG" not in by_ticker  # one company per CIK
    assert by_ticker["BRK-B"].cik == 1067983
    assert by_ticker["XOM"].cik == 34088  # the CSV's new CIK is unknown to SEC's map: matched by symbol
    assert [p.ticker for p in problems] == ["NOPE1"] and "unknown ticker" in problems[0].reason
    everyone, problems = build_universe(rows, sec)
    assert len(everyone) >= 495 and not problems


def test_malformed_submissions_is_a_problem_not_a_crash(fixture_mirror, tmp_path):
    sub = fixture_mirror["root"] / "data.sec.gov/submissions/CIK0001000002.json"
    sub.write_text('{"cik": "0001000002", "filings": {"recent": {"accessionNumber": [1, 2], "form": ["10-K"]')
    with MirrorServer(fixture_mirror["root"]) as server:
        s = make_settings(server, str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                          universe_tickers="ALL", http_max_retries=1)
        _, report, _ = _crawl(s)
        assert any("BETA-B" in p and "malformed JSON" in p for p in report.problems)
        assert report.fetched == 6  # ACME's filings still arrive
        sub.write_text(json.dumps({"cik": "1", "filings": {"recent": {"accessionNumber": ["a"], "filingDate": [],
                                                                       "form": ["10-K"], "primaryDocument": ["x"]}}}))
        with pytest.raises(DiscoveryError, match="different lengths"):
            discover_filings(build_http(CrawlOptions.from_settings(s)), server.data_url, 1000002, forms=["10-K"])


def test_unreachable_host_fails_fast_with_a_clear_error(fixture_mirror, tmp_path):
    port = free_port()  # nothing listens here
    http = EdgarHttp("Tests tests@example.com", RateLimiter(10), backoff_base=0.01)
    with pytest.raises(HostUnreachable, match="unreachable"):
        http.get(f"http://127.0.0.1:{port}/data.sec.gov/submissions/CIK0000000001.json")
    # in discovery too: the host is down, not one company's submissions (a task retry is the cure)
    with pytest.raises(HostUnreachable):
        discover_filings(http, f"http://127.0.0.1:{port}", 1, forms=["10-K"])


def test_records_survive_a_rerun_after_failures(fixture_mirror, tmp_path):
    """A filing that failed (server errors beyond the retry budget) is fetched on the next run."""
    plan = FaultPlan(rate=1.0, kinds=("503",), path_pattern=r"\.htm$")
    with MirrorServer(fixture_mirror["root"], faults=plan) as server:
        s = make_settings(server, str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                          universe_tickers="BETA.B", http_max_retries=1)
        _, report, _ = _crawl(s)
        assert report.failed == 1 and "503" in report.records[0].error
        server.set_faults(FaultPlan())
        _, again, _ = _crawl(s)
        assert again.fetched == 1 and again.records[0].status == "ok"
        assert len(read_records(open_lake(s.lake_root))) == 1


def test_mirror_in_its_own_process_serves_logs_and_takes_new_faults(fixture_mirror):
    """The rate-limit tests read arrival times from a mirror process that does not share the client's GIL."""
    f = fixture_mirror["filings"][0]
    url_path = f"Archives/edgar/data/{f['cik']}/{f['accession'].replace('-', '')}/{f['primary_document']}"
    with MirrorProcess(fixture_mirror["root"]) as server:
        http = EdgarHttp("Tests tests@example.com", RateLimiter(10), backoff_base=0.01, max_retries=0)
        assert http.get(f"{server.www_url}/{url_path}").content == f["html"]
        server.set_faults(FaultPlan(rate=1.0, kinds=("503",)))
        with pytest.raises(Exception, match="503"):
            http.get(f"{server.www_url}/{url_path}")
        assert [e.outcome for e in server.log] == ["200", "503"]
        server.clear_log()
        assert server.log == [] and server.as_of is None
    with pytest.raises(FileNotFoundError, match="SEC's URL layout"):
        MirrorProcess(fixture_mirror["root"] / "nowhere")


def test_a_lake_crawled_without_exhibits_gets_them_chosen_on_the_next_run(fixture_mirror, tmp_path):
    """Records made with EXHIBIT_TYPES=none are reconsidered under the default: the kept index.json (the
    primary document alone) decides without a request; a record whose index.json is gone falls back to the
    filing's index page, and a filing with no list at all is a record, never a failed crawl."""
    with MirrorServer(fixture_mirror["root"]) as server:
        s = make_settings(server, str(tmp_path / "lake"), universe_csv=fixture_mirror["universe_csv"],
                          universe_tickers="ALL", exhibit_types="none")
        lake, first, _ = _crawl(s)
        assert {r.exhibit_types for r in first.records} == {"none"}
        gone = first.records[0]
        lake.delete(gone.index_key)
        server.clear_log()
        _, second, _ = _crawl(s.model_copy(update={"exhibit_types": "EX-99*"}))
        assert second.fetched == 0 and second.failed == 0
        by = {r.accession: r for r in second.records}
        assert {r.exhibit_types for r in by.values()} == {"EX-99*"}
        others = [r for a, r in by.items() if a != gone.accession]
        assert {r.exhibit_source for r in others} == {"directory listing (the primary document only)"}
        asked = {e.path.rsplit("/", 1)[1] for e in server.log if "/Archives/" in e.path}
        assert asked == {f"{gone.accession}-index.html", f"{gone.accession}.txt"}  # 404s here: recorded
        assert [e.status for e in by[gone.accession].exhibits] == ["failed"]


def test_crawl_options_are_plain_values_read_once(tmp_path):
    """The options carry values, not the settings or a live client: they compare and pickle as data; the
    live site without an identity is refused when they are made."""
    import dataclasses
    import pickle

    from kernel.settings import ConfigError, load_settings

    s = load_settings(lake_root=str(tmp_path), edgar_identity="Jane Doe jane@example.com", forms="10-K,8-K",
                      universe_tickers="KO,PEP", edgar_mirror=None)
    options = CrawlOptions.from_settings(s, edgar_rate_limit=500.0)
    assert options.user_agent == "Jane Doe jane@example.com" and options.forms == ("10-K", "8-K")
    assert options.universe_tickers == ("KO", "PEP") and options.edgar_rate_limit == 500.0
    assert pickle.loads(pickle.dumps(options)) == options
    assert all(not hasattr(v, "__dict__") or dataclasses.is_dataclass(v) for v in vars(options).values())
    with pytest.raises(ConfigError, match="EDGAR_IDENTITY is not set"):
        CrawlOptions.from_settings(load_settings(lake_root=str(tmp_path), edgar_identity=None))


def test_sec_block_stops_every_worker_at_once_and_a_rerun_after_it_resumes(fixture_mirror, tmp_path, monkeypatch,
                                                                           capsys):
    """SEC answers a throttled client with a 403 block page for about ten minutes (here 3 s). The crawl stops
    within a second of the first block answer, sends nothing more during the block (nor does a rerun inside
    it: the block is recorded in the lake), exits 3 with one line; a rerun after it fetches the rest only."""
    from shell.cli import main

    block_s = 3.0
    plan = FaultPlan(block_after=8, block_seconds=block_s)
    with MirrorServer(fixture_mirror["root"], faults=plan) as server:
        for name, value in {"EDGAR_WWW_URL": server.www_url, "EDGAR_DATA_URL": server.data_url,
                            "EDGAR_IDENTITY": "Secplat Tests tests@example.com", "HTTP_BACKOFF_BASE": "0.05",
                            "UNIVERSE_CSV": fixture_mirror["universe_csv"], "CRAWL_WORKERS": "4"}.items():
            monkeypatch.setenv(name, value)
        args = ["crawl", "--lake", str(tmp_path / "lake"), "--tickers", "ALL"]
        assert main(args) == 3
        err = capsys.readouterr().err
        assert err.startswith("error: EDGAR blocked this client (HTTP 403, SEC's block page: ") and err.count("\n") == 1
        assert "retry after" in err
        first = min(e.at for e in server.log if e.outcome == "403 blocked")
        assert max(e.at for e in server.log) < first + 1.0  # every worker stopped within a second
        blocked_log = len(server.log)
        assert main(args) == 3  # a rerun inside the block sends nothing
        assert len(server.log) == blocked_log and "EDGAR blocked this client" in capsys.readouterr().err

        time.sleep(max(0.0, first + block_s - time.time()) + 0.2)
        assert main(args) == 0, capsys.readouterr().err
        docs = [e.path for e in server.log if e.outcome == "200" and "/Archives/edgar/data/" in e.path
                and not e.path.endswith((".json", "-index.html"))]
        assert len(docs) == len(set(docs)) and docs  # nothing fetched twice
        lake = open_lake(str(tmp_path / "lake"))
        records = read_records(lake)
        assert {r.status for r in records} == {"ok"}
        assert len(records) == len([f for f in fixture_mirror["filings"] if f["form"] != "4"])


def test_block_board_on_literals():
    from etl.crawl.edgar_http import BlockBoard, Blocked

    posted = []
    board = BlockBoard(on_block=lambda until, reason, url: posted.append((until, reason, url)))
    board.check("u0")  # nothing posted: no block
    now = time.time()
    blocked = board.post("u1", now + 60, "HTTP 403")
    assert isinstance(blocked, Blocked) and blocked.until == now + 60 and "retry after" in str(blocked)
    board.post("u2", now + 30, "HTTP 403")  # a worker's late 403: the block already stands, not posted twice
    assert [p[2] for p in posted] == ["u1"]
    with pytest.raises(Blocked):
        board.check("u3")
    assert BlockBoard(until=now - 1).check("u4") is None  # an old block is over
