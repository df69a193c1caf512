"""Item labels for readers: every Item of every form reads as a person names it, never as its key."""

from __future__ import annotations

import re

import pytest

from domain.sec_items import COVER, UNKNOWN, item_label, vocabulary


@pytest.mark.parametrize("form, key, label", [
    ("10-Q", "part1item1", "Part I, Item 1 (Financial Statements)"),
    ("10-Q", "part1item2", "Part I, Item 2 (MD&A)"),
    ("10-Q/A", "part2item1a", "Part II, Item 1A (Risk Factors)"),
    ("10-K", "7", "Item 7 (MD&A)"),
    ("10-K", "8", "Item 8 (Financial Statements)"),
    ("10-K", "1A", "Item 1A (Risk Factors)"),
    ("8-K", "2.02", "Item 2.02 (Results of Operations and Financial Condition)"),
    ("10-K", COVER, "Cover page and contents"),
    ("10-Q", UNKNOWN, "No recognized Item"),
    (None, "7", "Item 7"),
    ("10-K", None, ""),
])
def test_labels(form, key, label):
    assert item_label(form, key) == label


def test_no_label_shows_a_key():
    for form in ("10-K", "10-Q", "8-K"):
        for item in vocabulary(form):
            label = item_label(form, item.key)
            assert not re.search(r"part\d|item\d", label), label
            assert len(label) <= 70, label
