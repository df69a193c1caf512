"""Every request the Elasticsearch backend sends, checked against Elastic's published API specification
(../shared/es-spec) through tests/es_double.py, a TEST DOUBLE standing in for a cluster (none can be
installed here). The double validates and answers minimally; result quality is the contract suite's job
(tests/unit/kernel/test_backend_contract.py, against a real cluster when ELASTICSEARCH_URL is set)."""

from __future__ import annotations

import json
import uuid

import pyarrow as pa
import pytest

from indexing.publish import retain_releases, rollback
from kernel.search import BackendError, serve_version
from kernel.search.base import PublisherBusy, Release, alias_name, release_id
from kernel.search.elastic import ElasticBackend
from kernel.search.elastic import backend as es_module
from kernel.settings import load_settings
from schemas.base import to_table
from schemas.index import INDEXES
from tests.es_double import EsDouble
from tests.index_records import DIMS, passages, records, vector
from tests.unit.kernel.test_backend_contract import drop_test_indices

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def spec_path(shared):
    path = shared / "es-spec" / "elasticsearch-serverless-openapi.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing: Elastic's API specification is needed to check the requests")
    return path


@pytest.fixture()
def es(spec_path):
    with EsDouble(spec_path) as double:
        yield double


def backend_for(es: EsDouble, prefix: str | None = None) -> ElasticBackend:
    return ElasticBackend.from_settings(load_settings(elasticsearch_url=es.url,
                                                     search_prefix=prefix or f"t{uuid.uuid4().hex[:8]}"))


def _table(name: str, rows) -> pa.Table:
    return to_table(INDEXES[name].model, rows)


def _publish(be: ElasticBackend, name: str, rows) -> str:
    spec = INDEXES[name]
    version = be.create_version(spec, DIMS if spec.has_vector else None, {"model": "test-model",
                                                                          "dims": DIMS if spec.has_vector else None})
    be.load(version, spec, _table(name, rows).to_batches(max_chunksize=5))
    serve_version(be, name, version)
    return version


def conforms(es: EsDouble) -> None:
    assert es.requests, "no request reached the double"
    assert not es.violations, "\n".join(f"{m} {p}: {why}" for m, p, why in es.violations[:20])


def test_every_backend_operation_conforms_to_the_specification(es, monkeypatch):
    monkeypatch.setattr(es_module, "ID_BATCH", 2)  # several terms batches below
    be = backend_for(es)
    data = records()
    versions = {name: _publish(be, name, rows) for name, rows in data.items()}  # template, create, bulk, alias
    spec = INDEXES["passages"]
    alias = alias_name(be.prefix, "passages")
    be.count(alias)
    be.get(alias, spec, ["PEP_2023_10K:7:0004", "missing"])
    be.scan(alias_name(be.prefix, "documents"), INDEXES["documents"], ["doc_id", "company"])
    be.versions(spec)
    be.bm25(alias, spec, "operating revenues", {"ticker": ["KO", "PEP"], "fiscal_year": 2023, "item": "7"}, k=5)
    be.bm25(alias, spec, "revenues", {"ticker": "KO"}, k=5, fields=["text"])
    be.knn(alias, spec, vector("PEP_2023_10K:8:0006"), {"ticker": "KO"}, k=3)
    be.hybrid(alias, spec, "gross profit", vector("PEP_2023_10K:8:0006"), {"ticker": "KO"}, k=5)  # server rrf
    be.hybrid(alias, spec, "gross profit", vector("PEP_2023_10K:8:0006"), k=5, fusion="minmax", dense_weight=0.6)
    new = [p for p in passages("v2") if p["doc_id"] == "KO_2023_10K"][:-2]
    work = be.writable(be.live_release().targets["passages"], spec, {"model": "test-model", "dims": DIMS})
    be.upsert(work, spec, _table("passages", new).to_batches(), replace_docs=["KO_2023_10K", "PEP_2023_10K",
                                                                               "GONE_2020_10K"])
    serve_version(be, "passages", work)
    be.delete(alias, spec, ids=[new[0]["chunk_id"], "missing"])
    be.delete(alias, spec, doc_ids=["PEP_2023_10K"])
    _publish(be, "documents", records("v2")["documents"])
    _publish(be, "documents", records("v3")["documents"])
    rollback(be)
    retain_releases(be, keep=1)
    with be.publish_lock(), pytest.raises(PublisherBusy), be.publish_lock():  # a second publisher is refused
        pass
    drop_test_indices(be, be.prefix)
    conforms(es)
    ops = {r.operation for r in es.requests}
    for op in ("PUT /_index_template/{name}", "PUT /{index}", "PUT /_bulk", "POST /_aliases", "GET /_alias/{name}",
               "POST /{index}/_search", "POST /{index}/_count", "POST /{index}/_refresh",
               "GET /{index}", "DELETE /{index}", "PUT /{index}/_create/{id}", "GET /{index}/_doc/{id}",
               "DELETE /{index}/_doc/{id}", "DELETE /_index_template/{name}", "GET /_index_template/{name}",
               "POST /_reindex", "HEAD /{index}"):
        assert op in ops, op
    assert not any("_delete_by_query" in r.path for r in es.requests)  # deletes are by id, each item checked
    assert versions and not es.indices  # the teardown left nothing behind


