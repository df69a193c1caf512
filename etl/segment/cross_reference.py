"""Items of a filing organized by its own plan, located through its cross-reference index.

Some filers (Intel, GE, large banks) order their 10-K or 10-Q by topic and map each SEC Item to pages in a
"Form 10-K Cross-Reference Index": "Item 1. Business: ... Pages 3-9, 20 ... Pages 3-36, 63-64, 68, 85-86";
"Item 7 ... Pages 5-6, 42-44, 45-47". An Item is then a set of page ranges, and a page may belong to several
Items. :func:`index_ranges` reads the index (its printed page numbers, digits that markup split as "8 6"
joined); :func:`item_spans` maps them to the document's pages through the printed page numbers, merges
each Item's ranges, and gives the pages no Item names to the cover (before the first) or to ``unknown``.
Pure functions over page texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from domain.sec_items import COVER, UNKNOWN, ItemDef

_INDEX_TITLE_RE = re.compile(r"form\s+10-?[kq]\s+cross[\s-]*reference\s+index", re.I)
_ITEM_RE = re.compile(r"^items?\s+(\d{1,2}[a-c]?)\b\.?\s*(.*)$", re.I)
_PART_RE = re.compile(r"^part\s+(i{1,3}|iv)\b", re.I)
_PAGES_RE = re.compile(r"\bpages?\s+(\d[\d\s,\-\u2013\u2014]*)", re.I)
_DASH_RE = re.compile(r"\s*[-\u2013\u2014]\s*")
_SPLIT_DIGITS_RE = re.compile(r"(?<=\d) (?=\d)")
_END_RE = re.compile(r"^signatures?\b", re.I)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4}


def find_index(pages: list[str]) -> int | None:
    """The page the cross-reference index starts on: the last page whose top names it (the contents at the
    front may name it too) and that lists Items."""
    found = None
    for p, text in enumerate(pages):
        head = text[:400]
        if _INDEX_TITLE_RE.search(head) and len(re.findall(r"(?im)^\s*item\s+\d", text)) >= 3:
            found = p
    return found


def parse_pages(text: str) -> list[tuple[int, int]]:
    """Printed page ranges of one reference: "3-36, 63-64, 68, 85-86" (and "8 6" split by markup)."""
    text = _SPLIT_DIGITS_RE.sub("", _DASH_RE.sub("-", text))
    out = []
    for part in text.split(","):
        bounds = [int(n) for n in part.strip().split("-") if n.strip().isdigit()]
        if bounds:
            a, b = bounds[0], bounds[-1]
            out.append((a, b) if a <= b else (b, a))
    return out


def index_ranges(pages: list[str], defs: list[ItemDef]) -> dict[str, list[tuple[int, int]]]:
    """Item key -> printed page ranges, from the cross-reference index (empty without one)."""
    start = find_index(pages)
    if start is None:
        return {}
    parts = any(d.key.startswith("part") for d in defs)
    lines = [line.strip() for text in pages[start: start + 3] for line in text.split("\n")]
    ranges: dict[str, list[tuple[int, int]]] = {}
    part, key = None, None
    for line in lines:
        if _END_RE.match(line):
            break
        if m := _PART_RE.match(line):
            part, key = _ROMAN[m.group(1).lower()], None
            continue
        rest = line
        if m := _ITEM_RE.match(line):
            number = m.group(1).upper()
            key = next((d.key for d in defs if d.number.upper() == number
                        and (not parts or part is None or d.key.startswith(f"part{part}item"))), None)
            rest = m.group(2)
        if key is not None:
            for ref in _PAGES_RE.finditer(rest):
                ranges.setdefault(key, []).extend(parse_pages(ref.group(1)))
    return ranges


def printed_to_page(printed: dict[int, int], page_count: int) -> Callable[[int], int]:
    """A printed page number -> the document's 0-based page: as read from the footers, else at the offset
    of the nearest printed number read."""
    known = sorted(printed)

    def to_page(n: int) -> int:
        if n in printed:
            return printed[n]
        nearest = min(known, key=lambda k: (abs(k - n), k)) if known else None
        page = printed[nearest] + (n - nearest) if nearest is not None else n
        return max(0, min(page_count - 1, page))

    return to_page


def merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or adjacent page ranges as one."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def page_ranges(pages: list[str], defs: list[ItemDef], printed: dict[int, int]) -> dict[str, list[tuple[int, int]]]:
    """Item key -> merged 0-based page ranges (inclusive) of the document."""
    to_page = printed_to_page(printed, len(pages))
    found = index_ranges(pages, defs)
    if found and all(a == b for spans in found.values() for a, b in spans):
        found = start_ranges(found, max(printed, default=len(pages)))
    return {key: merge([(to_page(a), to_page(b)) for a, b in spans]) for key, spans in found.items()}


def start_ranges(starts: dict[str, list[tuple[int, int]]], last: int) -> dict[str, list[tuple[int, int]]]:
    """An index naming one page per reference ("Item 1 Business Page 3 ... Item 7 ... Page 8": McDonald's)
    gives where each Item starts: it runs to the page before the next start, the last one to the last
    printed page. Items starting on one page share its run."""
    begins = sorted({a for spans in starts.values() for a, _ in spans})
    until = {a: (begins[i + 1] - 1 if i + 1 < len(begins) else max(a, last)) for i, a in enumerate(begins)}
    return {key: [(a, until[a]) for a, _ in spans] for key, spans in starts.items()}


def page_runs(labels: dict[int, str]) -> list[tuple[str, int, int]]:
    """(label, first page, last page) of each run of consecutive pages with one label."""
    out: list[tuple[str, int, int]] = []
    for page in sorted(labels):
        if out and out[-1][0] == labels[page] and out[-1][2] == page - 1:
            out[-1] = (out[-1][0], out[-1][1], page)
        else:
            out.append((labels[page], page, page))
    return out


def uncovered(ranges: dict[str, list[tuple[int, int]]], page_count: int) -> list[tuple[str, int, int]]:
    """(cover | unknown, first page, last page) of the pages no Item names: the cover before the first."""
    named = {p for spans in ranges.values() for a, b in spans for p in range(a, b + 1)}
    first = min(named, default=page_count)
    return page_runs({p: COVER if p < first else UNKNOWN for p in range(page_count) if p not in named})


def page_owners(ranges: dict[str, list[tuple[int, int]]], order: dict[str, int]) -> dict[int, str]:
    """Page -> the one Item its chunks are made under, where the index gives a page to several Items: the
    Item naming the fewest pages (the most specific: Item 7's liquidity pages over Item 1's broad 3-36,
    Item 8 over Item 15, which repeats it), then the Item's order. Each page is chunked once, so a search
    window is not filled with one page's copies; the Items' records keep every range."""
    size = {key: sum(b - a + 1 for a, b in found) for key, found in ranges.items()}
    owners: dict[int, str] = {}
    for key in sorted(ranges, key=lambda k: (size[k], order.get(k, 0))):
        for a, b in ranges[key]:
            for page in range(a, b + 1):
                owners.setdefault(page, key)
    return owners
