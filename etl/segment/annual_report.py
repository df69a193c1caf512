"""Sections of an Annual Report to Stockholders (a 10-K's Exhibit 13) as the 10-K Items it holds.

A 10-K may give Items 6, 7, 7A and 8 as one sentence each pointing into the annual report; the report
prints no Item headings, but each of those sections opens with its Item's title or the name annual reports
give it ("Management's Discussion and Analysis", "Report of Independent Registered Public Accounting
Firm", "Consolidated Statements of ...": ``domain.sec_items.ANNUAL_REPORT_ITEMS``). Each Item runs from
its first heading line to the next Item's; what comes before the first (the letter to stockholders,
highlights) is the report's front (``cover``), so every character stays in a span. A contents line (a
page number on it or alone on the next line) opens nothing, nor does a statement's title over prose (the
page rule of ``domain.statements``: a statement's page is figures).
"""

from __future__ import annotations

from domain.sec_items import ANNUAL_REPORT_ITEMS, COVER, title_of
from domain.statements import FIGURES_WINDOW, is_figures
from etl.segment.items import ItemSpan, Position, Segmentation

MAX_HEADING_CHARS = 120
FORM = "10-K"


def _is_contents(heading: str, following: str) -> bool:
    return heading.rstrip()[-1:].isdigit() or following.strip().isdigit()


def annual_report_sections(pages: list[str]) -> Segmentation:
    """The report's Items as spans covering the whole text in order (``method``: ``annual-report``)."""
    end = Position(len(pages) - 1, len(pages[-1])) if pages else Position(0, 0)
    starts: dict[str, tuple[Position, str]] = {}
    for page, text in enumerate(pages):
        lines = text.split("\n")
        offset = 0
        for n, line in enumerate(lines):
            heading = line.strip()
            following = lines[n + 1] if n + 1 < len(lines) else ""
            if heading and len(heading) <= MAX_HEADING_CHARS and not _is_contents(heading, following):
                for key, pattern in ANNUAL_REPORT_ITEMS:
                    if key not in starts and pattern.match(heading) and \
                            _opens(key, heading, text[offset + len(line):][:FIGURES_WINDOW]):
                        starts[key] = (Position(page, offset), heading)
                        break
            offset += len(line) + 1
    found = sorted(starts.items(), key=lambda kv: kv[1][0])
    first = found[0][1][0] if found else end
    spans = [ItemSpan(COVER, title_of(FORM, COVER), Position(0, 0), first, "", status="cover")]
    for n, (key, (pos, heading)) in enumerate(found):
        nxt = found[n + 1][1][0] if n + 1 < len(found) else end
        spans.append(ItemSpan(key, title_of(FORM, key), pos, nxt, heading[:MAX_HEADING_CHARS]))
    warnings = [] if found else ["no section of the annual report names a 10-K Item"]
    return Segmentation(spans, warnings=warnings, method="annual-report")


def _opens(key: str, heading: str, after: str) -> bool:
    """The statements open at the auditor's report or at a statement's title over figures (a title over
    prose is MD&A's or the highlights' reference to the statement)."""
    return key != "8" or "accounting firm" in heading.lower() or is_figures(after)
