"""The embedded engine's exact kNN over a table version's pieces ranks exactly as Lance's own flat (exhaustive)
search, and a version with deleted rows and a new fragment shares the pieces it kept."""

from __future__ import annotations

import lancedb
import numpy as np
import pyarrow as pa
import pytest
from pydantic import BaseModel

from kernel.search.embedded.fragment_cache import FragmentCache
from kernel.search.embedded.version_cache import VersionCache
from schemas.index import IndexSpec


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
    table = lancedb.connect(str(tmp_path)).create_table("t", data.slice(0, 1_200))
    table.add(data.slice(1_200))  # two fragments
    return table




class _Row(BaseModel):
    id: str
    vector: list[float]


SPEC = IndexSpec("t", _Row, "id", (), doc_field=None)


def _view(table, tmp_path):
    return VersionCache(FragmentCache(tmp_path)).view(table, SPEC)


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
def test_same_ranking_as_lance_flat_search(table, tmp_path, filters, where):
    exact = _view(table, tmp_path)
    rng = np.random.default_rng(11)
    for _ in range(5):
        query = rng.normal(size=32).astype(np.float32)
        got = exact.search(query, filters, 20)
        assert [i for i, *_ in got] == _lance(table, query, where, 20)
        assert all(a[1] >= b[1] for a, b in zip(got, got[1:], strict=False))


def test_list_fields_match_any_element_and_empty_results(table, tmp_path):
    exact = _view(table, tmp_path)
    query = np.ones(32, dtype=np.float32)
    hits = exact.search(query, {"pages": [3]}, 1_000)
    assert {int(i[1:]) % 50 for i, *_ in hits} == {2, 3} and len(hits) == 80
    assert exact.search(query, {"ticker": ["MSFT"]}, 5) == []
    assert {i for i, *_ in exact.search(query, {"id": ["c00001", "c00002"]}, 5)} == {"c00001", "c00002"}
    assert exact.search(np.zeros(32), {}, 5) == []


def test_a_new_version_shares_its_kept_pieces_and_masks_deleted_rows(table, tmp_path):
    views = VersionCache(FragmentCache(tmp_path))
    before = views.view(table, SPEC)
    table.delete("id IN ('c00003', 'c01500')")
    rng = np.random.default_rng(3)
    table.add(pa.table({"id": ["n00001"], "ticker": ["KO"], "year": [2024], "pages": [[1]],
                        "vector": pa.FixedSizeListArray.from_arrays(pa.array(rng.normal(size=32).astype(np.float32)),
                                                                    32)}))
    after = views.view(table, SPEC)
    assert after.pieces[0] is before.pieces[0] and after.pieces[1] is before.pieces[1] and len(after.pieces) == 3
    assert after.live_rows == before.live_rows - 1 and before.live_rows == 2_000
    query = rng.normal(size=32).astype(np.float32)
    got = [i for i, *_ in after.search(query, {}, 2_000)]
    assert got == _lance(table, query, None, 2_000) and "c00003" not in got and "n00001" in got
    assert after.rows_of(["c00003", "c00004", "n00001"]) == [4, 2 << 32]
    fresh = VersionCache(FragmentCache(tmp_path)).view(table, SPEC)  # another process: the stored pieces, mapped
    assert isinstance(fresh.pieces[0].matrix, np.memmap) and fresh.search(query, {"ticker": ["KO"]}, 5) == \
        after.search(query, {"ticker": ["KO"]}, 5)
