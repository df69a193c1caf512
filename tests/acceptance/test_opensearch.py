"""The publish and the readers on real OpenSearch nodes (started from Maven Central's artifacts by
``infra/opensearch/cluster``): releases seen whole through switches, ``secplat publish`` SIGKILLed at each of
its write points, the refusals (unreachable, no k-NN plugin, a mapping conflict), and the documented curl
examples run as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from indexing.publish.listing import listing
from kernel.resources import Resources
from kernel.search.elastic import ElasticBackend
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.runner import run_stage
from tests.acceptance.test_release_faults import _killed, _run, _v2
from tests.index_records import records, write_index_lake
from tests.unit.kernel.test_backend_contract import drop_test_indices

pytestmark = [pytest.mark.slow, pytest.mark.opensearch]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
ROOT = Path(__file__).resolve().parents[2]


def settings(url: str, lake: Path, prefix: str, **kw):
    return load_settings(lake_root=str(lake), opensearch_url=url, search_prefix=prefix, search_keep_versions=2, **kw)


def backend(url: str, prefix: str) -> ElasticBackend:
    return ElasticBackend.from_settings(load_settings(opensearch_url=url, search_prefix=prefix))


def served(url: str, prefix: str) -> tuple[str | None, dict]:
    """The live release and what each index serves through it (rows; documents' and passages' tags)."""
    be = backend(url, prefix)
    release = be.live_release()
    view: dict = {name: be.count(release.targets[name]) for name in INDEXES} if release else {}
    for name in ("documents", "passages") if release else ():
        rows = be.scan(release.targets[name], INDEXES[name], ["doc_id", "source_name"])
        view[name + " tags"] = sorted({(r["doc_id"], r["source_name"]) for r in rows})
    be.close()
    return (release.id if release else None), view


def _cluster(url: str, prefix: str) -> dict:
    """The environment that points ``secplat`` at the cluster and the test's own prefix."""
    return {"OPENSEARCH_URL": url, "SEARCH_PREFIX": prefix}


def secplat(url: str, lake: Path, prefix: str, *args: str, trace: Path | None = None) -> subprocess.CompletedProcess:
    return _run(lake, *args, trace=trace, **_cluster(url, prefix))


def killed_publish(url: str, lake: Path, prefix: str, point: str):
    """``secplat publish`` killed at ``point`` (forked from the warm server, ``test_release_faults._killed``)."""
    return _killed(lake, "publish", kill_at=point, **_cluster(url, prefix))


