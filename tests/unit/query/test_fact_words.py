"""The words a concept is chosen by when no reviewed term names it: what is measured, not a date or the word
saying a figure is a balance ("commercial paper balance at December 31": no "Balance, December 31" row)."""

from __future__ import annotations

from query.facts import _measure_text, measure_words


def test_a_month_or_balance_is_no_measure():
    assert _measure_text("what was commercial paper balance at december") == "commercial paper"
    assert measure_words("commercial paper balance at the end of june", "") == frozenset({"commerci", "paper"})
