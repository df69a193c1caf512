"""One contract for every search backend: the embedded engine always; OpenSearch on the cluster the project
starts (acceptance tier: ``opensearch_url`` in tests/conftest.py, or OPENSEARCH_URL); Elasticsearch when
ELASTICSEARCH_URL is set (skipped otherwise). Create, load, upsert, delete, alias swap, rollback, hybrid search, filters, and
injection safety."""

from __future__ import annotations

import os
import threading
import uuid

import pyarrow as pa
import pytest

from indexing.publish import retain_releases, rollback
from kernel.search import BackendError, SearchBackend, serve_version
from kernel.search.base import FilterError, alias_name
from kernel.settings import load_settings
from schemas.base import to_table
from schemas.index import INDEXES
from tests.index_records import DIMS, passages, records, vector

BACKENDS = ["embedded", pytest.param("opensearch", marks=[pytest.mark.acceptance, pytest.mark.opensearch]),
            "elasticsearch"]


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path) -> SearchBackend:
    prefix = f"t{uuid.uuid4().hex[:10]}"
    if request.param == "embedded":
        from kernel.search.embedded import EmbeddedBackend

        yield EmbeddedBackend(tmp_path / "search", prefix=prefix)
        return
    from kernel.search.elastic import ElasticBackend

    if request.param == "opensearch":
        settings = load_settings(opensearch_url=request.getfixturevalue("opensearch_url"), search_prefix=prefix)
    else:
        url = os.environ.get("ELASTICSEARCH_URL")
        if not url:
            pytest.skip("ELASTICSEARCH_URL is not set: no Elasticsearch cluster to run the contract against")
        settings = load_settings(elasticsearch_url=url, search_prefix=prefix)
    be = ElasticBackend.from_settings(settings)
    be.replicas = 0
    yield be
    drop_test_indices(be, prefix)
    be.close()


def drop_test_indices(backend, prefix: str) -> None:
    """Delete a test run's indices and templates by name: wildcard deletes are refused by default since 8.0
    (``action.destructive_requires_name``; the project's OpenSearch nodes refuse them too)."""
    dialect = backend.dialect
    names = sorted(dialect.get_indices(f"{prefix}-*"))
    for i in range(0, len(names), 50):
        dialect.delete_indices(",".join(names[i:i + 50]))
    client = dialect.client
    if dialect.kind == "opensearch":
        templates = client.indices.get_index_template(name=f"{prefix}-*", ignore=404)
        delete = client.indices.delete_index_template
    else:
        templates = client.options(ignore_status=404).indices.get_index_template(name=f"{prefix}-*").body
        delete = client.options(ignore_status=404).indices.delete_index_template
    for t in (templates or {}).get("index_templates", []):
        delete(name=t["name"])


def _table(name: str, rows) -> pa.Table:
    return to_table(INDEXES[name].model, rows)


def _write(backend: SearchBackend, name: str, fn):
    """Writes go to a version no release serves (``writable``), then a release makes them live."""
    spec = INDEXES[name]
    work = backend.writable(backend.live_release().targets[name], spec,
                            {"model": "test-model", "dims": DIMS if spec.has_vector else None})
    out = fn(work)
    serve_version(backend, name, work)
    return out


def _publish(backend: SearchBackend, name: str, rows) -> str:
    spec = INDEXES[name]
    version = backend.create_version(spec, DIMS if spec.has_vector else None, {"model": "test-model"})
    assert backend.load(version, spec, _table(name, rows).to_batches(max_chunksize=5)) == len(rows)
    serve_version(backend, name, version)
    return version


def test_create_load_swap_count_get(backend):
    data = records()
    for name, rows in data.items():
        _publish(backend, name, rows)
        alias = alias_name(backend.prefix, name)
        assert backend.count(alias) == len(rows)
    spec = INDEXES["passages"]
    alias = alias_name(backend.prefix, "passages")
    got = backend.get(alias, spec, ["PEP_2023_10K:7:0004", "KO_2023_10K:1A:0002", "missing"])
    assert [g["chunk_id"] for g in got] == ["PEP_2023_10K:7:0004", "KO_2023_10K:1A:0002"]
    assert "vector" not in got[0]
    catalog = backend.scan(alias_name(backend.prefix, "documents"), INDEXES["documents"], ["doc_id", "company"])
    assert sorted(r["doc_id"] for r in catalog) == ["KO_2023_10K", "PEP_2023_10K"]
    versions = backend.versions(spec)
    assert len(versions) == 1 and versions[0].live and versions[0].meta["model"] == "test-model"