def published_v1(url: str, root: Path) -> tuple[Path, str]:
    """A lake of its own published at v1 under a prefix of its own, then holding the v2 data."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    lake = root / prefix
    write_index_lake(lake, records("v1"))
    run_stage("publish", Resources(settings(url, lake, prefix)))
    write_index_lake(lake, _v2())
    return lake, prefix


def test_a_killed_publish_leaves_one_whole_release_and_the_next_one_succeeds(opensearch_url, tmp_path):
    lake, prefix = published_v1(opensearch_url, tmp_path)
    old_release, old = served(opensearch_url, prefix)
    trace = tmp_path / "trace"
    assert secplat(opensearch_url, lake, prefix, "publish", trace=trace).returncode == 0
    points = list(dict.fromkeys(trace.read_text().split("\n")[:-1]))
    new = served(opensearch_url, prefix)[1]
    assert new != old and new["passages"] == old["passages"] - 1
    assert {"engine:partition copied", "engine:upserted passages", "engine:rows added lexicon",
            "engine:release marker made", "publish:release live"} <= set(points), points
    live_at = points.index("publish:release live")
    for n, point in enumerate(points):
        lake, prefix = published_v1(opensearch_url, tmp_path)
        killed = killed_publish(opensearch_url, lake, prefix, point)
        assert killed.returncode == -9, (point, killed.stderr[-500:])
        release, view = served(opensearch_url, prefix)
        if n < live_at:
            assert view == old and release is not None, point  # the previous release, whole
        else:
            assert view == new, point  # the new release, whole
        # in-process: the same code, less start-up; the dead holder's lock is taken over
        again = run_stage("publish", Resources(settings(opensearch_url, lake, prefix)))
        assert not again.blocked and again.release, point
        assert served(opensearch_url, prefix)[1] == new, point
        drop_test_indices(backend(opensearch_url, prefix), prefix)


def test_readers_see_whole_releases_through_switches(opensearch_url, tmp_path):
    """A reader resolves the live release, then reads documents and passages from its targets (as the query
    module does) while releases switch: every read pairs documents and passages of one release."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    lake = tmp_path / "lake"
    versions = {"v1": records("v1"), "v2": _v2()}
    write_index_lake(lake, versions["v1"])
    run_stage("publish", Resources(settings(opensearch_url, lake, prefix)))
    be = backend(opensearch_url, prefix)
    seen, errors, stop = [], [], threading.Event()

    def reader():
        while not stop.is_set():
            try:
                release = be.live_release()
                docs = be.scan(release.targets["documents"], INDEXES["documents"], ["doc_id", "source_name"])
                ko = next(d["source_name"] for d in docs if d["doc_id"] == "KO_2023_10K")
                hits = be.bm25(release.targets["passages"], INDEXES["passages"], "Coca-Cola revenues",
                               {"ticker": "KO"}, k=50)
                seen.append((release.id, ko, len(hits)))
            except Exception as exc:  # any error is a failure of the switch
                errors.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for tag in ("v2", "v1", "v2"):
            write_index_lake(lake, versions[tag])
            report = run_stage("publish", Resources(settings(opensearch_url, lake, prefix)))
            assert report.release and not report.blocked
    finally:
        stop.set()
        thread.join()
    assert not errors, errors[:3]
    assert len({r for r, _, _ in seen}) >= 2, "the reader saw no switch"
    ko_rows = {"v1": len([p for p in versions["v1"]["passages"] if p["ticker"] == "KO"]),
               "v2": len([p for p in versions["v2"]["passages"] if p["ticker"] == "KO"])}
    for release, tag, n in seen:  # documents v2 <-> passages of v2 (one fewer KO chunk), never crossed
        assert n == ko_rows[tag], (release, tag, n)
    drop_test_indices(be, prefix)


def test_an_unreachable_cluster_is_exit_3_with_one_line_naming_it(tmp_path):
    from tests.opensearch_cluster import free_ports

    url = f"http://127.0.0.1:{free_ports(1)}"
    lake = tmp_path / "lake"
    write_index_lake(lake, records("v1"))
    for args in (["publish"], ["list-versions"], ["query", "What were Coca-Cola's revenues?"]):
        done = secplat(url, lake, "tdown", *args)
        assert done.returncode == 3, (args, done.stderr[-500:])
        assert done.stderr.count("\n") == 1 and f"OpenSearch at {url} is unreachable" in done.stderr, done.stderr


def test_a_cluster_without_the_knn_plugin_is_refused_before_anything_is_written(tmp_path):
    """Also: nodes started for a process stop when it ends without stopping them (a test session killed)."""
    from tests.opensearch_cluster import start_cluster

    owner = subprocess.Popen(["sleep", "600"])
    cluster = start_cluster(tmp_path / "noknn", knn=False, owner=owner.pid)
    try:
        lake = tmp_path / "lake"
        write_index_lake(lake, records("v1"))
        done = secplat(cluster.url, lake, "tnoknn", "publish")
        assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr
        assert "has no k-NN plugin (opensearch-knn)" in done.stderr and cluster.url in done.stderr
        assert backend(cluster.url, "tnoknn").dialect.get_indices("tnoknn-*") == {}  # nothing written
        assert cluster.alive(0)
        owner.kill()
        owner.wait()
        deadline = time.monotonic() + 60
        while cluster.alive(0) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not cluster.alive(0), "the node outlived the process that started it"
    finally:
        owner.kill()
        cluster.stop()


