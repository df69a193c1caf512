"""Segment a filing's page text into SEC Items, keeping every item's page span.

Headings are found line by line ("Item 1A. Risk Factors", "ITEM 7 -", "Items 1 and 2.", "Item No. 1",
"Item IV", titles on the next line). A filing mentions each item several times: in the table of
contents, in running page headers, in cross-references. We drop table-of-contents pages (several item
lines ending in page numbers, or a dense list of items near the front), then choose, by dynamic
programming, the chain of headings in the form's order that scores best: more items, headings whose
title matches the item, headings that start a block. 10-Q items repeat their numbers in Parts I and II;
the chain's order resolves which Part a heading belongs to.

An item that is not found is reported missing, never guessed. A filing with no recognizable item is
one ``unknown`` span (and a warning). Filings that put their items in a cross-reference index (GE) have
no item headings in the body; their index lines point at printed page numbers, which we map to pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from domain.sec_items import ALIASES, COVER, UNKNOWN, ItemDef, expected_items, title_of, vocabulary
from domain.statements import statements
from domain.text import compact
from etl.segment.contents import mdna_first, mdna_first_starts
from etl.segment.cross_reference import page_owners, page_ranges, page_runs, uncovered

_ABSENT_RE = re.compile(r"(?:are\s+|is\s+)?(?:not\s+applicable|omitted|none)\b", re.I)
_HEAD_RE = re.compile(
    r"^(?:part\s+[ivx]+\s*[,.:;\-\u2013\u2014]?\s*)?items?\s*(?:no\.?\s*)?"
    r"(?P<num>\d{1,2}(?:\.\s?\d{2})?[a-c]?|[ivx]{1,4})\b"
    r"(?P<more>(?:\s*(?:,|and|&|through|to)\s*\d{1,2}[a-c]?\b)*)"
    r"\s*(?P<rest>.*)$",
    re.I,
)
_PAGE_REF_RE = re.compile(r"(?:\s|\.{2,}|^)(\d{1,3}|[ivx]{1,5})(?:\s*[-\u2013\u2014]\s*\d{1,3})?\s*$", re.I)
_BARE_PAGE_RE = re.compile(
    r"^\s*(?:pages?\s+)?(\d{1,3}|[ivx]{1,5})(?:\s*[-\u2013\u2014]\s*\d{1,3})?(?:\s*,\s*\d{1,3}(?:\s*[-\u2013\u2014]\s*"
    r"\d{1,3})?)*\s*(?:\(\w\))?\s*$", re.I)
_PART_RE = re.compile(r"^part\s+(i{1,3}|iv)\b", re.I)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11,
          "xii": 12, "xiii": 13, "xiv": 14, "xv": 15, "xvi": 16}


@dataclass(frozen=True)
class Position:
    page: int
    offset: int  # character offset in that page's text

    def __lt__(self, other: Position) -> bool:
        return (self.page, self.offset) < (other.page, other.offset)


@dataclass
class ItemSpan:
    item: str
    title: str
    start: Position
    end: Position  # exclusive
    heading: str = ""
    status: str = "found"  # found | combined (shares the span of the item it was filed with) | cover | unknown


@dataclass
class Segmentation:
    spans: list[ItemSpan]  # in document order, covering the whole text
    missing: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    method: str = "headings"  # headings | cross-reference | none
    chunk_spans: list[ItemSpan] | None = None  # what chunking walks when ``spans`` overlap (each page once)


@dataclass
class _Candidate:
    pos: Position
    line_no: int
    numbers: list[str]
    heading: str
    title_text: str
    block_start: bool
    short: bool
    toc_like: bool
    page_ref: int | None = None


def _lines(pages: list[str]) -> list[tuple[int, int, str]]:
    """(page, offset in page, line) for every line of the document."""
    out = []
    for p, text in enumerate(pages):
        offset = 0
        for line in text.split("\n"):
            out.append((p, offset, line))
            offset += len(line) + 1
    return out


def _number(raw: str) -> str:
    raw = raw.replace(" ", "").upper()
    if raw.lower() in _ROMAN:
        return str(_ROMAN[raw.lower()])
    return raw


def _candidates(lines: list[tuple[int, int, str]]) -> list[_Candidate]:
    out = []
    for i, (page, offset, line) in enumerate(lines):
        stripped = line.strip()
        if not stripped or len(stripped) > 400 or not stripped[:5].lower().startswith(("item", "part")):
            continue
        m = _HEAD_RE.match(stripped)
        if not m:
            continue
        num = m.group("num")
        if num.lower() in _ROMAN and not stripped.lower().startswith("item"):
            continue  # "PART II" alone is not an item
        numbers = [_number(num)] + [_number(n) for n in re.findall(r"\d{1,2}[a-c]?", m.group("more") or "", re.I)]
        rest = m.group("rest").strip().lstrip(".:;-\u2013\u2014 ").strip()
        title_text = rest
        nxt = i + 1
        if not title_text:  # the title sits on the next non-empty line(s)
            while nxt < len(lines) and nxt <= i + 3 and not lines[nxt][2].strip():
                nxt += 1
            title_text = lines[nxt][2].strip() if nxt < len(lines) and nxt <= i + 3 else ""
            nxt += 1
        if rest and rest[0].islower():
            continue  # "Item 7 of this report": a cross-reference that wrapped to the line start
        if m.group("more") and _ABSENT_RE.match(rest):
            continue  # "Items 1 through 4, 6 and 8 Not Applicable.": a list of items the filing does not have
        after = ""
        while nxt < len(lines) and nxt <= i + 4:
            if lines[nxt][2].strip():
                after = lines[nxt][2].strip()
                break
            nxt += 1
        ref = _PAGE_REF_RE.search(title_text) if title_text else None
        bare = _BARE_PAGE_RE.match(after) if after else None
        page_ref = None
        for hit in (ref, bare):
            if hit and hit.group(1).isdigit():
                page_ref = int(hit.group(1))
                break
        prev = lines[i - 1][2].strip() if i > 0 and lines[i - 1][0] == page else ""
        block_start = not prev or prev[-1] in ".:;!?)" or prev.isupper() or bool(_BARE_PAGE_RE.match(prev))
        out.append(_Candidate(Position(page, offset + (len(line) - len(line.lstrip()))), i, numbers, stripped,
                              title_text, block_start, len(stripped) <= 150, bool(ref or bare), page_ref))
    return out


def _title_matches(defn: ItemDef, text: str) -> bool:
    have = compact(text)
    if not have:
        return False
    for title in [defn.title, *ALIASES.get(defn.key, [])]:
        want = compact(title.replace("[", "").replace("]", ""))
        n = min(len(want), 12)
        if have[:n] == want[:n] or (len(have) >= 6 and want.startswith(have[: len(want)])):
            return True
    return False


def _toc_pages(cands: list[_Candidate], page_count: int) -> set[int]:
    by_page: dict[int, list[_Candidate]] = {}
    for c in cands:
        by_page.setdefault(c.pos.page, []).append(c)
    toc = set()
    for page, cs in by_page.items():
        distinct = {c.numbers[0] for c in cs}  # "Items 1 through 4, 6 and 8 Not Applicable" is one line, not four
        if sum(c.toc_like for c in cs) >= 3:
            toc.add(page)
        elif len(distinct) >= 4 and page < max(3, 0.2 * page_count):
            toc.add(page)  # a dense list of items near the front: contents without page numbers
    return toc


SUBSTANTIVE = {"1", "1A", "7", "8", "part1item1", "part1item2"}  # never a line or two long
MIN_SUBSTANTIVE_CHARS = 1500


def _chain(cands: list[_Candidate], defs: list[ItemDef], base: list[int]) -> list[tuple[_Candidate, ItemDef]]:
    """The best increasing chain of (heading, item) pairs. ``base``: each page's offset in the document,
    so that a chain in which a substantive item is only a line long (a contents list) scores lower."""
    by_number: dict[str, list[ItemDef]] = {}
    for d in defs:
        by_number.setdefault(d.number, []).append(d)
    nodes: list[tuple[_Candidate, ItemDef, float]] = []
    for c in cands:
        for d in by_number.get(c.numbers[0], []):
            score = 10.0 + (4.0 if _title_matches(d, c.title_text) else 0.0)
            score += (1.0 if c.block_start else 0.0) + (1.0 if c.short else 0.0)
            nodes.append((c, d, score))
    best: list[float] = []
    back: list[int] = []
    for j, (c, d, score) in enumerate(nodes):
        b, arg = 0.0, -1
        here = base[c.pos.page] + c.pos.offset
        for i in range(j):
            pc, pd, _ = nodes[i]
            if not (pc.pos < c.pos and pd.order < d.order):
                continue
            total = best[i]
            if pd.key in SUBSTANTIVE and here - (base[pc.pos.page] + pc.pos.offset) < MIN_SUBSTANTIVE_CHARS:
                total -= 8.0
            if total > b:
                b, arg = total, i
        best.append(b + score)
        back.append(arg)
    if not nodes:
        return []
    j = max(range(len(nodes)), key=lambda k: (best[k], -k))
    chain = []
    while j >= 0:
        chain.append((nodes[j][0], nodes[j][1]))
        j = back[j]
    return chain[::-1]


_FOOTER_NUMBER_RE = re.compile(r"(?:^|\s|[-\u2013|])\s*(?:page\s+)?(\d{1,3})\s*[-\u2013|]?$", re.I)


def _printed_page_numbers(pages: list[str]) -> dict[int, int]:
    """printed page number -> 0-based page, from a page's footer or header ("6", "- 13 -", "Page 6",
    "2023 FORM 10-K 6"). Numbers must rise with the pages; stray ones are ignored."""
    out: dict[int, int] = {}
    last = 0
    for p, text in enumerate(pages):
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        for ln in lines[-2:][::-1] + lines[:1]:
            m = _FOOTER_NUMBER_RE.search(ln) if len(ln) <= 60 else None
            if m and last < int(m.group(1)) <= last + 10:
                last = int(m.group(1))
                out.setdefault(last, p)
                break
    return out


def _cross_reference(cands: list[_Candidate], defs: list[ItemDef], printed: dict[int, int],
                     base: list[int]) -> list[tuple[Position, ItemDef, str]]:
    """Items of a cross-reference-index filing: the index lines name printed pages (``printed``: printed
    number -> page); map them to our pages (an item's first page reference marks its start)."""
    index = [c for c in cands if c.toc_like]
    hits = []
    for c, d in _chain(index, defs, base):
        if c.page_ref is not None and c.page_ref in printed:
            hits.append((Position(printed[c.page_ref], 0), d, c.heading))
    return sorted(hits, key=lambda h: (h[0].page, h[1].order))


STATEMENT_HEAD = 300  # where a statement's title heads the page the statements open on
MIN_INDEX_ITEMS = 3  # Items with pages that make a cross-reference index the filing's map
TITLE_LINE = 100  # a title printed as a heading without its "Item N" is a line of its own, this short
TITLE_CHARS = 20  # ... that opens with this much of the title


def _title_headings(lines, toc: set[int], chain: list, defs: list[ItemDef]) -> list:
    """A 10-Q's Part I Items that print their title without "Item N" (Colgate's "Management's Discussion
    and Analysis of Financial Condition ..."): the first line outside the contents that opens with the
    title, starts a page or a block, and lies between the Items found before and after it."""
    have = {d.key for _, d, _, _ in chain}
    for d in defs:
        if not d.key.startswith("part1") or d.key in have:
            continue
        after = max((pos for pos, e, _, _ in chain if e.order < d.order), default=Position(-1, 0))
        before = min((pos for pos, e, _, _ in chain if e.order > d.order), default=Position(10**9, 0))
        found = next(((Position(page, offset), line.strip()) for k, (page, offset, line) in enumerate(lines)
                      if page not in toc and after < Position(page, offset) < before
                      and 0 < len(line.strip()) <= TITLE_LINE and _opens_title(d, line.strip())
                      and _opens_block(lines, k)), None)
        if found is not None:
            chain = sorted([*chain, (found[0], d, found[1], None)], key=lambda c: (c[0].page, c[0].offset))
            have.add(d.key)
    return chain


def _opens_title(defn: ItemDef, line: str) -> bool:
    """A line that opens with the Item's title (its first 20 letters and digits: not a lone "Financial")."""
    want = compact(defn.title.replace("[", "").replace("]", ""))
    return compact(line).startswith(want[:TITLE_CHARS])


def _opens_block(lines, k: int) -> bool:
    """Whether line ``k`` is among its page's first three lines, or follows a line that ends a sentence."""
    page = lines[k][0]
    if sum(1 for p, _, text in lines[max(0, k - 3):k] if p == page and text.strip()) < 3:
        return True
    prev = lines[k - 1][2].strip()
    return not prev or prev[-1] in ".:;!?)"


def _after_contents(pages: list[str], toc: set[int], before: Position) -> tuple[Position, str] | None:
    """The page after the last contents page before ``before``, when a primary statement's title heads it:
    where a 10-Q's statements start when no "PART I" or "Item 1" heading says so (a filer that puts its
    MD&A first, as JPMorgan does, is not guessed)."""
    last = max((p for p in toc if p < before.page), default=None)
    if last is None or last + 1 >= before.page:
        return None
    head = pages[last + 1][:STATEMENT_HEAD]
    if not any(s.title.search(head) for s in statements().values()) or mdna_first(pages[last]):
        return None
    return Position(last + 1, 0), "(after the contents)"


def _by_index(pages: list[str], form: str, defs: list[ItemDef], ranges: dict[str, list[tuple[int, int]]]
              ) -> Segmentation:
    """Spans from the filing's cross-reference index: one per page range of each Item (ranges of several
    Items may overlap), the pages no Item names as the cover or ``unknown``."""
    order = {d.key: d.order for d in defs}

    def end_of(page: int) -> Position:
        return Position(page + 1, 0) if page + 1 < len(pages) else Position(page, len(pages[page]))

    spans = [ItemSpan(key, title_of(form, key), Position(a, 0), end_of(b), "cross-reference index")
             for key, found in ranges.items() for a, b in found]
    spans += [ItemSpan(kind, title_of(form, kind), Position(a, 0), end_of(b), status=kind)
              for kind, a, b in uncovered(ranges, len(pages))]
    spans.sort(key=lambda s: (s.start.page, order.get(s.item, -1), s.item))
    missing = [k for k in expected_items(form) if k not in ranges]
    warnings = [f"items not found: {', '.join(missing)}"] if missing else []
    chunked = [ItemSpan(key, title_of(form, key), Position(a, 0), end_of(b), "cross-reference index")
               for key, a, b in page_runs(page_owners(ranges, order))]  # each page under one Item
    chunked += [s for s in spans if s.status in (COVER, UNKNOWN)]
    chunked.sort(key=lambda s: (s.start.page, s.start.offset))
    return Segmentation(spans, missing, warnings, "cross-reference", chunked)


def _contents_starts(pages: list[str], toc: set[int], printed: dict[int, int], chain: list,
                     defs: list[ItemDef]) -> list:
    """A 10-Q whose contents put MD&A before the statements and whose body names neither (JPMorgan's): Part I's
    Items 1 and 2 where the contents' page numbers say they start (``etl.segment.contents``; ``printed``:
    printed number -> page)."""
    if {"part1item1", "part1item2"} & {d.key for _, d, _, _ in chain}:
        return chain
    keys = {d.key: d for d in defs}
    starts = mdna_first_starts(pages, toc, printed, chain[0][0].page)
    added = [(Position(page, 0), keys[f"part1item{n}"], "(the contents' page number)", None) for n, page in starts.items()]
    return sorted([*chain, *added], key=lambda c: (c[0].page, c[0].offset)) if added else chain


def _part_one(lines, toc: set[int], before: Position) -> tuple[Position, str] | None:
    """The "PART I" heading of a 10-Q outside the contents, if it comes before ``before``. A line that goes on
    to name another Item than 1 is a reference that wrapped to a line's start ("Part I, Item 1A, Risk Factors
    on pages 9-32 of the 2022 Form 10-K": a 10-Q's Part I opens with Item 1 and has no 1A), not the heading."""
    for page, offset, line in lines:
        if not Position(page, offset) < before:
            return None
        stripped = line.strip()
        m = _PART_RE.match(stripped)
        if page not in toc and m and m.group(1).lower() == "i" and not _names_later_item(stripped):
            return Position(page, offset + len(line) - len(line.lstrip())), stripped
    return None


def _names_later_item(line: str) -> bool:
    """Whether a "Part I" line names an Item other than Item 1 ("Part I, Item 1A, Risk Factors")."""
    m = _HEAD_RE.match(line)
    return m is not None and _number(m.group("num")) != "1"


def segment(pages: list[str], form: str) -> Segmentation:
    """Item spans of a filing; the spans cover the whole document in order (a filing organized by its own
    plan: each Item's page ranges from its cross-reference index, which may overlap)."""
    defs = vocabulary(form)
    end = Position(len(pages) - 1, len(pages[-1])) if pages else Position(0, 0)
    start = Position(0, 0)
    if not defs or not pages:
        return Segmentation([ItemSpan(UNKNOWN, title_of(form, UNKNOWN), start, end, status=UNKNOWN)],
                            warnings=[f"no item vocabulary for form {form!r}"] if not defs else ["empty document"],
                            method="none")
    printed = _printed_page_numbers(pages)
    ranges = page_ranges(pages, defs, printed)
    if len(ranges) >= MIN_INDEX_ITEMS:
        return _by_index(pages, form, defs, ranges)
    lines = _lines(pages)
    base = [0]
    for text in pages:
        base.append(base[-1] + len(text) + 1)
    cands = _candidates(lines)
    toc = _toc_pages(cands, len(pages))
    body = [c for c in cands if c.pos.page not in toc]
    chain = [(c.pos, d, c.heading, c) for c, d in _chain(body, defs, base)]
    method = "headings"
    expected = expected_items(form)
    if expected and len(chain) < len(expected) // 3:
        xref = _cross_reference(cands, defs, printed, base)
        if len(xref) > len(chain):
            chain = [(pos, d, heading, None) for pos, d, heading in xref]
            method = "cross-reference"
    if form.upper().startswith("10-Q") and chain:
        chain = _title_headings(lines, toc, chain, defs)
        chain = _contents_starts(pages, toc, printed, chain, defs)
    if form.upper().startswith("10-Q") and chain and chain[0][1].key != "part1item1":
        # Part I of a 10-Q opens with Item 1 even where no "Item 1" heading is printed: at its "PART I"
        # heading, else right after the contents
        part1 = _part_one(lines, toc, chain[0][0]) or _after_contents(pages, toc, chain[0][0])
        if part1 is not None:
            chain.insert(0, (part1[0], defs[0], part1[1], None))
    if not chain:
        return Segmentation([ItemSpan(UNKNOWN, title_of(form, UNKNOWN), start, end, status=UNKNOWN)],
                            missing=expected, warnings=["no recognizable item headings"], method="none")
    spans: list[ItemSpan] = []
    if chain[0][0] != start:
        spans.append(ItemSpan(COVER, title_of(form, COVER), start, chain[0][0], status=COVER))
    found = set()
    for k, (pos, d, heading, cand) in enumerate(chain):
        nxt = next((c[0] for c in chain[k + 1:] if c[0] != pos), end)
        shared = any(s.start == pos and s.status == "found" for s in spans)  # index items on one page
        spans.append(ItemSpan(d.key, d.title, pos, nxt, heading, status="combined" if shared else "found"))
        found.add(d.key)
        for extra in (cand.numbers[1:] if cand else []):
            for e in defs:
                if e.number == extra and e.order > d.order and e.key not in found:
                    spans.append(ItemSpan(e.key, e.title, pos, nxt, heading, status="combined"))
                    found.add(e.key)
                    break
    missing = [k for k in expected if k not in found]
    warnings = [f"items not found: {', '.join(missing)}"] if missing else []
    return Segmentation(spans, missing, warnings, method)
