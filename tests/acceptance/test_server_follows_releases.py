"""A running ``secplat serve`` follows releases: on a copy of the small published mirror lake, a nightly-style
upsert that adds a filing and then a rebuild are published while the server runs and a loop of queries hits
it. ``/search`` finds the new filing within 5 s of each publish, no restart; every answer of the loop reads
one release (its evidence exists in that release's indexes); the server's memory after ten more releases
stays within 10% of what it was after the first."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil
import pytest

from kernel.resources import Resources
from kernel.search import open_backend
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.runner import run_stage
from tests.browser import serve, stop
from tests.conftest import PUBLISHED_FILINGS, free_port

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
LOOP_QUESTION = "What were Coca-Cola's net operating revenues in 2023?"


def _added_filing(mirror_manifest) -> dict:
    """A 10-K of a company the published lake lacks (the smallest one, to keep the index step short)."""
    have = {t for t, _, _ in PUBLISHED_FILINGS}
    rows = [r for r in mirror_manifest if r["form"] == "10-K" and r["ticker"] not in have and r["page_breaks"]]
    return min(rows, key=lambda r: int(r["page_breaks"]))


def _add(converted, root: Path, row: dict) -> None:
    lake, _ = converted
    part = f"{row['cik']}_{row['accession'].replace('-', '')}.parquet"
    for ds in ("documents", "pages", "facts"):
        src = lake.path / "datasets" / ds / part
        if src.exists():
            shutil.copy(src, root / "datasets" / ds / part)


def _find(url: str, ticker: str, deadline: float) -> tuple[dict, float]:
    """Poll /search for the company until its filing is in the answer; (answer, seconds it took)."""
    started = time.monotonic()
    while True:
        answer = httpx.post(f"{url}/search", json={"question": f"{ticker} total revenue", "k": 5,
                                                   "filters": {"ticker": ticker}}, timeout=60).json()
        if any(e["ticker"] == ticker for e in answer.get("evidence", [])):
            return answer, time.monotonic() - started
        if time.monotonic() - started > deadline:
            raise AssertionError(f"{ticker} not served {deadline} s after the publish: {answer}")
        time.sleep(0.2)


class QueryLoop(threading.Thread):
    """Queries until stopped, keeping every answer (and any error)."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.answers, self.errors, self.stopped = url, [], [], threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=60) as client:
            while not self.stopped.is_set():
                try:
                    r = client.post(f"{self.url}/search", json={"question": LOOP_QUESTION, "k": 5})
                    (self.answers if r.status_code == 200 else self.errors).append(
                        r.json() if r.status_code == 200 else (r.status_code, r.text[:300]))
                except httpx.HTTPError as exc:
                    self.errors.append(repr(exc))


def _check_one_release_each(settings, answers: list[dict]) -> set[str]:
    """Every answer's documents and passages exist in the release it names."""
    backend = open_backend(settings)
    releases = {r.id: r for r in backend.releases()}
    seen = set()
    for answer in answers:
        release = releases[answer["release"]]
        seen.add(release.id)
        chunks = [e["chunk_id"] for e in answer["evidence"]]
        docs = {e["doc_id"] for e in answer["evidence"]}
        got = backend.get(release.targets["passages"], INDEXES["passages"], chunks)
        assert [g["chunk_id"] for g in got] == chunks, (release.id, chunks)
        known = {r["doc_id"] for r in backend.get(release.targets["documents"], INDEXES["documents"], sorted(docs))}
        assert known == docs, (release.id, docs)
    return seen


def test_a_running_server_follows_upserts_and_rebuilds(published, converted_mirror, mirror_manifest, tmp_path):
    root = tmp_path / "lake"
    shutil.copytree(published.lake_root, root)
    settings = load_settings(**{**published.model_dump(include={"universe_csv", "spark_master",
                                                                 "embedding_backend"}), "lake_root": str(root)})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LAKE_ROOT": str(root), "UNIVERSE_CSV": settings.universe_csv or "",
           "EMBEDDING_BACKEND": settings.embedding_backend, "HF_HUB_OFFLINE": "1"}
    proc = serve([SECPLAT, "serve", "--port", str(port)], env, f"{url}/health", tmp_path / "serve.log")
    loop = QueryLoop(url)
    try:
        first = httpx.get(f"{url}/health", timeout=10).json()["release"]
        loop.start()
        row = _added_filing(mirror_manifest)
        _add(converted_mirror, root, row)
        run_stage("segment", Resources(settings))
        run_stage("index", Resources(settings))
        report = run_stage("publish", Resources(settings))
        assert {o.index: o.mode for o in report.indexes}["passages"] == "upsert", report.summary()
        answer, took = _find(url, row["ticker"], 5)
        assert answer["release"] == report.release and took < 5
        report = run_stage("publish", Resources(settings), rebuild=True)
        answer, took = _find(url, row["ticker"], 5)
        assert answer["release"] == report.release and took < 5
        health = httpx.get(f"{url}/health", timeout=10).json()
        assert health["release"] == report.release != first
        loop.stopped.set()
        loop.join(120)
        assert not loop.errors, loop.errors[:3]
        assert len(_check_one_release_each(settings, loop.answers)) >= 2  # answers came from several releases

        server = psutil.Process(proc.pid)
        rss = []
        for _ in range(10):  # ten more releases, each queried (so the server builds its snapshot)
            run_stage("publish", Resources(settings), rebuild=True)
            _find(url, row["ticker"], 5)
            rss.append(sum(p.memory_info().rss for p in [server, *server.children(recursive=True)]))
        assert rss[-1] <= 1.10 * rss[0], [r // 2**20 for r in rss]
    finally:
        loop.stopped.set()
        stop(proc)