def test_a_mapping_conflict_with_the_live_release_is_refused_before_anything_is_made_live(
        opensearch_url, tmp_path, monkeypatch):
    """A release whose passages an older code mapped otherwise (company as a keyword): the next upsert is
    refused in one line naming the field, and the live release stays as it was; --rebuild publishes."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    lake = tmp_path / "lake"
    write_index_lake(lake, records("v1"))
    real = ElasticBackend.mapping

    def older(self, spec, dims, meta):
        mapping = real(self, spec, dims, meta)
        if spec.name == "passages":
            mapping["properties"]["company"] = {"type": "keyword"}
        return mapping

    monkeypatch.setattr(ElasticBackend, "mapping", older)
    run_stage("publish", Resources(settings(opensearch_url, lake, prefix)))
    monkeypatch.setattr(ElasticBackend, "mapping", real)
    before = served(opensearch_url, prefix)
    write_index_lake(lake, _v2())
    done = secplat(opensearch_url, lake, prefix, "publish")
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr
    assert "mapping conflict" in done.stderr and "company with type keyword (this code: text)" in done.stderr
    assert served(opensearch_url, prefix) == before
    assert secplat(opensearch_url, lake, prefix, "publish", "--rebuild").returncode == 0
    assert served(opensearch_url, prefix)[1]["passages tags"] != before[1]["passages tags"]
    drop_test_indices(backend(opensearch_url, prefix), prefix)


def _examples(doc: Path) -> list[str]:
    """The shell blocks of docs/publish.md that call curl, in order."""
    blocks = re.findall(r"```bash\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if "curl" in b]


def test_the_documented_curl_examples_answer_as_documented(opensearch_url, tmp_path):
    prefix = "secplat"  # the documented names, on a cluster of this session's own (dropped after)
    be = backend(opensearch_url, prefix)
    if be.dialect.get_indices(f"{prefix}-*"):
        pytest.skip(f"{opensearch_url} already holds {prefix}-* indexes: the examples need their own cluster")
    lake = tmp_path / "lake"
    write_index_lake(lake, records("v1"))
    run_stage("publish", Resources(settings(opensearch_url, lake, prefix)))
    examples = _examples(ROOT / "docs" / "publish.md")
    assert len(examples) >= 4, "docs/publish.md lost its curl examples"
    url = opensearch_url.split(",")[0]
    answers = []
    for example in examples:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", example], env={**os.environ, "OS_URL": url},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (example, done.stderr)
        answers.append(json.loads(done.stdout))
    aliases, bm25, knn, release = answers[:4]
    live = be.live_release()
    assert {a for body in aliases.values() for a in body["aliases"]} >= {f"{prefix}-passages", f"{prefix}-release"}
    hits = bm25["hits"]["hits"]
    assert hits and all(h["_source"]["ticker"] == "KO" and h["_source"]["fiscal_year"] == 2023 for h in hits)
    hits = knn["hits"]["hits"]
    assert hits and all(h["_source"]["ticker"] == "PEP" for h in hits) and "vector" not in hits[0]["_source"]
    marker = next(iter(release))
    assert release[marker]["mappings"]["_meta"]["secplat"]["release"]["id"] == live.id
    drop_test_indices(be, prefix)


def test_publish_refuses_nothing_it_should_not(opensearch_url):
    """The engine's product check passes on the project's own nodes (OpenSearch 2.19 with k-NN)."""
    be = backend(opensearch_url, "tcheck")
    be.check_cluster()
    assert be.kind == "opensearch" and listing(be).live is None


def wait_green(be: ElasticBackend, nodes: int, seconds: float = 240) -> bool:
    """Whether the cluster turns green with ``nodes`` nodes within ``seconds`` (the server waits 30 s a call:
    opensearch-py reads a ``timeout`` argument as its own)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        health = be.client.cluster.health(wait_for_status="green", wait_for_nodes=str(nodes), request_timeout=40)
        if not health["timed_out"]:
            return True
    return False


