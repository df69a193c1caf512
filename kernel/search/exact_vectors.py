"""Exact cosine kNN from an in-memory matrix, for the embedded engine's tables below the ANN threshold.

Lance's flat search reads the vector column from disk on every query (350-550 ms for 40k passages on two
cores); one matrix product over the same vectors held in memory takes milliseconds and ranks the same. The
matrix belongs to one table version: a newer version (an upsert, a delete) is loaded afresh on the next
query, so one result never mixes versions. Filter columns are read on first use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


class ExactVectors:
    """Ids, unit-normalized vectors and filterable columns of one table version."""

    def __init__(self, table, id_field: str):
        self.table = table
        self.id_field = id_field
        self.version = table.version  # read before the data: at worst one extra reload, never a stale cache
        data = table.search().select([id_field, "vector"]).limit(None).to_arrow()
        self.ids = np.asarray(data.column(id_field).to_pylist(), dtype=object)
        self._row = {i: n for n, i in enumerate(self.ids)}
        vectors = data.column("vector").combine_chunks()
        matrix = vectors.values.to_numpy(zero_copy_only=False).astype(np.float32).reshape(len(self.ids), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self.matrix = matrix / np.where(norms == 0, 1.0, norms)
        self._masks: dict[tuple[str, tuple], np.ndarray] = {}
        self._columns: dict[str, list] = {}

    def _column(self, name: str) -> list:
        """A column in row order (aligned by id: a second scan need not return rows in the same order)."""
        column = self._columns.get(name)
        if column is None and name == self.id_field:
            column = self._columns[name] = list(self.ids)
        if column is None:
            data = self.table.search().select([self.id_field, name]).limit(None).to_arrow()
            column = [None] * len(self.ids)
            for i, value in zip(data.column(self.id_field).to_pylist(), data.column(name).to_pylist(), strict=True):
                row = self._row.get(i)
                if row is not None:
                    column[row] = value
            self._columns[name] = column
        return column

    def _mask(self, name: str, values: Sequence) -> np.ndarray:
        """Rows whose field equals one of ``values`` (for a list field: holds one of them)."""
        wanted = frozenset(values)
        key = (name, tuple(sorted(map(repr, wanted))))
        mask = self._masks.get(key)
        if mask is None:
            column = self._column(name)
            mask = np.fromiter(((not wanted.isdisjoint(v)) if isinstance(v, list) else (v in wanted)
                                for v in column), dtype=bool, count=len(column))
            if len(self._masks) > 256:
                self._masks.clear()
            self._masks[key] = mask
        return mask

    def search(self, vector: Sequence[float], filters: Mapping[str, Sequence], k: int) -> list[tuple[str, float]]:
        """(id, cosine) of the ``k`` nearest rows passing every filter, best first, ties by id."""
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0 or not len(self.ids) or k <= 0:
            return []
        rows = None
        for name, values in filters.items():
            mask = self._mask(name, values)
            rows = mask if rows is None else rows & mask
        candidates = np.arange(len(self.ids)) if rows is None else np.flatnonzero(rows)
        if not len(candidates):
            return []
        scores = self.matrix[candidates] @ (query / norm) if rows is not None else self.matrix @ (query / norm)
        k = min(k, len(candidates))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((self.ids[candidates[top]], -scores[top]))]
        return [(str(self.ids[candidates[i]]), float(scores[i])) for i in top]
