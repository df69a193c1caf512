"""The embedded engine's document-restricted searches: what makes hierarchical retrieval cost the chosen
documents' rows instead of the corpus (latency at scale: ``python -m bench.query --scale``). Here, that
they answer exactly as the whole-table paths do."""

from __future__ import annotations

import numpy as np
import pytest

from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend
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
    be.swap_alias(alias_name("t", "passages"), version)
    return be, alias_name("t", "passages"), spec, rows


@pytest.mark.parametrize("filters", [
    {"doc_id": "PEP_2023_10K"}, {"doc_id": ["PEP_2023_10K", "KO_2023_10K"]}, {"doc_id": LONG},
    {"doc_id": "PEP_2023_10K", "item": ["7", "8"]}, {"doc_id": ["KO_2023_10K", LONG], "page_start": [16, 17, 28]},
])
def test_bm25_within_documents_equals_the_prefiltered_search(engine, filters, monkeypatch):
    be, alias, spec, _ = engine
    text = "revenues pricing income gross profit risk"
    fast = be.bm25(alias, spec, text, filters, k=8)
    monkeypatch.setattr(EmbeddedBackend, "_has_doc_terms", lambda self, table: False)  # the prefilter path
    slow = be.bm25(alias, spec, text, filters, k=8)
    assert fast and [(h.id, round(h.score, 5)) for h in fast] == [(h.id, round(h.score, 5)) for h in slow]
    assert [h.source for h in fast] == [h.source for h in slow]


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
