"""The embedded engine's document-restricted searches: what makes hierarchical retrieval cost the chosen
documents' rows instead of the corpus (latency at scale: ``python -m bench.query --scale``). Here, that
they answer exactly as written-out definitions do, and that a new version costs what it changed."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from domain.text import analyzer
from kernel.search import serve_version
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend, version_cache
from kernel.search.embedded.fragment_arrays import fragment_arrays
from schemas.base import to_table
from schemas.index import INDEXES
from tests.index_records import DIMS, passages, vector

LONG = "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30_0000200406-23-000071"  # over lance's default 40-char token


@pytest.fixture()
def engine(tmp_path):
    rows = passages(per_item=6)
    for r in rows[:12]:  # a document id longer than a default token
        r["doc_id"], r["chunk_id"] = LONG, r["chunk_id"].replace("KO_2023_10K", LONG)
    be = EmbeddedBackend(tmp_path / "search", prefix="t")
    spec = INDEXES["passages"]
    version = be.create_version(spec, DIMS, {"model": "test-model"})
    be.load(version, spec, to_table(spec.model, rows).to_batches(max_chunksize=7))
    serve_version(be, "passages", version)
    return be, alias_name("t", "passages"), spec, rows


def _reference_bm25(rows: list[dict], spec, text: str, filters: dict, k: int) -> list[tuple[str, float]]:
    """Okapi BM25 written out plainly over every row (the whole table's statistics), then filtered: what the
    engine's in-memory postings must reproduce."""
    analyze = analyzer().analyze
    query = set(analyze(text))
    totals = {r["chunk_id"]: 0.0 for r in rows}
    for field in spec.text_fields:
        tokens = {r["chunk_id"]: analyze(r[field] or "") for r in rows}
        average = sum(map(len, tokens.values())) / len(rows)
        df = Counter(t for toks in tokens.values() for t in set(toks))
        for cid, toks in tokens.items():
            tf = Counter(toks)
            for t in query & set(toks):
                idf = math.log(1 + (len(rows) - df[t] + 0.5) / (df[t] + 0.5))
                norm = 1.2 * (1 - 0.75 + 0.75 * len(toks) / average)
                totals[cid] += spec.boost(field) * idf * tf[t] * 2.2 / (tf[t] + norm)
    wanted = {name: {str(v) for v in (vals if isinstance(vals, list) else [vals])} for name, vals in filters.items()}
    passing = [r for r in rows if all(str(r[n]) in vals for n, vals in wanted.items()) and totals[r["chunk_id"]] > 0]
    best = sorted(passing, key=lambda r: (-totals[r["chunk_id"]], r["chunk_id"]))[:k]
    return [(r["chunk_id"], round(totals[r["chunk_id"]], 4)) for r in best]


@pytest.mark.parametrize("filters", [
    {"doc_id": "PEP_2023_10K"}, {"doc_id": ["PEP_2023_10K", "KO_2023_10K"]}, {"doc_id": LONG},
    {"doc_id": "PEP_2023_10K", "item": ["7", "8"]}, {"doc_id": ["KO_2023_10K", LONG], "page_start": [16, 17, 28]},
])
def test_bm25_within_documents_is_okapi_bm25_over_the_whole_table(engine, filters):
    be, alias, spec, rows = engine
    text = "Revenues pricing income gross-profit risk, Coca-Cola"
    hits = be.bm25(alias, spec, text, filters, k=8)
    assert hits and [(h.id, round(h.score, 4)) for h in hits] == _reference_bm25(rows, spec, text, filters, 8)
    by_id = {r["chunk_id"]: r for r in rows}
    assert all(h.source["text"] == by_id[h.id]["text"] and "vector" not in h.source for h in hits)


def test_an_upsert_maps_in_only_its_new_fragment_and_scores_over_the_new_version(engine, monkeypatch):
    """A new version shares every piece it keeps (nothing of them is read again); the upserted rows come as
    one new fragment, replaced rows are masked, and BM25's statistics are the new version's."""
    be, alias, spec, rows = engine
    be.warm(alias, spec)
    before = be.versions_cache.view(be.table(alias), spec)
    row = {**rows[0], "text": "A zeppelin hangar lease was signed."}
    be.upsert(alias, spec, to_table(spec.model, [row]).to_batches())
    serve_version(be, "passages", be.alias_target(alias))  # a release serving the upserted table version
    read = []
    monkeypatch.setattr(version_cache, "fragment_arrays", lambda data, *a: read.append(data.num_rows) or
                        fragment_arrays(data, *a))
    after = be.versions_cache.view(be.table(alias), spec)
    assert read == [1] and after.pieces[:-1] == before.pieces and len(after.deleted[0]) == 1
    hits = be.bm25(alias, spec, "zeppelin hangar", {"doc_id": row["doc_id"]}, k=3)
    assert [h.id for h in hits] == [row["chunk_id"]]
    new_rows = [row, *rows[1:]]
    text = "Revenues pricing income zeppelin"
    got = be.bm25(alias, spec, text, {"doc_id": row["doc_id"]}, k=8)
    assert [(h.id, round(h.score, 4)) for h in got] == _reference_bm25(new_rows, spec, text, {"doc_id": row["doc_id"]}, 8)


def test_knn_and_get_read_only_the_rows_they_return(engine):
    be, alias, spec, rows = engine
    target = rows[20]["chunk_id"]
    hits = be.knn(alias, spec, vector(target), {"doc_id": rows[20]["doc_id"], "item": rows[20]["item"]}, k=3)
    assert hits[0].id == target and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert {h.source["doc_id"] for h in hits} == {rows[20]["doc_id"]} and "vector" not in hits[0].source
    got = be.get(alias, spec, [rows[3]["chunk_id"], "missing", rows[1]["chunk_id"]])
    assert [g["chunk_id"] for g in got] == [rows[3]["chunk_id"], rows[1]["chunk_id"]]
    assert got[0]["text"] == rows[3]["text"]
    assert be.knn(alias, spec, np.zeros(DIMS), {"doc_id": LONG}, k=3) == []
