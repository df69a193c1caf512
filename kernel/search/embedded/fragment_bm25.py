"""BM25 within chosen documents from row-term postings kept per fragment: the embedded engine's lexical
search for hierarchical retrieval, whose cost is the documents' rows and not the corpus.

Lance's full-text search reads a query term's whole posting list before any filter applies, so a search
inside one filing costs as much as a search of the corpus. Here each row's distinct terms and counts sit in
flat arrays per fragment (``kernel.search.embedded.fragment_arrays``), so scoring some documents' rows is one gather per
fragment they live in. Statistics (document frequency, average length) are the whole table version's, per
field, combined from per-fragment counts less the rows that version deleted: a row scores the same whichever
documents are searched with it, and a new version recomputes nothing for the fragments it shares.

Tokens: words are runs of letters and digits, lower-cased; each distinct word goes once through tantivy's
analyzer as the table's Lance full-text indexes are built (English stemming and stop words, ASCII folding,
at most 40 bytes). A fragment's vocabulary is its sorted distinct tokens (UTF-8), so its term numbers mean
the same whoever built them. Scores: Okapi BM25 (k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5) / (n + 0.5))),
each field's score times its boost, summed. Building costs about 30 s per million passages on one core;
disk, 8 bytes a distinct term of a row (a 400-word passage about 0.6 KB), mapped, never read whole.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from domain.text import WORD, analyzer

K1, B = 1.2, 0.75
BATCH = 20_000  # rows tokenized together
FIELD_ARRAYS = ("vocab", "terms", "tf", "bounds", "length", "df")


class Vocabulary:
    """Word -> process term number (-1: a stop word or too long), each distinct word analyzed once; the
    numbers are this process's own, ``names`` turns them back into tokens."""

    def __init__(self):
        self._analyze = analyzer().analyze
        self._word: dict[str, int] = {}
        self.terms: dict[str, int] = {}
        self.names: list[str] = []
        self._lock = threading.Lock()

    def numbers(self, text: str) -> list[int]:
        """The text's terms as numbers, in order, stop words left out."""
        word = self._word
        out = [word[w] if w in word else self._learn(w) for w in WORD.findall(text.lower())]
        return [n for n in out if n >= 0]

    def tokens(self, text: str) -> list[bytes]:
        """The text's distinct tokens, UTF-8, sorted: what a query looks up in a fragment's vocabulary."""
        return sorted({self.names[n].encode() for n in self.numbers(text)})

    def _learn(self, word: str) -> int:
        with self._lock:  # a query may learn a word while another thread reads
            tokens = self._analyze(word)
            number = -1
            if tokens:
                number = self.terms.get(tokens[0], -1)
                if number < 0:
                    number = self.terms[tokens[0]] = len(self.names)
                    self.names.append(tokens[0])
            self._word[word] = number
            return number


def field_arrays(vocabulary: Vocabulary, texts: Sequence[str | None], offsets: np.ndarray,
                 rows: int) -> dict[str, np.ndarray]:
    """One text field of a fragment: per row (by offset, ``rows`` of them; an offset not in ``offsets`` holds
    no terms) its distinct terms and counts, its length; per term of the fragment's vocabulary its row count."""
    parts = [_counts(vocabulary, texts[at:at + BATCH]) for at in range(0, len(texts), BATCH)]
    numbers = np.concatenate([p[0] for p in parts]) if parts else np.empty(0, np.int64)
    present = np.unique(numbers)
    names = [vocabulary.names[n].encode() for n in present]
    order = sorted(range(len(names)), key=names.__getitem__)
    local = np.zeros(int(present.max()) + 1 if len(present) else 0, dtype=np.int32)
    local[present[order]] = np.arange(len(order), dtype=np.int32)
    terms = local[numbers]
    widths = np.zeros(rows, dtype=np.int64)
    widths[offsets] = np.concatenate([p[2] for p in parts]) if parts else np.empty(0, np.int64)
    length = np.zeros(rows, dtype=np.int32)
    length[offsets] = np.concatenate([p[3] for p in parts]) if parts else np.empty(0, np.int64)
    # rows come in offset order (pieces sort them so), so the per-row runs are already in offset order
    vocab = np.array([names[i] for i in order], dtype=f"S{max(map(len, names), default=1)}")
    return {"vocab": vocab, "terms": terms, "tf": np.concatenate([p[1] for p in parts]) if parts else
            np.empty(0, np.float32), "bounds": np.concatenate([[0], np.cumsum(widths)]).astype(np.int64),
            "length": length, "df": np.bincount(terms, minlength=len(vocab)).astype(np.int32)}