def test_three_nodes_one_killed_mid_queries_answers_keep_coming_and_nothing_is_lost(tmp_path):
    """Three nodes, one replica: the elected cluster manager is killed (kill -9) while a reader queries; every
    query still answers whole (yellow); a publish then succeeds or fails in one line; when the node is back
    the live release holds every row."""
    from tests.opensearch_cluster import start_cluster

    cluster = start_cluster(tmp_path / "three", nodes=3)
    try:
        prefix, lake = "tfail", tmp_path / "lake"
        write_index_lake(lake, records("v1"))
        run_stage("publish", Resources(settings(cluster.url, lake, prefix)))  # one replica: the default
        be = backend(cluster.url, prefix)
        assert wait_green(be, 3)
        expected = {n: c for n, c in served(cluster.url, prefix)[1].items() if "tags" not in n}
        spec, alias = INDEXES["passages"], f"{prefix}-passages"
        whole = len(be.bm25(alias, spec, "revenues risk business", k=100))  # every matching passage
        answers, errors, stop = [], [], threading.Event()

        def reader():
            while not stop.is_set():
                try:
                    answers.append(len(be.bm25(alias, spec, "revenues risk business", k=100)))
                except Exception as exc:
                    errors.append(exc)

        thread = threading.Thread(target=reader)
        thread.start()
        try:
            manager = be.client.cat.cluster_manager(format="json")[0]["node"]
            before = len(answers)
            cluster.kill(int(manager.split("-")[1]))
            deadline = threading.Event()
            deadline.wait(8)  # queries go on through the loss and the new manager's election
            assert len(answers) > before + 5, "no answers after the kill"
        finally:
            stop.set()
            thread.join()
        assert not errors, errors[:3]
        assert whole > 5 and set(answers) == {whole}, sorted(set(answers))  # whole answers, no shard missing
        health = be.client.cluster.health()
        assert health["status"] in ("yellow", "green") and health["number_of_nodes"] == 2, health
        write_index_lake(lake, _v2())
        done = secplat(cluster.url, lake, prefix, "publish")
        assert done.returncode == 0 or done.stderr.count("\n") == 1, done.stderr[-1000:]
        cluster.start()  # the killed node comes back with its data
        assert wait_green(be, 3)
        view = served(cluster.url, prefix)[1]
        if done.returncode == 0:
            assert view["passages"] == expected["passages"] - 1 and ("KO_2023_10K", "v2") in view["documents tags"]
        else:
            assert {n: view[n] for n in expected} == expected
        assert all(view[n] > 0 for n in expected)
        be.close()
    finally:
        cluster.stop()


@pytest.mark.shared
def test_mirror_filings_published_to_opensearch_answer_as_on_the_embedded_engine(published, opensearch_url,
                                                                                 tmp_path):
    """The mirror lake's release on the cluster (``secplat publish`` with OPENSEARCH_URL): ``secplat query``
    and the HTTP API answer from it, with the documents the embedded engine answers with."""
    from fastapi.testclient import TestClient

    from query import Retriever
    from shell.http import create_app

    prefix = f"t{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "LAKE_ROOT": str(published.lake_root), "OPENSEARCH_URL": opensearch_url,
           "SEARCH_PREFIX": prefix, "UNIVERSE_CSV": str(published.universe_csv), "EMBEDDING_BACKEND": "onnx-int8"}
    done = subprocess.run([SECPLAT, "publish"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "published to opensearch as release" in done.stdout, done.stderr[-800:]
    question = "What were PepsiCo's net revenues in 2023?"
    done = subprocess.run([SECPLAT, "query", question, "--json", "-k", "5"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-800:]
    on_cluster = json.loads(done.stdout)
    assert on_cluster["evidence"][0]["doc_id"] == "PEP_2023_10K"
    on_embedded = Retriever(Resources(published)).search(question, 5).evidence
    assert {e["doc_id"] for e in on_cluster["evidence"]} == {e.doc_id for e in on_embedded}
    cluster_settings = load_settings(**{**published.model_dump(), "opensearch_url": opensearch_url,
                                        "search_prefix": prefix})
    client = TestClient(create_app(Retriever(Resources(cluster_settings))))
    health = client.get("/health").json()
    assert health["backend"] == "opensearch" and health["release"] and health["documents"] == 3
    resp = client.post("/search", json={"question": "Coca-Cola net operating revenues 2023", "k": 3})
    assert resp.status_code == 200 and resp.json()["evidence"][0]["doc_id"] == "KO_2023_10K"
    drop_test_indices(backend(opensearch_url, prefix), prefix)