def test_a_release_switch_is_one_update_aliases_request(es):
    """Six indexes and the release marker change aliases in one ``POST /_aliases`` (one cluster-state update):
    for a first release, an upsert release (a server-side copy, never a write to a served index) and a
    rollback, each checked against the specification."""
    be = backend_for(es)
    meta = {"model": "test-model"}
    targets = {}
    for name, rows in records().items():
        spec = INDEXES[name]
        version = be.create_version(spec, DIMS if spec.has_vector else None, {**meta, "dims": DIMS})
        be.load(version, spec, _table(name, rows).to_batches())
        targets[name] = be.pin(version)

    def switch(release: Release) -> list[dict]:
        before = len(es.requests)
        be.commit_release(release)
        calls = [r for r in es.requests[before:] if r.operation == "POST /_aliases"]
        assert len(calls) == 1, [r.operation for r in es.requests[before:]]
        return calls[0].body["actions"]

    first = Release(release_id(), "2026-01-01T00:00:00", targets)
    actions = switch(first)
    assert {a["add"]["alias"] for a in actions if "add" in a} == \
        {alias_name(be.prefix, n) for n in [*INDEXES, "release"]}
    assert be.live_release() == first
    spec = INDEXES["passages"]
    served = targets["passages"]
    work = be.writable(served, spec, {**meta, "dims": DIMS})
    assert work != served  # the served index is never written
    rows = [p for p in passages("v2") if p["doc_id"] == "KO_2023_10K"]
    be.upsert(work, spec, _table("passages", rows).to_batches(), replace_docs=["KO_2023_10K"])
    second = Release(release_id(), "2026-01-02T00:00:00", {**targets, "passages": work}, first.id)
    actions = switch(second)
    assert {a.get("add", {}).get("alias") for a in actions} - {None} == \
        {alias_name(be.prefix, "passages"), alias_name(be.prefix, "release")}
    assert be.count(alias_name(be.prefix, "passages")) == be.count(work) and be.count(served) == len(passages())
    assert [r.id for r in be.releases()] == [first.id, second.id]
    left, live = rollback(be)
    assert (left.id, live.id) == (second.id, first.id)
    assert be.alias_target(alias_name(be.prefix, "passages")) == served
    drop_test_indices(be, be.prefix)
    conforms(es)


def test_the_client_speaks_8_so_both_cluster_majors_accept_it(es):
    """An 8.x client's ``compatible-with=8`` is accepted by 8.x and 9.x servers; a 9.x client's
    ``compatible-with=9`` is refused by 8.x servers (400 media_type_header_exception)."""
    import elasticsearch

    assert elasticsearch.__versionstr__.startswith("8."), elasticsearch.__versionstr__
    backend_for(es).count("x*")
    accept = es.requests[-1].headers["accept"]
    assert accept.replace(" ", "") == "application/vnd.elasticsearch+json;compatible-with=8"


