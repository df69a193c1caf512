"""The embedded engine's in-memory exact kNN ranks exactly as Lance's own flat (exhaustive) search."""

from __future__ import annotations

import lancedb
import numpy as np
import pyarrow as pa
import pytest

from kernel.search.exact_vectors import ExactVectors


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(7)
    n, dims = 2_000, 32
    vectors = rng.normal(size=(n, dims)).astype(np.float32)
    data = pa.table({
        "id": [f"c{i:05d}" for i in range(n)],
        "ticker": [["KO", "PEP", "AAPL"][i % 3] for i in range(n)],
        "year": [2020 + i % 4 for i in range(n)],
        "pages": [[i % 50, i % 50 + 1] for i in range(n)],
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dims),
    })
    return lancedb.connect(str(tmp_path)).create_table("t", data)


def _lance(table, query, where, k):
    search = table.search(query, vector_column_name="vector").distance_type("cosine")
    if where:
        search = search.where(where, prefilter=True)
    rows = search.select(["id"]).limit(k).to_arrow().to_pylist()
    return [r["id"] for r in rows]


@pytest.mark.parametrize(("filters", "where"), [
    ({}, None),
    ({"ticker": ["KO"]}, "ticker = 'KO'"),
    ({"ticker": ["KO", "PEP"], "year": [2021]}, "ticker IN ('KO', 'PEP') AND year = 2021"),
])
def test_same_ranking_as_lance_flat_search(table, filters, where):
    exact = ExactVectors(table, "id")
    rng = np.random.default_rng(11)
    for _ in range(5):
        query = rng.normal(size=32).astype(np.float32)
        got = exact.search(query, filters, 20)
        assert [i for i, *_ in got] == _lance(table, query, where, 20)
        assert all(a[1] >= b[1] for a, b in zip(got, got[1:], strict=False))


def test_list_fields_match_any_element_and_empty_results(table):
    exact = ExactVectors(table, "id")
    query = np.ones(32, dtype=np.float32)
    hits = exact.search(query, {"pages": [3]}, 1_000)
    assert {int(i[1:]) % 50 for i, *_ in hits} == {2, 3} and len(hits) == 80
    assert exact.search(query, {"ticker": ["MSFT"]}, 5) == []
    assert {i for i, *_ in exact.search(query, {"id": ["c00001", "c00002"]}, 5)} == {"c00001", "c00002"}
    assert exact.search(np.zeros(32), {}, 5) == []
