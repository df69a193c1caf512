"""One Lance table version as the embedded engine searches it from memory: its fragments' pieces in order,
less the rows the version deleted. Exact cosine kNN and BM25 restricted to some documents cost their rows,
whatever the table's size.

Lance's flat search reads the vector column from disk on every query; a matrix product over the candidate
rows' vectors, mapped from the pieces, takes milliseconds and ranks the same. Positions number the rows of
the version's pieces one after another (deleted rows keep their place and never pass a filter), so a result
never mixes versions, and a version shares every piece it keeps with the version before: a nightly release
maps in its new fragments and a list of deleted rows, not the corpus.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kernel.search.embedded.fragment_arrays import FragmentArrays
from kernel.search.embedded.fragment_bm25 import idf


class TableVersion:
    def __init__(self, version: int, pieces: Sequence[FragmentArrays], deleted: Sequence[np.ndarray], id_field: str):
        """``deleted``: per piece, the offsets this version deleted (sorted)."""
        self.version, self.pieces, self.id_field = version, list(pieces), id_field
        self.deleted = [np.asarray(d, dtype=np.int64) for d in deleted]
        self.base = np.concatenate([[0], np.cumsum([p.rows for p in self.pieces])]).astype(np.int64)
        self.live_rows = int(self.base[-1]) - sum(len(d) for d in self.deleted)
        self._df: dict[tuple[str, bytes], int] = {}
        self._average: dict[str, float] = {}

    # -- positions
    def live(self, n: int, offsets: np.ndarray) -> np.ndarray:
        """Those offsets of piece ``n`` this version has not deleted."""
        gone = self.deleted[n]
        return offsets[~np.isin(offsets, gone, assume_unique=True)] if len(gone) and len(offsets) else offsets

    def _split(self, positions: np.ndarray):
        """(piece number, its offsets, where they sit in ``positions``) for each piece holding some of them;
        offsets come sorted when ``positions`` are."""
        if len(positions) > 1 and np.any(positions[1:] < positions[:-1]):
            order = np.argsort(positions, kind="stable")
            for n, offsets, where in self._split(positions[order]):
                yield n, offsets, order[where]
            return
        cuts = np.searchsorted(positions, self.base)
        for n in range(len(self.pieces)):
            if cuts[n + 1] > cuts[n]:
                yield n, positions[cuts[n]:cuts[n + 1]] - self.base[n], slice(int(cuts[n]), int(cuts[n + 1]))

    def ids_at(self, positions: np.ndarray) -> np.ndarray:
        """The ids (bytes) at some positions."""
        parts = [(where, self.pieces[n].ids[offsets]) for n, offsets, where in self._split(positions)]
        out = np.zeros(len(positions), dtype=f"S{max((p.dtype.itemsize for _, p in parts), default=1)}")
        for where, ids in parts:
            out[where] = ids
        return out

    def row_ids_at(self, positions: np.ndarray) -> np.ndarray:
        """Lance row addresses: fragment << 32 | offset."""
        out = np.empty(len(positions), dtype=np.int64)
        for n, offsets, where in self._split(positions):
            out[where] = (self.pieces[n].fragment << 32) | offsets
        return out

    def rows_of(self, ids: Sequence[str]) -> list[int]:
        """Lance row addresses of these ids (unknown or deleted ids left out), in the order of ``ids``."""
        found: dict[int, int] = {}
        for n, piece in enumerate(self.pieces):
            at, offsets = piece.offsets_of(ids)
            live = self.live(n, offsets)
            keep = np.isin(offsets, live)
            for i, offset in zip(at[keep].tolist(), offsets[keep].tolist(), strict=True):
                found[i] = (piece.fragment << 32) | offset
        return [found[i] for i in range(len(ids)) if i in found]

    def candidates(self, filters: Mapping[str, Sequence]) -> np.ndarray | None:
        """Live positions passing every filter (sorted), or None without filters."""
        if not filters:
            return None
        out = []
        for n, piece in enumerate(self.pieces):
            rows = None
            for name, values in filters.items():
                found = np.sort(piece.offsets_of([str(v) for v in values])[1]) if name == self.id_field \
                    else piece.posting(name).offsets(values)
                rows = found if rows is None else np.intersect1d(rows, found, assume_unique=True)
                if not len(rows):
                    break
            if rows is not None and len(rows):
                out.append(self.live(n, rows) + self.base[n])
        return np.concatenate(out) if out else np.empty(0, dtype=np.int64)

    def all_live(self) -> np.ndarray:
        return np.concatenate([self.live(n, np.arange(p.rows, dtype=np.int64)) + self.base[n]
                               for n, p in enumerate(self.pieces)] or [np.empty(0, np.int64)])

    # -- kNN
    def search(self, vector: Sequence[float], filters: Mapping[str, Sequence], k: int,
               max_rows: int | None = None) -> list[tuple[str, float, int]] | None:
        """(id, cosine, row address) of the ``k`` nearest live rows passing every filter, best first, ties by
        id; None when more than ``max_rows`` rows pass (the ANN index serves those)."""
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0 or not self.live_rows or k <= 0:
            return []
        rows = self.candidates(filters)
        if max_rows is not None and (self.live_rows if rows is None else len(rows)) > max_rows:
            return None
        rows = self.all_live() if rows is None else rows
        if not len(rows):
            return []
        scores = np.empty(len(rows), dtype=np.float32)
        for n, offsets, where in self._split(rows):
            scores[where] = _products(self.pieces[n].matrix, offsets, query / norm)
        k = min(k, len(rows))
        top = np.argpartition(-scores, k - 1)[:k]
        ids = self.ids_at(rows[top])
        order = np.lexsort((ids, -scores[top]))
        top, ids = top[order], ids[order]
        addresses = self.row_ids_at(rows[top])
        return [(i.decode(), float(scores[t]), int(a)) for i, t, a in zip(ids, top, addresses, strict=True)]

    # -- BM25
    def average(self, field: str) -> float:
        """The field's average length over the version's live rows."""
        if field not in self._average:
            total = sum(p.terms[field].total_length - int(p.terms[field].length[d].sum())
                        for p, d in zip(self.pieces, self.deleted, strict=True))
            self._average[field] = total / self.live_rows if self.live_rows and total else 1.0
        return self._average[field]

    def _idf(self, field: str, tokens: Sequence[bytes], numbers: list[np.ndarray]) -> np.ndarray:
        """The version's idf of each token: rows holding it in every piece, less its deleted rows."""
        missing = [t for t in tokens if (field, t) not in self._df]
        if missing:
            where = [tokens.index(t) for t in missing]
            df = np.zeros(len(missing), dtype=np.int64)
            for piece, gone, local in zip(self.pieces, self.deleted, numbers, strict=True):
                terms, mine = piece.terms[field], local[where]
                df += np.where(mine >= 0, terms.df[np.maximum(mine, 0)], 0)
                df -= terms.rows_holding(gone, mine) if len(gone) else 0
            self._df.update({(field, t): int(d) for t, d in zip(missing, df, strict=True)})
        return idf(self.live_rows, np.array([self._df[(field, t)] for t in tokens], dtype=np.float64))

    def bm25(self, tokens: Sequence[bytes], boosts: Mapping[str, float], rows: np.ndarray,
             k: int) -> list[tuple[int, float]]:
        """(position, score) of the ``k`` best of ``rows`` with a positive score, ties by id."""
        total = np.zeros(len(rows), dtype=np.float32)
        if not tokens or not len(rows):
            return []
        for field, boost in boosts.items():
            numbers = [p.terms[field].local(tokens) for p in self.pieces]
            weights = self._idf(field, list(tokens), numbers)
            average = self.average(field)
            scores = np.zeros(len(rows), dtype=np.float32)
            for n, offsets, where in self._split(rows):
                scores[where] = self.pieces[n].terms[field].scores(numbers[n], weights, average, offsets)
            total += boost * scores
        keep = np.flatnonzero(total > 0)
        if not len(keep):
            return []
        if len(keep) > k:
            keep = keep[np.argpartition(-total[keep], k - 1)[:k]]
        keep = keep[np.lexsort((self.ids_at(rows[keep]), -total[keep]))]
        return [(int(rows[i]), float(total[i])) for i in keep]


def _products(matrix: np.ndarray, offsets: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosines of some rows of a piece. A document's rows are contiguous (tables are written document by
    document), so they are read as slices of the matrix, not gathered row by row."""
    breaks = np.flatnonzero(np.diff(offsets) != 1) + 1
    runs = np.split(offsets, breaks)
    if len(runs) > len(offsets) // 8:  # scattered rows: one gather is cheaper than many small products
        return matrix[offsets] @ query
    return np.concatenate([matrix[run[0]:run[-1] + 1] @ query for run in runs])
