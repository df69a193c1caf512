"""Sections of a release (an 8-K's EX-99 exhibit): releases have no SEC Items, so their own headings divide
them: the headline (from the start), highlights, outlook or guidance, the financial tables (condensed
statements), and the non-GAAP reconciliation. Each section runs from its first heading line to the next
section's (``headed``); a release without such headings is one headline section, so every character stays
in a span.
"""

from __future__ import annotations

import re

from domain.sec_items import RELEASE_SECTIONS
from etl.segment.headed import headed_spans
from etl.segment.items import ItemSpan, Position, Segmentation

HEADLINE = "release:headline"
# (key, heading pattern): a heading is a short line that starts with these words
SECTIONS = [
    ("release:highlights",
     re.compile(r"^(?:[\w&,'’-]+\s+){0,4}highlights\b", re.I)),
    ("release:outlook",
     re.compile(r"^(?:(?:business|financial|fiscal|full[\s-]year|quarterly|[\w’']+\s+quarter|\d{4}|q[1-4])\s+)*"
                r"(?:outlook|guidance)\b", re.I)),
    ("release:financial-tables",
     re.compile(r"^(?:unaudited\s+)?(?:condensed\s+)?(?:consolidated\s+)?(?:statements?\s+of\s+(?:consolidated\s+)?"
                r"(?:operations|income|earnings|cash\s+flows|financial\s+position)|balance\s+sheets?)\b", re.I)),
    ("release:non-gaap",
     re.compile(r"^(?:reconciliations?\s+of\b|(?:information\s+on\s+|\w+\s+){0,3}non[\s-]?gaap\s+(?:financial\s+)?"
                r"(?:measures?|reconciliations?|results|information)\b)", re.I)),
]
TITLES = RELEASE_SECTIONS
MAX_HEADING_CHARS = 90


def release_sections(pages: list[str]) -> Segmentation:
    """The release's sections as spans covering the whole text in order (``method``: ``release``); the
    first line of the release is its headline, never a section's heading."""
    lead = ItemSpan(HEADLINE, TITLES[HEADLINE], Position(0, 0), Position(0, 0),
                    (pages[0].strip().split("\n")[0] if pages else "")[:MAX_HEADING_CHARS])
    spans = headed_spans(pages, SECTIONS, MAX_HEADING_CHARS, lambda key, heading, following, after, at:
                         at != Position(0, 0), lead, TITLES.__getitem__)
    return Segmentation(spans, method="release")
