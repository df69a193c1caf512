"""Exact cosine kNN from an in-memory matrix, for the embedded engine's tables below the ANN threshold.

Lance's flat search reads the vector column from disk on every query (350-550 ms for 40k passages on two
cores); one matrix product over the same vectors held in memory takes milliseconds and ranks the same. The
matrix belongs to one table version: a newer version (an upsert, a delete) is loaded afresh on the next
query, so one result never mixes versions. Filter columns are read on first use into postings (value ->
rows), so a search restricted to some documents costs their rows, not the table's: hierarchical retrieval
searches a handful of documents whatever the corpus size. Memory: the vectors (4 bytes a dimension, 1.5 KB
a 384-dim passage) plus the ids, per serving process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


class ExactVectors:
    """Ids, Lance row ids, unit-normalized vectors and filterable columns of one table version."""

    def __init__(self, table, id_field: str, cached: dict[str, np.ndarray] | None = None):
        """The table's current version, read from Lance, or from ``cached`` (:meth:`arrays` of the same
        version, as ``kernel.search.version_cache`` keeps them)."""
        self.table = table
        self.id_field = id_field
        self.version = table.version  # read before the data: at worst one extra reload, never a stale cache
        self._postings: dict[str, dict] = {}
        if cached is not None:
            self.ids = cached["ids"].astype(object)
            self.row_ids, self.matrix = cached["row_ids"], cached["matrix"]
            self._row = {i: n for n, i in enumerate(self.ids)}
            return
        data = table.search().select([id_field, "vector"]).with_row_id(True).limit(None).to_arrow()
        self.ids = np.asarray(data.column(id_field).to_pylist(), dtype=object)
        self.row_ids = data.column("_rowid").to_numpy()
        self._row = {i: n for n, i in enumerate(self.ids)}
        column = data.column("vector")
        matrix = np.empty((len(self.ids), column.type.list_size), dtype=np.float32)
        at = 0
        for chunk in column.chunks:  # chunk by chunk: one copy of the vectors besides Arrow's, never three
            matrix[at:at + len(chunk)] = chunk.flatten().to_numpy(zero_copy_only=False).reshape(len(chunk), -1)
            at += len(chunk)
        del data, column
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]  # no temporary the size of the matrix
        matrix /= np.where(norms == 0, 1.0, norms)  # in place: no third copy
        self.matrix = matrix

    def arrays(self) -> dict[str, np.ndarray]:
        """What :meth:`__init__` reads back as ``cached``."""
        return {"ids": np.asarray(self.ids, dtype=str), "row_ids": self.row_ids, "matrix": self.matrix}

    def row_of(self, id_: str) -> int | None:
        """The position of an id in this version's rows (None: not in it)."""
        return self._row.get(id_)

    def rows_of(self, ids: Sequence[str]) -> list[int]:
        """Lance row ids of these ids (unknown ids left out), for a take that reads only those rows."""
        return [int(self.row_ids[n]) for n in (self._row.get(i) for i in ids) if n is not None]

    def _posting(self, name: str) -> dict:
        """value -> rows holding it (a list field: each of its values), built once per column: a filter
        then costs the rows it selects, not the table's size."""
        posting = self._postings.get(name)
        if posting is None and name == self.id_field:
            posting = self._postings[name] = {i: np.asarray([n], dtype=np.int64) for n, i in enumerate(self.ids)}
        if posting is None:
            data = self.table.search().select([self.id_field, name]).limit(None).to_arrow()
            lists: dict = {}
            for i, value in zip(data.column(self.id_field).to_pylist(), data.column(name).to_pylist(), strict=True):
                row = self._row.get(i)  # aligned by id: a second scan need not return rows in the same order
                if row is None:
                    continue
                for v in value if isinstance(value, list) else (value,):
                    lists.setdefault(v, []).append(row)
            posting = self._postings[name] = {v: np.asarray(rows, dtype=np.int64) for v, rows in lists.items()}
        return posting

    def candidates(self, filters: Mapping[str, Sequence]) -> np.ndarray | None:
        """Rows passing every filter (sorted), or None without filters."""
        rows = None
        for name, values in filters.items():
            posting = self._posting(name)
            parts = [posting[v] for v in set(values) if v in posting]
            found = np.unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)
            rows = found if rows is None else np.intersect1d(rows, found, assume_unique=True)
        return rows

    def search(self, vector: Sequence[float], filters: Mapping[str, Sequence], k: int,
               max_rows: int | None = None) -> list[tuple[str, float, int]] | None:
        """(id, cosine, row id) of the ``k`` nearest rows passing every filter, best first, ties by id; None
        when more than ``max_rows`` rows pass (the ANN index serves those)."""
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0 or not len(self.ids) or k <= 0:
            return []
        rows = self.candidates(filters)
        if max_rows is not None and (len(self.ids) if rows is None else len(rows)) > max_rows:
            return None
        if rows is not None and not len(rows):
            return []
        scores = self._scores(query / norm, rows)
        rows = np.arange(len(self.ids)) if rows is None else rows
        k = min(k, len(rows))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((self.ids[rows[top]], -scores[top]))]
        return [(str(self.ids[rows[i]]), float(scores[i]), int(self.row_ids[rows[i]])) for i in top]

    def _scores(self, query: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
        """Cosines of the rows (all without ``rows``). A document's rows are contiguous (tables are written
        document by document), so they are read as slices of the matrix, not copied row by row."""
        if rows is None:
            return self.matrix @ query
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        runs = np.split(rows, breaks)
        if len(runs) > len(rows) // 8:  # scattered rows: one gather is cheaper than many small products
            return self.matrix[rows] @ query
        return np.concatenate([self.matrix[run[0]:run[-1] + 1] @ query for run in runs])

