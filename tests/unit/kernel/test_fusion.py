"""Rank fusion on tiny literal lists."""

from __future__ import annotations

import pytest

from kernel.search import Hit, fuse_minmax, fuse_rrf


def test_rrf_sums_weighted_reciprocal_ranks():
    bm25 = [Hit("a", 9.0), Hit("b", 5.0)]
    knn = [Hit("b", 0.9), Hit("c", 0.8)]
    fused = fuse_rrf([bm25, knn], k=60, weights=[0.4, 0.6])
    scores = {h.id: h.score for h in fused}
    assert scores["a"] == pytest.approx(0.4 / 61)
    assert scores["b"] == pytest.approx(0.4 / 62 + 0.6 / 61)
    assert scores["c"] == pytest.approx(0.6 / 62)
    assert [h.id for h in fused] == ["b", "c", "a"]  # b is in both lists; c's dense rank outweighs a's BM25 rank


def test_rrf_ties_break_by_id_and_equal_weights_are_plain_rrf():
    fused = fuse_rrf([[Hit("y", 1.0)], [Hit("x", 1.0)]])
    assert [h.id for h in fused] == ["x", "y"] and fused[0].score == pytest.approx(1 / 61)


def test_minmax_normalizes_each_list_then_weighs():
    fused = fuse_minmax([[Hit("a", 10.0), Hit("b", 5.0), Hit("c", 0.0)], [Hit("c", 0.9), Hit("a", 0.1)]], [0.5, 0.5])
    scores = {h.id: h.score for h in fused}
    assert scores == pytest.approx({"a": 0.5, "b": 0.25, "c": 0.5})
    assert [h.id for h in fused] == ["a", "c", "b"]
