"""A 10-Q that puts MD&A before its statements, its Part I Items placed by the contents' page numbers.

JPMorgan's 10-Q opens Part I with MD&A and prints no "Item 2" or "Item 1" heading in the body; only its
contents say where each starts: "Item 1. Financial Statements. ... Consolidated statements of income ... 96",
"Item 2. Management's Discussion and Analysis ... Consolidated Financial Highlights 3". The headings' chain
(``etl.segment.items``) can place neither (its Items must come in the form's order), so without this the
whole body before Item 3 was the cover. Each Item starts on the first page number its contents entry
lists, mapped to the document's pages through the printed page numbers. Pure functions over page texts.
"""

from __future__ import annotations

import re

# An Item's entry in the contents and the first page number listed after it ("Item 1." ... "96"): the first
# line holding a number alone
_CONTENTS_PAGE_RE = {n: re.compile(rf"\bItem\s*{n}\b.*?\n\s*(\d{{1,3}})\s*(?:\n|$)", re.I | re.S) for n in (1, 2)}


def contents_pages(contents: str) -> dict[int, int]:
    """Part I Item number (1, 2) -> the first printed page its contents entry lists."""
    found = {n: pattern.search(contents) for n, pattern in _CONTENTS_PAGE_RE.items()}
    return {n: int(m.group(1)) for n, m in found.items() if m}


def mdna_first(contents: str) -> bool:
    """Whether the contents give Item 2 (MD&A) an earlier page than Item 1 (the statements)."""
    return _mdna_listed_first(contents_pages(contents))


def _mdna_listed_first(listed: dict[int, int]) -> bool:
    """Whether the pages a contents lists (:func:`contents_pages`) give Item 2 the earlier one."""
    return len(listed) == 2 and listed[2] < listed[1]


def mdna_first_starts(pages: list[str], toc: set[int], printed: dict[int, int], before: int) -> dict[int, int]:
    """Part I Item number -> the page it starts on, for a 10-Q whose contents (a page of ``toc``) put MD&A
    first: both pages found through ``printed`` (printed number -> page), after the contents and before
    ``before`` (the first Item the headings found), MD&A's first; else nothing."""
    for page in sorted(toc):
        listed = contents_pages(pages[page])
        if not _mdna_listed_first(listed):
            continue
        at = {n: printed.get(p) for n, p in listed.items()}
        if at[1] is not None and at[2] is not None and page < at[2] < at[1] < before:
            return {1: at[1], 2: at[2]}
    return {}
