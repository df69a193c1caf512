"""Acceptance of the crawler on the real EDGAR mirror in ../shared, with the lake on local disk and on S3."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from etl.crawl.crawler import Crawler, build_http
from etl.crawl.edgar_mirror import FaultPlan, MirrorServer
from etl.crawl.membership import resolve_universe
from etl.crawl.options import CrawlOptions
from etl.crawl.ratelimit import RateLimiter
from kernel.filing_records import read_records
from kernel.layout import MANIFEST_KEY
from kernel.storage import open_lake, read_parquet
from tests.conftest import ROOT, make_settings
from tests.mirror_process import MirrorProcess, max_requests_per_window

pytestmark = pytest.mark.shared

LIFTED = 500.0  # requests/s for tests that do not measure the limiter


def crawl(settings, rate: float | None = None):
    lake = open_lake(settings.lake_root, settings.s3_endpoint_url)
    options = CrawlOptions.from_settings(settings)
    http = build_http(options, RateLimiter(rate) if rate else None)
    companies, _ = resolve_universe(options, http)
    return lake, Crawler(options, lake, http=http).run(companies)


def assert_lake_matches_mirror(lake, rows, exhibit_rows):
    """Every expected filing is in the lake byte-identical to the mirror with its EX-99 exhibits (those of
    ``exhibit_rows``; a pre-2001 filing's are cut from its full submission), nothing extra or partial."""
    records = {r.accession: r for r in read_records(lake)}
    assert set(records) == {r["accession"] for r in rows}
    ex99 = {(r["accession"], r["document"]): r["sha256"] for r in exhibit_rows if r["type"].startswith("EX-99")}
    for row in rows:
        rec = records[row["accession"]]
        assert rec.status == "ok", (row["accession"], rec.error)
        if row["sha256_html"]:
            assert rec.sha256 == row["sha256_html"], row["accession"]
            assert rec.bytes == int(row["html_bytes"])
        got = {(rec.accession, e.name): e.sha256 for e in rec.exhibits if e.status == "ok" and not e.from_submission}
        assert got == {k: v for k, v in ex99.items() if k[0] == rec.accession}, rec.accession
    keys = set(lake.list("raw/edgar"))
    expected = {k for r in records.values()
                for k in (r.primary_key, r.index_key, r.index_page_key, *(e.key for e in r.exhibits)) if k}
    expected |= {f"{r.primary_key.rsplit('/', 1)[0]}/filing.json" for r in records.values()}
    assert keys == expected  # documents, index.json, index page, filing.json: no strays or duplicates
    assert not [k for k in lake.list("") if "/.tmp/" in f"/{k}" or k.startswith(".tmp")]


def _with_files_besides_the_primary(exhibit_rows) -> set[str]:
    """Accessions whose directory lists an exhibit or graphic, not only EDGAR's generated files: those
    whose index page the crawler must ask for (the pre-2001 ones have no such file: split from the .txt)."""
    generated = {"INDEX-HTML", "FULL-SUBMISSION"}
    by = {}
    for r in exhibit_rows:
        by.setdefault(r["accession"], set()).add(r["type"])
    return {a for a, types in by.items() if types - generated}


def test_whole_universe_is_fetched_exactly_once(edgar_mirror, mirror_filings, mirror_exhibits, universe_csv,
                                                lake_root):
    root, extra = lake_root
    with MirrorServer(edgar_mirror) as server:
        s = make_settings(server, root, universe_csv=universe_csv, universe_tickers="ALL", **extra)
        lake, report = crawl(s, rate=LIFTED)
        assert report.fetched == len(mirror_filings) and report.failed == 0 and report.missing == 0
        docs = Counter(e.path for e in server.log if "/Archives/" in e.path and not e.path.endswith("index.json"))
        assert set(docs.values()) == {1}
        primaries = {"/" + r["mirror_path"].removesuffix(".gz") for r in mirror_filings
                     if r["mirror_path"]}
        assert primaries <= set(docs)
        listed = {p.rsplit("/", 1)[1].removesuffix("-index.html") for p in docs if p.endswith("-index.html")}
        assert listed == _with_files_besides_the_primary(mirror_exhibits)  # asked for there only (MMM's: 404)
        assert_lake_matches_mirror(lake, mirror_filings, mirror_exhibits)
        assert read_parquet(lake, MANIFEST_KEY).num_rows == len(mirror_filings)
        records = {r.accession: r for r in read_records(lake)}
        graphics = {(r["accession"], r["document"]) for r in mirror_exhibits if r["type"] == "GRAPHIC"}
        recorded = {(r.accession, e.name): e for r in records.values() for e in r.exhibits if e.type == "GRAPHIC"}
        assert graphics <= set(recorded) and {e.status for e in recorded.values()} == {"skipped"}  # by rule
        assert records["0000066740-24-000023"].exhibit_source == "full submission header"  # MMM: no index page
        assert records["0000320193-24-000005"].exhibit_source == "index page"
        assert records["0000320193-24-000123"].exhibit_source == "directory listing (the primary document only)"

        server.clear_log()
        _, again = crawl(s, rate=LIFTED)
        assert again.fetched == 0 and again.skipped == len(mirror_filings)
        assert not [e for e in server.log if "/Archives/" in e.path]


def test_as_of_increments_fetch_only_the_new_filings(edgar_mirror, mirror_filings, universe_csv, lake_root):
    root, extra = lake_root
    d1, d2 = dt.date(2023, 12, 31), dt.date(2024, 6, 30)
    with MirrorServer(edgar_mirror, as_of=d1) as server:
        s = make_settings(server, root, universe_csv=universe_csv, universe_tickers="ALL", filed_to=d1, **extra)
        lake, first = crawl(s, rate=LIFTED)
        upto_d1 = {r["accession"] for r in mirror_filings if r["filing_date"] <= d1.isoformat()}
        assert {r.accession for r in first.records} == upto_d1 and first.fetched == len(upto_d1)

        server.as_of = d2
        server.clear_log()
        s2 = s.model_copy(update={"filed_to": d2})
        _, second = crawl(s2, rate=LIFTED)
        new = {r["accession"] for r in mirror_filings if d1.isoformat() < r["filing_date"] <= d2.isoformat()}
        assert second.fetched == len(new) > 0 and second.skipped == len(upto_d1)
        got = {e.path.rsplit("/", 2)[-2] for e in server.log if "/Archives/" in e.path}
        assert got == {a.replace("-", "") for a in new}


def test_faults_do_not_corrupt_and_the_limiter_holds(edgar_mirror, mirror_filings, mirror_exhibits, universe_csv,
                                                     lake_root):
    """>= 20% of requests fail (429/503/reset/truncation); every file still arrives whole, at <= 10 req/s."""
    root, extra = lake_root
    tickers = sorted({r["ticker"] for r in mirror_filings})
    plan = FaultPlan(rate=0.25, kinds=("429", "503", "reset", "truncate", "short"), retry_after=1, seed=7)
    with MirrorProcess(edgar_mirror, faults=plan) as server:  # its own clock, as SEC has
        # every fault kind fails a JSON fetch, so a URL gives up with 0.25 ** attempts: 4e-6 at 9 attempts, which
        # thousands of requests drew once in a clean-clone CI (an index.json, nine 429s and faults in a row); at 13,
        # 1.5e-8: the crawl's retrying is what is tested, not the odds
        s = make_settings(server, root, universe_csv=universe_csv, universe_tickers=",".join(tickers),
                          http_max_retries=12, **extra)
        lake, report = crawl(s)  # the real limiter: 10 requests/s for all workers together
        log = server.log
    faults = [e for e in log if not e.outcome.isdigit() or e.outcome in ("429", "503")]
    assert len(faults) / len(log) >= 0.20, f"only {len(faults)} of {len(log)} requests failed"
    assert {e.outcome for e in faults} == {"429", "503", "reset", "truncate", "short"}
    assert report.failed == 0 and report.fetched == len(mirror_filings), report.problems
    assert_lake_matches_mirror(lake, mirror_filings, mirror_exhibits)
    assert max_requests_per_window([e.at for e in log]) <= 10
    assert all(e.user_agent == "Secplat Tests tests@example.com" for e in log)


def _lake_env(root: str, extra: dict) -> dict:
    env = dict(os.environ, LAKE_ROOT=root, EDGAR_IDENTITY="Secplat Tests tests@example.com",
               HTTP_BACKOFF_BASE="0.05")
    if extra.get("s3_endpoint_url"):
        env["S3_ENDPOINT_URL"] = extra["s3_endpoint_url"]
    return env


def test_sigkill_mid_crawl_then_rerun_loses_and_duplicates_nothing(
    edgar_mirror, mirror_filings, mirror_exhibits, universe_csv, lake_root
):
    root, extra = lake_root
    tickers = ["AAPL", "AMD", "GOOGL", "META", "NVDA", "TSLA", "KO", "PEP"]
    rows = [r for r in mirror_filings if r["ticker"] in tickers]
    cmd = [sys.executable, "-m", "shell.cli", "crawl", "--mirror", str(edgar_mirror), "--tickers",
           ",".join(tickers)]
    env = _lake_env(root, extra) | {"UNIVERSE_CSV": universe_csv}
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lake = open_lake(root, extra.get("s3_endpoint_url"))
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if sum(1 for k in lake.list("raw/edgar") if k.endswith("filing.json")) >= 6:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the crawl finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = {r.accession for r in read_records(lake)}
    assert 0 < len(done_before) < len(rows)

    rerun = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"{len(rows) - len(done_before)} fetched, {len(done_before)} already present" in rerun.stdout
    assert_lake_matches_mirror(lake, rows, mirror_exhibits)
