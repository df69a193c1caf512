"""BM25 within chosen documents, from in-memory row-term postings: the embedded engine's lexical search for
hierarchical retrieval, whose cost is the documents' rows and not the corpus.

Lance's full-text search reads a query term's whole posting list before any filter applies, so a search
inside one filing costs as much as a search of the corpus: 8 ms at 37k passages, 38 ms at 936k for three
common words, and a hierarchical query makes a dozen of them. Here each row's distinct terms and counts sit
in flat arrays indexed by :class:`ExactVectors`' row positions, so scoring the documents' rows is one gather.
Statistics (document frequency, average length) are the whole table's, per field: a row scores the same
whichever documents are searched with it.

Tokens: words are runs of letters and digits, lower-cased; each distinct word goes once through tantivy's
analyzer as the table's Lance full-text indexes are built (English stemming and stop words, ASCII folding,
at most 40 bytes), and is remembered as a term number. Scores: Okapi BM25 (k1 1.2, b 0.75,
idf ln(1 + (N - n + 0.5) / (n + 0.5))), each field's score times its boost, summed. Built once per table
version, like the vectors: about 30 s per million passages on one core. Memory: 8 bytes a distinct term of
a row (a 400-word passage about 0.6 KB).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from domain.text import WORD, analyzer

K1, B = 1.2, 0.75
BATCH = 20_000  # rows counted together


class Vocabulary:
    """Word -> term number (-1: a stop word or too long), each distinct word analyzed once."""

    def __init__(self):
        self._analyze = analyzer().analyze
        self._word: dict[str, int] = {}
        self.terms: dict[str, int] = {}
        self._lock = threading.Lock()

    def numbers(self, text: str) -> list[int]:
        """The text's terms as numbers, in order, stop words left out."""
        word = self._word
        out = [word[w] if w in word else self._learn(w) for w in WORD.findall(text.lower())]
        return [n for n in out if n >= 0]

    def _learn(self, word: str) -> int:
        with self._lock:  # a query may learn a word while another thread reads
            tokens = self._analyze(word)
            number = self.terms.setdefault(tokens[0], len(self.terms)) if tokens else -1
            self._word[word] = number
            return number


class FieldTerms:
    """One text field: per row its distinct terms and their counts, the row's length factor; per term its
    idf. Rows are added a batch at a time in scan order; ``finish`` indexes them by table position."""

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, texts: Iterable[str | None]) -> None:
        """A batch of rows, as (row, term) counts."""
        rows = [self.vocabulary.numbers(t) if t else [] for t in texts]
        if not rows:
            return
        length = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        numbers = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(length.sum()))
        keys = (np.repeat(np.arange(len(rows), dtype=np.int64), length) << 32) | numbers
        keys, counts = np.unique(keys, return_counts=True)  # sorted by row, then term
        self._parts.append(((keys & 0xFFFFFFFF).astype(np.int32), counts.astype(np.float32),
                            np.bincount(keys >> 32, minlength=len(rows)), length))

    def finish(self, slots: np.ndarray) -> None:
        """``slots``: for each table position, its row in scan order."""
        parts, self._parts = self._parts, []
        self.terms = np.concatenate([p[0] for p in parts]) if parts else np.empty(0, np.int32)
        self.tf = np.concatenate([p[1] for p in parts]) if parts else np.empty(0, np.float32)
        widths = np.concatenate([p[2] for p in parts]) if parts else np.empty(0, np.int64)
        length = np.concatenate([p[3] for p in parts]) if parts else np.empty(0, np.int64)
        bounds = np.concatenate([[0], np.cumsum(widths)])
        self.start, self.end = bounds[:-1][slots], bounds[1:][slots]
        n = len(length)
        df = np.bincount(self.terms, minlength=len(self.vocabulary.terms)).astype(np.float64)
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        average = float(length.mean()) if n and length.any() else 1.0
        self.norm = (K1 * (1 - B + B * length / average)).astype(np.float32)[slots]

    def scores(self, query: Sequence[int], rows: np.ndarray) -> np.ndarray:
        """BM25 of each of ``rows`` (table positions) for the query's distinct term numbers."""
        ids = sorted({n for n in query if n < len(self.idf)})  # a word first seen in a query is in no row
        if not ids or not len(rows):
            return np.zeros(len(rows), dtype=np.float32)
        starts, lengths = self.start[rows], self.end[rows] - self.start[rows]
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        wanted = np.zeros(len(self.idf), dtype=bool)
        wanted[ids] = True
        match = wanted[self.terms[offsets]]
        hit, owner = offsets[match], np.repeat(np.arange(len(rows)), lengths)[match]
        tf = self.tf[hit]
        part = self.idf[self.terms[hit]] * tf * (K1 + 1) / (tf + self.norm[rows[owner]])
        return np.bincount(owner, weights=part, minlength=len(rows)).astype(np.float32)


FIELD_ARRAYS = ("terms", "tf", "start", "end", "idf", "norm")


class TermIndex:
    """The text fields of one table version, rows in the order of its :class:`ExactVectors`."""

    def __init__(self, table, vectors, fields: Sequence[str], cached: tuple[dict, dict] | None = None):
        """Built from the table's rows, or from ``cached``: (arrays, meta) of :meth:`arrays` for the same
        version, as ``kernel.search.version_cache`` keeps them."""
        self.version = vectors.version
        self._ids = vectors.ids
        self.vocabulary = Vocabulary()
        self.fields = {name: FieldTerms(self.vocabulary) for name in fields}
        if cached is not None:
            arrays, meta = cached
            self.vocabulary.terms.update(meta["terms"])
            self.vocabulary._word.update(meta["words"])
            for name, terms in self.fields.items():
                for key in FIELD_ARRAYS:
                    setattr(terms, key, arrays[f"{name}.{key}"])
            return
        slots = np.full(len(vectors.ids), -1, dtype=np.int64)
        seen = 0
        for batch in table.search().select([vectors.id_field, *fields]).limit(None).to_batches(BATCH):
            for n, i in enumerate(batch.column(vectors.id_field).to_pylist()):
                p = vectors.row_of(i)  # aligned by id: this scan need not return rows in the vectors' order
                if p is not None:
                    slots[p] = seen + n
            for name, terms in self.fields.items():
                terms.add(batch.column(name).to_pylist())
            seen += batch.num_rows
        if (slots < 0).any():
            raise RuntimeError(f"{table.name}: {int((slots < 0).sum())} row(s) not read with the text")
        for terms in self.fields.values():
            terms.finish(slots)

    def arrays(self) -> tuple[dict[str, np.ndarray], dict]:
        """What :meth:`__init__` reads back as ``cached``: the postings as arrays, the vocabulary as JSON."""
        arrays = {f"{name}.{key}": getattr(terms, key) for name, terms in self.fields.items() for key in FIELD_ARRAYS}
        return arrays, {"terms": self.vocabulary.terms, "words": self.vocabulary._word}

    def search(self, text: str, boosts: dict[str, float], rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(table position, score) of the ``k`` best of ``rows`` with a positive score, ties by id."""
        query = self.vocabulary.numbers(text)
        total = np.zeros(len(rows), dtype=np.float32)
        for name, boost in boosts.items():
            total += boost * self.fields[name].scores(query, rows)
        keep = np.flatnonzero(total > 0)
        if not len(keep):
            return []
        if len(keep) > k:
            keep = keep[np.argpartition(-total[keep], k - 1)[:k]]
        keep = keep[np.lexsort((self._ids[rows[keep]], -total[keep]))]
        return [(int(rows[i]), float(total[i])) for i in keep]