def test_the_double_catches_what_the_specification_forbids(es):
    """The checker itself can fail: an unknown property, an unknown query parameter, a wrong type."""
    from elasticsearch import BadRequestError

    be = backend_for(es)
    with pytest.raises(BadRequestError):  # the double cannot answer it either
        be.client.perform_request("POST", "/x/_search", headers={"content-type": "application/json",
                                                                    "accept": "application/json"},
                                  params={"sizee": "3"}, body={"knn": {"field": "v", "query_vector": [1.0], "k": 1,
                                                                       "num_candidate": 5}, "size": "many"})
    import urllib.request

    plain = urllib.request.Request(f"{es.url}/_count", headers={"Accept": "application/json"})
    urllib.request.urlopen(plain, timeout=10).close()
    reasons = " | ".join(why for _, _, why in es.violations)
    assert "'num_candidate' is not in the specification" in reasons
    assert "query parameter 'sizee'" in reasons and "'many' is not of type 'number'" in reasons
    assert "compatible-with=8" in reasons


def test_upserts_and_deletes_become_visible_in_one_refresh(es):
    """Version indices never refresh on a timer; an upsert's new rows and its deletions are sent without
    refresh and made visible by one refresh at the end (readers see old rows, then new ones)."""
    be = backend_for(es)
    _publish(be, "passages", passages())
    template = next(json.dumps(r.body) for r in es.requests if r.operation == "PUT /_index_template/{name}")
    assert '"refresh_interval": "-1"' in template
    start = len(es.requests)
    new = [p for p in passages("v2") if p["doc_id"] == "KO_2023_10K"][:-2]
    spec = INDEXES["passages"]
    be.upsert(alias_name(be.prefix, "passages"), spec, _table("passages", new).to_batches(),
              replace_docs=["KO_2023_10K"])
    writes = [r for r in es.requests[start:] if r.operation in ("PUT /_bulk", "POST /{index}/_refresh")]
    assert [r.operation for r in writes][-1] == "POST /{index}/_refresh"
    assert [r.operation for r in writes].count("POST /{index}/_refresh") == 1
    assert all("refresh" not in r.query for r in writes if r.operation == "PUT /_bulk")
    deleted = [line for r in writes if r.operation == "PUT /_bulk" for line in r.body if "delete" in line]
    assert len(deleted) == 2  # KO's two dropped chunks, by id
    conforms(es)


def test_large_replacements_are_batched(es, monkeypatch):
    """Above index.max_terms_count (65,536) one terms clause fails: document ids go in batches."""
    monkeypatch.setattr(es_module, "ID_BATCH", 3)
    be = backend_for(es)
    _publish(be, "passages", passages())
    start = len(es.requests)
    doc_ids = [f"D{i}" for i in range(10)]
    be.delete(alias_name(be.prefix, "passages"), INDEXES["passages"], doc_ids=doc_ids)
    terms = [r.body["query"]["bool"]["filter"][0]["terms"]["doc_id"] for r in es.requests[start:]
             if r.operation == "POST /{index}/_search" and r.body and "query" in r.body]
    assert [len(t) for t in terms] == [3, 3, 3, 1] and sum(terms, []) == doc_ids
    conforms(es)


def test_a_prefix_like_logs_does_not_clash_with_builtin_templates(es):
    """Built-in ``logs-*-*`` (and metrics, synthetics) templates have priority 100; two overlapping templates
    may not share a priority, so ours sits above."""
    be = backend_for(es, prefix="logs")
    _publish(be, "documents", records()["documents"])
    assert es_module.TEMPLATE_PRIORITY != 100
    conforms(es)


def test_meta_has_no_nulls_and_objects_only(es):
    be = backend_for(es)
    be.create_version(INDEXES["lexicon"], None, {"model": "m", "dims": None})
    body = next(r.body for r in es.requests if r.operation == "PUT /{index}")
    assert "null" not in json.dumps(body["mappings"]["_meta"])
    conforms(es)


