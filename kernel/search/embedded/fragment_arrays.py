"""One Lance fragment's rows as the embedded engine searches them from memory: ids, unit vectors, filter
postings and row-term postings, every one a flat array indexed by the row's offset in the fragment.

No Python object per row: ids are fixed-width bytes (sorted beside them for lookups by id), a filter column
is (its distinct values -> a run of offsets), vectors a float32 matrix. Everything is written once per
fragment (``kernel.search.embedded.fragment_cache``) and mapped back read-only, so a serving process holds in memory
only the pages its queries touch. A row the fragment had deleted when it was read holds an empty id, a zero
vector and no terms; versions mask deleted rows themselves (``kernel.search.embedded.table_version``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from kernel.search.embedded.fragment_bm25 import FIELD_ARRAYS, FieldTerms, Vocabulary, field_arrays

ROW_ADDRESS = "_rowaddr"


def value_key(value) -> str:
    """A filter value as the postings key it (and the column's stored value) has: one spelling per type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


class Posting:
    """A filter column of a fragment: value -> the offsets holding it (a list column: each of its values)."""

    def __init__(self, order: np.ndarray, runs: dict[str, tuple[int, int]]):
        self.order, self.runs = order, runs

    def offsets(self, values: Sequence) -> np.ndarray:
        runs = [self.runs.get(value_key(v)) for v in set(values)]
        parts = [self.order[run[0]:run[1]] for run in runs if run is not None]
        return np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.empty(0, np.int64)


def posting_arrays(column: pa.ChunkedArray | pa.Array, offsets: np.ndarray) -> tuple[dict, dict]:
    """(arrays, meta) of a filter column's posting from its values at ``offsets``."""
    values = column.to_pylist()
    keys, owners = [], []
    for offset, value in zip(offsets.tolist(), values, strict=True):
        for v in value if isinstance(value, list) else (value,):
            if v is not None:
                keys.append(value_key(v))
                owners.append(offset)
    distinct, inverse = np.unique(np.asarray(keys, dtype=str), return_inverse=True) if keys else ([], [])
    order = np.argsort(inverse, kind="stable") if keys else np.empty(0, np.int64)
    starts = np.searchsorted(np.asarray(inverse)[order], np.arange(len(distinct) + 1)) if keys else [0]
    runs = {str(v): [int(starts[i]), int(starts[i + 1])] for i, v in enumerate(distinct)}
    return {"order": np.asarray(owners, dtype=np.int64)[order].astype(np.int32)}, {"runs": runs}


class FragmentArrays:
    """A fragment's arrays (``fragment_arrays``), and its filter postings, read on first use through ``column``
    (fragment id, column name) -> (arrays, meta) of :func:`posting_arrays`."""

    def __init__(self, fragment: int, arrays: dict[str, np.ndarray], meta: dict,
                 column: Callable[[int, str], tuple[dict, dict]]):
        self.fragment = fragment
        self.rows: int = meta["rows"]
        self.ids, self.sorted_ids, self.id_order = arrays["ids"], arrays["sorted_ids"], arrays["id_order"]
        self.matrix = arrays.get("matrix")
        self.terms = {name: FieldTerms({k: arrays[f"{name}.{k}"] for k in FIELD_ARRAYS}, total)
                      for name, total in meta.get("text_fields", {}).items()}
        self._column = column
        self._postings: dict[str, Posting] = {}
        for name, runs in meta.get("postings", {}).items():
            self._postings[name] = Posting(arrays[f"{name}.order"], {k: tuple(v) for k, v in runs.items()})

    def posting(self, name: str) -> Posting:
        posting = self._postings.get(name)
        if posting is None:
            arrays, meta = self._column(self.fragment, name)
            posting = self._postings[name] = Posting(arrays["order"], {k: tuple(v) for k, v in meta["runs"].items()})
        return posting

    def offsets_of(self, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(index into ``ids``, offset) of each id this fragment holds."""
        if not len(self.sorted_ids) or not ids:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        keys = np.asarray([i.encode() for i in ids], dtype=f"S{max(len(i.encode()) for i in ids) or 1}")
        at = np.minimum(np.searchsorted(self.sorted_ids, keys), len(self.sorted_ids) - 1)
        found = np.flatnonzero(self.sorted_ids[at] == keys)
        return found, self.id_order[at[found]].astype(np.int64)


def fragment_arrays(data: pa.Table, rows: int, id_field: str, vector: bool, text_fields: Sequence[str],
                 postings: Sequence[str], vocabulary: Vocabulary) -> tuple[dict[str, np.ndarray], dict]:
    """A fragment's arrays from its live rows (``data``, with their row addresses), ``rows`` physical rows."""
    data = data.sort_by(ROW_ADDRESS)
    offsets = (data.column(ROW_ADDRESS).to_numpy() & 0xFFFFFFFF).astype(np.int64)
    rows = max(rows, int(offsets[-1]) + 1 if len(offsets) else 0)
    raw = [i.encode() for i in data.column(id_field).to_pylist()]
    ids = np.zeros(rows, dtype=f"S{max(map(len, raw), default=1)}")
    ids[offsets] = raw
    order = np.argsort(ids[offsets], kind="stable")
    arrays: dict[str, np.ndarray] = {"ids": ids, "sorted_ids": ids[offsets][order],
                                     "id_order": offsets[order].astype(np.int32)}
    meta: dict = {"rows": rows, "text_fields": {}, "postings": {}}
    if vector:
        arrays["matrix"] = _unit_matrix(data.column("vector"), offsets, rows)
    for name in postings:
        posting, runs = posting_arrays(data.column(name), offsets)
        arrays[f"{name}.order"], meta["postings"][name] = posting["order"], runs["runs"]
    for name in text_fields:
        field = field_arrays(vocabulary, data.column(name).to_pylist(), offsets, rows)
        arrays.update({f"{name}.{k}": v for k, v in field.items()})
        meta["text_fields"][name] = int(field["length"].sum())
    return arrays, meta


def _unit_matrix(column: pa.ChunkedArray, offsets: np.ndarray, rows: int) -> np.ndarray:
    """The vectors by offset, each scaled to unit length (zero rows stay zero), chunk by chunk: one copy of
    the vectors besides Arrow's, never three."""
    dims = column.type.list_size
    matrix = np.zeros((rows, dims), dtype=np.float32)
    at = 0
    for chunk in column.chunks:
        block = chunk.flatten().to_numpy(zero_copy_only=False).reshape(len(chunk), dims).astype(np.float32)
        norms = np.sqrt(np.einsum("ij,ij->i", block, block))[:, None]
        matrix[offsets[at:at + len(chunk)]] = block / np.where(norms == 0, 1.0, norms)
        at += len(chunk)
    return matrix