def _counts(vocabulary: Vocabulary, texts: Iterable[str | None]):
    """A batch of rows as (term numbers, counts, distinct terms per row, length per row), rows in order."""
    rows = [vocabulary.numbers(t) if t else [] for t in texts]
    length = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    numbers = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(length.sum()))
    keys = (np.repeat(np.arange(len(rows), dtype=np.int64), length) << 32) | numbers
    keys, counts = np.unique(keys, return_counts=True)  # sorted by row, then term
    return (keys & 0xFFFFFFFF), counts.astype(np.float32), np.bincount(keys >> 32, minlength=len(rows)), length


class FieldTerms:
    """One text field of one fragment: the arrays of :func:`field_arrays`, mapped."""

    def __init__(self, arrays: dict[str, np.ndarray], total_length: int):
        for key in FIELD_ARRAYS:
            setattr(self, key, arrays[key])
        self.total_length = total_length

    def local(self, tokens: Sequence[bytes]) -> np.ndarray:
        """The fragment's term number of each token, -1 where it holds none."""
        if not len(self.vocab) or not tokens:
            return np.full(len(tokens), -1, dtype=np.int64)
        keys = np.asarray(tokens, dtype=f"S{max(map(len, tokens))}")
        at = np.minimum(np.searchsorted(self.vocab, keys), len(self.vocab) - 1)
        return np.where(self.vocab[at] == keys, at, -1).astype(np.int64)

    def term_slices(self, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions into ``terms``, owner index into ``offsets``) of every term of those rows."""
        starts, ends = self.bounds[offsets], self.bounds[offsets + 1]
        lengths = ends - starts
        flat = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        return flat.astype(np.int64), np.repeat(np.arange(len(offsets)), lengths)

    def rows_holding(self, offsets: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """For each term number, how many of those rows hold it (a version's deleted rows: their df)."""
        if not len(offsets):
            return np.zeros(len(numbers), dtype=np.int64)
        flat, _ = self.term_slices(offsets)
        held = self.terms[flat]
        return np.array([int(np.count_nonzero(held == n)) if n >= 0 else 0 for n in numbers], dtype=np.int64)

    def scores(self, numbers: np.ndarray, idf: np.ndarray, average: float, offsets: np.ndarray) -> np.ndarray:
        """BM25 of each row (offset) for the query's terms (this fragment's numbers, -1 absent; ``idf`` the
        version's idf of each)."""
        keep = numbers >= 0
        if not keep.any() or not len(offsets):
            return np.zeros(len(offsets), dtype=np.float32)
        wanted = np.zeros(len(self.vocab), dtype=np.float32)
        present = np.zeros(len(self.vocab), dtype=bool)
        wanted[numbers[keep]], present[numbers[keep]] = idf[keep], True
        flat, owner = self.term_slices(offsets)
        terms = self.terms[flat]
        match = present[terms]
        hit, owner = flat[match], owner[match]
        tf = self.tf[hit]
        norm = (K1 * (1 - B + B * self.length[offsets[owner]] / average)).astype(np.float32)
        part = wanted[self.terms[hit]] * tf * (K1 + 1) / (tf + norm)
        return np.bincount(owner, weights=part, minlength=len(offsets)).astype(np.float32)


def idf(rows: int, df: np.ndarray) -> np.ndarray:
    return np.log1p((rows - df + 0.5) / (df + 0.5)).astype(np.float32)
