"""Sections of an Annual Report to Stockholders (a 10-K's Exhibit 13) as the 10-K Items it holds.

A 10-K may give Items 6, 7, 7A and 8 as one sentence each pointing into the annual report; the report
prints no Item headings, but each of those sections opens with its Item's title or the name annual reports
give it ("Management's Discussion and Analysis", "Report of Independent Registered Public Accounting
Firm", "Consolidated Statements of ...": ``domain.sec_items.ANNUAL_REPORT_ITEMS``). Each Item runs from
its first heading line to the next Item's (``headed``); what comes before the first (the letter to stockholders,
highlights) is the report's front (``cover``), so every character stays in a span. A contents line (a
page number on it or alone on the next line) opens nothing, nor does a statement's title over prose (the
page rule of ``domain.statements``: a statement's page is figures).
"""

from __future__ import annotations

from domain.sec_items import ANNUAL_REPORT_ITEMS, COVER, title_of
from domain.statements import FIGURES_WINDOW, is_contents_line, is_figures
from etl.segment.headed import headed_spans
from etl.segment.items import ItemSpan, Position, Segmentation

MAX_HEADING_CHARS = 120
FORM = "10-K"


def annual_report_sections(pages: list[str]) -> Segmentation:
    """The report's Items as spans covering the whole text in order (``method``: ``annual-report``)."""
    lead = ItemSpan(COVER, title_of(FORM, COVER), Position(0, 0), Position(0, 0), "", status="cover")
    spans = headed_spans(pages, ANNUAL_REPORT_ITEMS, MAX_HEADING_CHARS, _opens, lead, lambda key: title_of(FORM, key))
    warnings = [] if len(spans) > 1 else ["no section of the annual report names a 10-K Item"]
    return Segmentation(spans, warnings=warnings, method="annual-report")


def _opens(key: str, heading: str, following: str, after: str, at: Position) -> bool:
    """Not a contents line; and the statements open at the auditor's report or at a statement's title over
    figures (a title over prose is MD&A's or the highlights' reference to the statement)."""
    if is_contents_line(heading, following):
        return False
    return key != "8" or "accounting firm" in heading.lower() or is_figures(after[:FIGURES_WINDOW])
