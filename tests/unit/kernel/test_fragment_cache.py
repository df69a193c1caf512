"""The embedded engine's per-fragment pieces on disk: a second process maps what the publisher computed (same
results, nothing rebuilt), and the pieces of fragments no kept release holds, or of a dropped table, go."""

from __future__ import annotations

import numpy as np

from kernel.resources import Resources
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend, version_cache
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.runner import run_stage
from tests.index_records import records, write_index_lake


def _published(tmp_path):
    write_index_lake(tmp_path, records("v1"))
    settings = load_settings(lake_root=str(tmp_path), search_keep_versions=1)
    assert not run_stage("publish", Resources(settings)).blocked
    return settings


def _search(backend: EmbeddedBackend):
    spec, alias = INDEXES["passages"], alias_name(backend.prefix, "passages")
    backend.warm(alias, spec)
    scope = {"doc_id": ["KO_2023_10K"]}
    lexical = backend.bm25(alias, spec, "revenues pricing operating income", scope, 5)
    dense = backend.knn(alias, spec, np.ones(16, dtype=np.float32), scope, 5)
    return [(h.id, round(h.score, 6)) for h in lexical], [(h.id, round(h.score, 6)) for h in dense]


def test_a_second_process_reads_what_the_first_computed(tmp_path, monkeypatch):
    settings = _published(tmp_path)
    cache = tmp_path / "search" / ".cache"
    entries = sorted(p.name for p in cache.glob("*/*"))
    # publishing made them: one piece per fragment of the documents and passages tables
    assert len(entries) == 2 and all(e.startswith("f0-") for e in entries), entries
    first = _search(EmbeddedBackend.from_settings(settings))

    def no_rebuild(*args, **kwargs):
        raise AssertionError("a piece rebuilt although the store holds it")

    monkeypatch.setattr(version_cache, "fragment_arrays", no_rebuild)
    second = EmbeddedBackend.from_settings(settings)
    assert _search(second) == first and first[0] and first[1]
    view = second.versions_cache.view(second.table(alias_name(second.prefix, "passages")), INDEXES["passages"])
    assert isinstance(view.pieces[0].matrix, np.memmap)  # mapped from the store, not read from Lance


def test_a_new_version_replaces_the_entry_and_a_dropped_table_leaves_none(tmp_path):
    settings = _published(tmp_path)
    cache = tmp_path / "search" / ".cache"
    first = {p.parent.name for p in cache.glob("*/*")}
    for tag in ("v2", "v3"):  # two rebuilds: the first tables fall out of retention (one previous kept)
        write_index_lake(tmp_path, records(tag))
        assert not run_stage("publish", Resources(settings), rebuild=True).blocked
    left = {p.parent.name for p in cache.glob("*/*")}
    assert left and not left & first, (first, left)
    assert all(len(list((cache / t).glob("f*"))) >= 1 for t in left)


def test_a_table_says_what_it_is_under_the_one_metadata_key_or_the_one_before():
    import pyarrow as pa

    from kernel.search.embedded.backend import table_meta

    assert table_meta(pa.schema([], metadata={b"secplat": b'{"model": "m"}'})) == {"model": "m"}
    assert table_meta(pa.schema([], metadata={b"secplat.meta": b'{"model": "old"}'})) == {"model": "old"}
    assert table_meta(pa.schema([])) == {}
