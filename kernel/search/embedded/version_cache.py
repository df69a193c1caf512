"""The table versions a process has opened (``table_version.TableVersion``), made of fragment arrays shared
across versions.

A version lists its fragments (Lance's manifest: no data read) and maps each fragment's arrays: from memory
when an earlier version already had them, from the fragment cache when another process computed them, else
computed from the fragment's rows and stored. A version's deleted rows come from its fragments' deletion
files, read once per deletion file. So the first query of a new release costs what the release changed: its
new fragments (computed by the publisher before the release went live) and its new deletion files.
"""

from __future__ import annotations

import threading
from functools import partial

import numpy as np

from kernel.search.embedded.fragment_arrays import (
    ROW_ADDRESS,
    FragmentArrays,
    fragment_arrays,
    posting_arrays,
)
from kernel.search.embedded.fragment_bm25 import Vocabulary
from kernel.search.embedded.fragment_cache import FragmentCache
from kernel.search.embedded.table_version import TableVersion
from schemas.index import IndexSpec


class VersionCache:
    def __init__(self, store: FragmentCache):
        self.store = store
        self.vocabulary = Vocabulary()
        self._pieces: dict[tuple[str, int], FragmentArrays] = {}
        self._views: dict[str, TableVersion] = {}  # <table>@<version>
        self._lock = threading.RLock()

    def view(self, table, spec: IndexSpec, key: str | None = None) -> TableVersion:
        """The view of the table's checked-out version (built once per version per process); ``key``: its
        ``<table>@<version>`` when the caller knows it (asking Lance costs a call)."""
        key = key or f"{table.name}@{table.version}"
        found = self._views.get(key)
        if found is not None:
            return found
        with self._lock:  # one builder per process: a second query of a new version waits for the first's
            found = self._views.get(key)
            if found is None:
                found = self._views[key] = self._build(table, spec)
        return found

    def _build(self, table, spec: IndexSpec) -> TableVersion:
        dataset = table.to_lance()
        pieces, deleted = [], []
        for fragment in dataset.get_fragments():
            piece = self._piece(table.name, fragment, spec)
            pieces.append(piece)
            deleted.append(self._deleted(table.name, fragment, piece.rows))
        return TableVersion(dataset.version, pieces, deleted, spec.id_field)

    def _piece(self, table: str, fragment, spec: IndexSpec) -> FragmentArrays:
        key = (table, fragment.fragment_id)
        piece = self._pieces.get(key)
        if piece is not None:
            return piece
        name = f"f{fragment.fragment_id}"
        stored = self.store.load(table, name)
        if stored is None:
            texts = spec.text_fields if spec.doc_field and spec.has_vector else ()
            postings = [spec.doc_field] if spec.doc_field else []
            columns = list(dict.fromkeys([spec.id_field, *(["vector"] if spec.has_vector else []), *texts,
                                          *postings]))
            data = fragment.to_table(columns=columns, with_row_address=True)
            stored = fragment_arrays(data, fragment.metadata.physical_rows, spec.id_field, spec.has_vector, texts,
                                  postings, self.vocabulary)
            del data
            self.store.save(table, name, *stored)
            stored = self.store.load(table, name) or stored  # mapped: a server holds the pages it reads
        piece = self._pieces[key] = FragmentArrays(fragment.fragment_id, *stored, column=partial(self._column, table, fragment))
        return piece

    def _column(self, table: str, fragment, fragment_id: int, column: str) -> tuple[dict, dict]:
        """A filter column's posting for a fragment, read on first use and stored."""
        name = f"f{fragment_id}.{column}"
        stored = self.store.load(table, name)
        if stored is None:
            data = fragment.to_table(columns=[column], with_row_address=True)
            offsets = (data.column(ROW_ADDRESS).to_numpy() & 0xFFFFFFFF).astype(np.int64)
            stored = posting_arrays(data.column(column), offsets)
            self.store.save(table, name, *stored)
        return stored

    def _deleted(self, table: str, fragment, rows: int) -> np.ndarray:
        """The offsets the fragment's deletion file removes (none without one), read once per file."""
        deletion = fragment.metadata.deletion_file
        if deletion is None:
            return np.empty(0, dtype=np.int64)
        name = f"f{fragment.fragment_id}.d{deletion.read_version}-{deletion.id}"
        stored = self.store.load(table, name)
        if stored is None:
            live = fragment.to_table(columns=[], with_row_address=True).column(ROW_ADDRESS).to_numpy()
            gone = np.setdiff1d(np.arange(rows, dtype=np.int64), (live & 0xFFFFFFFF).astype(np.int64))
            self.store.save(table, name, {"deleted": gone}, {})
            return gone
        return np.asarray(stored[0]["deleted"], dtype=np.int64)

    def retain(self, keys: set[str]) -> None:
        """Keep the views of these ``<table>@<version>`` keys and the pieces they use; free the rest."""
        with self._lock:
            for key in [k for k in self._views if k not in keys]:
                del self._views[key]
            used = {(k.partition("@")[0], p.fragment) for k, v in self._views.items() for p in v.pieces}
            for key in [k for k in self._pieces if k not in used]:
                del self._pieces[key]

    def drop(self, table: str) -> None:
        with self._lock:
            for key in [k for k in self._views if k.partition("@")[0] == table]:
                del self._views[key]
            for key in [k for k in self._pieces if k[0] == table]:
                del self._pieces[key]
        self.store.drop(table)
