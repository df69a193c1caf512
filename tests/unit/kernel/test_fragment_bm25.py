"""A fragment's row-term postings on literal rows: sorted vocabulary, per-row distinct terms and counts by
offset (a row missing from the read holds none), row counts per term, and BM25 of chosen rows."""

from __future__ import annotations

import numpy as np
import pytest

from kernel.search.embedded.fragment_bm25 import FieldTerms, Vocabulary, field_arrays, idf


def test_rows_are_laid_out_by_offset_with_a_sorted_vocabulary():
    vocabulary = Vocabulary()
    arrays = field_arrays(vocabulary, ["Revenue grew; revenue", None, "Cash"], np.array([0, 1, 3]), rows=4)
    assert arrays["vocab"].tolist() == [b"cash", b"grew", b"revenu"]
    assert arrays["bounds"].tolist() == [0, 2, 2, 2, 3]  # offset 2 was not read: no terms
    assert arrays["terms"].tolist() == [2, 1, 0] and arrays["tf"].tolist() == [2.0, 1.0, 1.0]
    assert arrays["length"].tolist() == [3, 0, 0, 1] and arrays["df"].tolist() == [1, 1, 1]


def test_bm25_of_chosen_rows_is_okapi_with_the_given_statistics():
    vocabulary = Vocabulary()
    arrays = field_arrays(vocabulary, ["revenue revenue cash", "cash"], np.array([0, 1]), rows=2)
    terms = FieldTerms(arrays, int(arrays["length"].sum()))
    numbers = terms.local(vocabulary.tokens("revenues and cash"))
    weights = idf(2, np.array([2.0, 1.0]))  # cash in both rows, revenu in one
    scores = terms.scores(numbers, weights, 2.0, np.array([1, 0]))
    norm0, norm1 = 1.2 * (1 - 0.75 + 0.75 * 3 / 2), 1.2 * (1 - 0.75 + 0.75 * 1 / 2)
    expect0 = weights[1] * 2 * 2.2 / (2 + norm0) + weights[0] * 2.2 / (1 + norm0)
    assert scores.tolist() == pytest.approx([weights[0] * 2.2 / (1 + norm1), expect0], rel=1e-6)
    assert terms.local([b"zebra"]).tolist() == [-1]
    assert terms.rows_holding(np.array([0]), numbers).tolist() == [1, 1]