def test_bm25_sums_text_and_company_fields(backend):
    """A passage's company counts beside its text (scores of the fields summed, the company's boosted), so
    "Coca-Cola operating revenues" puts Coca-Cola's revenue passage above Coca-Cola's other passages and
    above PepsiCo's revenue passage, although no passage text names a company here."""
    rows = passages()
    for row in rows:
        row["text"] = row["text"].replace(row["company"], "").strip()
    _publish(backend, "passages", rows)
    spec = INDEXES["passages"]
    assert spec.boost("company") > 1 and spec.boost("text") == 1
    hits = backend.bm25(alias_name(backend.prefix, "passages"), spec, "Coca-Cola operating revenues", k=20)
    assert (hits[0].source["ticker"], hits[0].source["item"]) == ("KO", "7")
    best = {}
    for h in hits:
        best.setdefault((h.source["ticker"], h.source["item"]), h.score)
    assert best[("KO", "7")] > best[("KO", "1A")] > 0 and best[("KO", "7")] > best[("PEP", "7")]


def test_bm25_knn_hybrid_and_filters(backend):
    _publish(backend, "passages", passages())
    spec = INDEXES["passages"]
    alias = alias_name(backend.prefix, "passages")
    hits = backend.bm25(alias, spec, "legal proceedings litigation", k=4)
    assert hits and all(h.source["item"] == "3" for h in hits)
    ko = backend.bm25(alias, spec, "operating revenues pricing", {"ticker": "KO"}, k=10)
    assert ko and {h.source["ticker"] for h in ko} == {"KO"}
    both = backend.bm25(alias, spec, "revenues", {"ticker": ["KO", "PEP"], "fiscal_year": 2023, "item": "7"}, k=10)
    assert {h.source["ticker"] for h in both} == {"KO", "PEP"} and {h.source["item"] for h in both} == {"7"}
    assert backend.bm25(alias, spec, "revenues", {"fiscal_year": 1999}) == []
    # kNN: a stored vector finds its own row first, with cosine ~1
    target = "PEP_2023_10K:8:0006"
    nearest = backend.knn(alias, spec, vector(target), k=3)
    # int8_hnsw quantizes the stored vectors (Elasticsearch): cosine ~1 within quantization error
    assert nearest[0].id == target and nearest[0].score == pytest.approx(1.0, abs=0.02)
    assert all(h.source["ticker"] == "KO" for h in backend.knn(alias, spec, vector(target), {"ticker": "KO"}, k=3))
    # hybrid: the row that is first in both lists wins under either fusion
    for fusion in ("rrf", "minmax"):
        fused = backend.hybrid(alias, spec, "PepsiCo statements of income gross profit", vector(target),
                               k=5, fusion=fusion)
        assert fused[0].id == target, fusion
    with pytest.raises(BackendError, match="cannot filter"):
        backend.bm25(alias, spec, "revenues", {"text": "x"})
    with pytest.raises(FilterError, match="fiscal_year: 2023.5 is not an integer"):
        backend.bm25(alias, spec, "revenues", {"fiscal_year": 2023.5})
    with pytest.raises(FilterError, match="fiscal_year: 'abc' is not an integer"):
        backend.knn(alias, spec, vector(target), {"fiscal_year": "abc"})
    with pytest.raises(FilterError, match="ticker: 123 is not a string"):
        backend.bm25(alias, spec, "revenues", {"ticker": 123})
    assert backend.bm25(alias, spec, "revenues", {"fiscal_year": "2023", "ticker": "KO"})  # digits are a year


@pytest.mark.parametrize("text", [
    'revenues" OR *:*', "ticker:KO AND (fiscal_year:2023 OR form:10-K)", '{"query": {"match_all": {}}}',
    "'; DROP TABLE passages; --", "revenues) OR 1=1 --", "\\\\ / ^ ~ * ? [ ] { } !",
])
def test_injection_safe(backend, text):
    _publish(backend, "passages", passages())
    spec = INDEXES["passages"]
    alias = alias_name(backend.prefix, "passages")
    hits = backend.bm25(alias, spec, text, k=50)  # no error, and no "match everything"
    assert len(hits) < len(passages())
    assert backend.bm25(alias, spec, "revenues", {"ticker": "KO' OR '1'='1"}) == []
    assert backend.bm25(alias, spec, "revenues", {"ticker": ["KO\") OR (1=1"]}) == []
    assert backend.count(alias) == len(passages())