def test_server_rrf_falls_back_only_when_unlicensed_or_unsupported(es):
    be = backend_for(es)
    _publish(be, "passages", passages())
    spec, alias = INDEXES["passages"], alias_name(be.prefix, "passages")
    v = vector("PEP_2023_10K:8:0006")
    es.fail["POST /{index}/_search"] = (503, "unavailable", "busy", 10)  # retried by the client, then an error
    with pytest.raises(BackendError, match="hybrid search"):
        be.hybrid(alias, spec, "gross profit", v, k=5)
    es.fail.clear()
    start = len(es.requests)
    be.hybrid(alias, spec, "gross profit", v, k=5)
    assert any("retriever" in (r.body or {}) for r in es.requests[start:])  # a busy cluster keeps server fusion on
    es.fail["POST /{index}/_search"] = (403, "security_exception",
                                        "current license is non-compliant for [Reciprocal Rank Fusion (RRF)]", 1)
    assert be.hybrid(alias, spec, "gross profit", v, k=5)  # fused here instead
    start = len(es.requests)
    be.hybrid(alias, spec, "gross profit", v, k=5)
    assert not any("retriever" in (r.body or {}) for r in es.requests[start:])
    conforms(es)


def test_a_partial_answer_is_asked_again_and_never_returned_as_whole(es, monkeypatch):
    """A node lost mid-query: the engine answers 200 with a shard missing; the backend asks again and returns
    the whole answer, or refuses in one line when every asking stays partial."""
    monkeypatch.setattr(es_module, "PARTIAL_WAITS", (0.0, 0.0))
    be = backend_for(es)
    _publish(be, "passages", passages())
    spec, alias = INDEXES["passages"], alias_name(be.prefix, "passages")
    whole = be.bm25(alias, spec, "gross profit", k=50)
    assert whole
    es.partial["POST /{index}/_search"] = 2
    assert be.bm25(alias, spec, "gross profit", k=50) == whole and not es.partial["POST /{index}/_search"]
    es.partial["POST /{index}/_search"] = 3
    with pytest.raises(BackendError) as err:
        be.knn(alias, spec, vector("PEP_2023_10K:8:0006"), k=5)
    assert "1 of 2 shards did not answer (node_disconnected_exception), asked 3 times" in str(err.value)
    assert "\n" not in str(err.value)
    conforms(es)


def test_bulk_failures_are_backend_errors_without_document_contents(es):
    be = backend_for(es)
    spec = INDEXES["passages"]
    with pytest.raises(BackendError, match="no index version"):
        be.load(f"{be.prefix}-passages-v20260101000000000", spec, _table("passages", passages()).to_batches())
    version = be.create_version(spec, DIMS, {"model": "test-model", "dims": DIMS})

    class Vanishing(dict):  # a year's index made for the load is gone when its rows arrive (another hand)
        def get(self, key, default=None):
            return None if key.startswith(f"{version}-y2") else super().get(key, default)

    es.indices = Vanishing(es.indices)
    with pytest.raises(BackendError) as failed:  # items fail: the index does not exist
        be.load(version, spec, _table("passages", passages()).to_batches())
    message = str(failed.value)
    assert "index_not_found_exception" in message and "Coca-Cola" not in message and "vector" not in message
    closed = ElasticBackend.from_settings(load_settings(elasticsearch_url="http://127.0.0.1:9",
                                                        search_prefix="t"))
    closed.client = closed.client.options(max_retries=0)
    with pytest.raises(BackendError, match="read alias") as down:  # a transport error, wrapped
        closed.load("t-x", spec, _table("passages", passages()).to_batches())
    assert "Coca-Cola" not in str(down.value)


def test_scan_keeps_the_clients_timeout(es, monkeypatch):
    from elasticsearch import helpers

    seen = []
    real = helpers.scan

    def spy(*args, **kwargs):
        seen.append(kwargs.get("request_timeout"))
        return real(*args, **kwargs)

    monkeypatch.setattr(helpers, "scan", spy)
    be = backend_for(es)
    _publish(be, "documents", records()["documents"])
    be.scan(alias_name(be.prefix, "documents"), INDEXES["documents"], ["doc_id"])
    assert seen == [es_module.REQUEST_TIMEOUT_S]