def test_upsert_replaces_a_document_and_leaves_others(backend):
    _publish(backend, "passages", passages("v1"))
    spec = INDEXES["passages"]
    alias = alias_name(backend.prefix, "passages")
    new = [p for p in passages("v2") if p["doc_id"] == "KO_2023_10K"][:-2]  # KO lost its last two chunks
    new.append({**new[0], "chunk_id": "KO_2023_10K:9A:0099", "item": "9A", "text": "Coca-Cola controls and procedures.",
                "vector": vector("KO_2023_10K:9A:0099")})
    assert _write(backend, "passages", lambda work: backend.upsert(work, spec, _table("passages", new).to_batches(),
                                                                   replace_docs=["KO_2023_10K"])) == len(new)
    ko = backend.bm25(alias, spec, "Coca-Cola", {"doc_id": "KO_2023_10K"}, k=100)
    assert {h.source["source_name"] for h in ko} == {"v2"} and len(ko) == len(new)
    pep = backend.bm25(alias, spec, "PepsiCo", {"doc_id": "PEP_2023_10K"}, k=100)
    assert {h.source["source_name"] for h in pep} == {"v1"} and len(pep) == 10
    assert backend.count(alias) == len(new) + 10
    # kNN follows the write at once: the new row is found, the dropped ones are gone
    added = backend.knn(alias, spec, vector("KO_2023_10K:9A:0099"), k=1)
    assert added[0].id == "KO_2023_10K:9A:0099" and added[0].source["item"] == "9A"
    dropped = {p["chunk_id"] for p in passages("v1") if p["doc_id"] == "KO_2023_10K"} - {n["chunk_id"] for n in new}
    for chunk_id in dropped:
        assert backend.knn(alias, spec, vector(chunk_id), k=1)[0].id != chunk_id
    assert _write(backend, "passages", lambda work: backend.delete(work, spec, ids=["KO_2023_10K:9A:0099"])) == 1
    assert _write(backend, "passages", lambda work: backend.delete(work, spec, doc_ids=["PEP_2023_10K"])) == 10
    assert backend.count(alias) == len(new) - 1
    assert {h.id for h in backend.knn(alias, spec, vector("KO_2023_10K:9A:0099"), k=100)} == {
        n["chunk_id"] for n in new[:-1]}


def test_alias_swap_rollback_and_retention(backend):
    spec = INDEXES["documents"]
    alias = alias_name(backend.prefix, "documents")
    v1 = _publish(backend, "documents", records("v1")["documents"])
    v2 = _publish(backend, "documents", records("v2")["documents"])
    v3 = _publish(backend, "documents", records("v3")["documents"])
    assert backend.alias_target(alias) == v3
    assert [v.name for v in backend.versions(spec)] == [v1, v2, v3]
    left, live = rollback(backend)
    assert left.targets["documents"] == backend.pin(v3) and live.physical("documents") == v2
    assert {h.source["source_name"] for h in backend.bm25(alias, spec, "annual report", k=5)} == {"v2"}
    assert serve_version(backend, "documents", v3) == v2
    assert retain_releases(backend, keep=1) == [v1]
    assert [v.name for v in backend.versions(spec)] == [v2, v3]
    with pytest.raises(BackendError):
        serve_version(backend, "documents", f"{alias}-vnothere")


def test_queries_during_a_swap_never_see_an_empty_partial_or_mixed_index(backend):
    spec = INDEXES["passages"]
    alias = alias_name(backend.prefix, "passages")
    _publish(backend, "passages", passages("v1", per_item=25))
    expected = len(passages("v1", per_item=25))
    seen, errors, stop = [], [], threading.Event()

    def query_loop():
        while not stop.is_set():
            try:
                hits = backend.bm25(alias, spec, "Coca-Cola PepsiCo revenues risk", k=expected)
                tags = {h.source["source_name"] for h in hits}
                seen.append((len(hits), tags, backend.count(alias)))
            except Exception as exc:  # any error is a failure of atomicity
                errors.append(exc)

    thread = threading.Thread(target=query_loop)
    thread.start()
    try:
        for tag in ("v2", "v3"):
            _publish(backend, "passages", passages(tag, per_item=25))
            rows = [p for p in passages(tag + "u", per_item=25) if p["doc_id"] == "KO_2023_10K"]
            _write(backend, "passages", lambda work, rows=rows: backend.upsert(
                work, spec, _table("passages", rows).to_batches(), replace_docs=["KO_2023_10K"]))
    finally:
        stop.set()
        thread.join()
    assert not errors, errors[:3]
    assert len(seen) > 5
    for n, tags, count in seen:
        assert count == expected and n > 0
        # one version at a time; after an upsert, KO rows are <tag>u and PEP rows <tag>
        assert len({t.rstrip("u") for t in tags}) == 1, tags