def test_test_teardown_deletes_by_name_because_wildcard_deletes_are_refused(es):
    """Since 8.0 ``action.destructive_requires_name`` refuses ``DELETE /prefix-*`` (the contract suite's old
    teardown left every index behind); ``drop_test_indices`` lists the names and deletes those."""
    from elasticsearch import BadRequestError

    be = backend_for(es)
    _publish(be, "documents", records()["documents"])
    with pytest.raises(BadRequestError, match="illegal_argument_exception"):
        be.client.indices.delete(index=f"{be.prefix}-*")
    drop_test_indices(be, be.prefix)
    assert not es.indices and not [t for t in es.templates if t.startswith(be.prefix)]
    conforms(es)


def _years(rows: list[dict], years) -> list[dict]:
    """The rows again as the same companies' filings of other fiscal years."""
    out = []
    for year in years:
        for r in rows:
            doc = r["doc_id"].replace("2023", str(year))
            out.append({**r, "doc_id": doc, "chunk_id": r["chunk_id"].replace(r["doc_id"], doc), "fiscal_year": year})
    return out


def _written(requests) -> set[str]:
    """Every index a request wrote rows to or created: bulk items, reindex destinations, index creation."""
    out = set()
    for r in requests:
        if r.operation == "PUT /_bulk":
            out |= {meta["_index"] for line in r.body for kind, meta in line.items() if kind in ("index", "delete")}
        elif r.operation == "POST /_reindex":
            out.add(r.body["dest"]["index"])
        elif r.operation == "PUT /{index}" and "-release-" not in r.path:  # not the release's marker
            out.add(r.path.strip("/"))
    return out


def test_an_upsert_copies_only_the_years_it_changes_and_rollback_restores_every_partition(es):
    """A version is an alias over one index per fiscal year: an upsert of one 2022 filing copies and writes
    the 2022 partition only (the new version shares the others), the served version is never written, and a
    rollback serves every partition of the version before; retention then drops only what no release reads."""
    be = backend_for(es)
    spec, alias = INDEXES["passages"], alias_name(be.prefix, "passages")
    first = _publish(be, "passages", _years(passages(), (2021, 2022, 2023)))
    assert sorted(es.aliases[first]) == [f"{first}-y{y}" for y in ("2021", "2022", "2023", "none")]
    served = {i: {k: dict(v) for k, v in es.indices[i].docs.items()} for i in es.aliases[first]}
    start = len(es.requests)
    work = be.writable(be.live_release().targets["passages"], spec, {"model": "test-model", "dims": DIMS})
    changed = [r for r in _years(passages("v2"), (2022,)) if r["doc_id"] == "KO_2022_10K"][:-2]
    be.upsert(work, spec, _table("passages", changed).to_batches(), replace_docs=["KO_2022_10K"])
    serve_version(be, "passages", work)
    assert _written(es.requests[start:]) == {f"{work}-y2022"}
    copies = [r.body["source"]["index"] for r in es.requests[start:] if r.operation == "POST /_reindex"]
    assert copies == [f"{first}-y2022"]
    assert sorted(es.aliases[work]) == sorted([f"{first}-y2021", f"{work}-y2022", f"{first}-y2023", f"{first}-ynone"])
    assert sorted(es.aliases[alias]) == sorted(es.aliases[work])  # the index's alias names the live partitions
    assert {i: es.indices[i].docs for i in es.aliases[first]} == served  # the served version never written
    assert be.count(work) == be.count(first) - 2
    assert [g["chunk_id"] for g in be.get(alias, spec, [changed[0]["chunk_id"], "missing"])] == [changed[0]["chunk_id"]]
    left, live = rollback(be)
    assert live.targets["passages"] == first and sorted(es.aliases[alias]) == sorted(served)
    retain_releases(be, keep=0)
    assert f"{work}-y2022" not in es.indices and work not in es.aliases or not es.aliases[work]
    assert {i: es.indices[i].docs for i in served} == served
    drop_test_indices(be, be.prefix)
    conforms(es)
