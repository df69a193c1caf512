"""Primary financial statements: which ones a question needs, and where they are in a document.

A metric question ("FY2018 capital expenditure", "quick ratio", "year-over-year change in revenue") is
answered from the balance sheet, the income statement or the cash flow statement, whose pages are mostly
numbers: dense and lexical search rank them poorly against prose that merely mentions the metric. The
question's wording names the statements it needs (explicitly, or through the line items it asks about);
a statement's own page is found by its title at the top of a chunk, not in a running sentence or in the
index of financial statements (which lists every title).
"""

from __future__ import annotations

import re

from domain.sec_items import STATEMENT_ITEMS
from domain.statements import (
    FIGURES_WINDOW,
    Section,
    line_at,
    neighbours,
    note_heads,
    numbered_line,
    section_heads,
    statement_heads,
    statements,
)
from domain.text import FUNCTION_WORDS, has_phrase, lower_words, phrase_text, surface_words, words

# statement -> its title, as printed at the head of the statement (and as a question may name it), from the
# domain's definitions. Which statements a question needs is the query plan's business (query/plan.py).
TITLES: dict[str, re.Pattern] = {name: s.title for name, s in statements().items()}


def page_position(chunk: dict, index: int) -> tuple[int, int]:
    """(page, offset on that page) of character ``index`` of a chunk's text. A text chunk is the tail of
    ``page_start`` from ``char_start``, a newline, and the head of ``page_end`` up to ``char_end``."""
    text = chunk.get("text") or ""
    start, end = int(chunk.get("page_start") or 0), int(chunk.get("page_end") or 0)
    boundary = len(text) - int(chunk.get("char_end") or 0) if end > start else len(text) + 1
    if index >= boundary:  # on page_end
        return end, index - boundary
    return start, int(chunk.get("char_start") or 0) + index


def statement_page(statement: str, chunk: dict, following: dict | None = None) -> int | None:
    """The page a chunk shows ``statement`` on, when it does (``domain.statements.statement_heads``: the
    title on a heading line near the top, no other statement's title beside it, figures after it; a chunk
    may start with the prose of the page before). Every mention of the title counts, so the index of
    statements at the head of a chunk does not hide the statement further down. Offsets are page-relative
    (:func:`page_position`).

    A filing's HTML statement is chunked as its title (a text chunk's last lines), then its table (the next
    chunk, ``following``), its header row repeated in each of its chunks. So a table of the title's page
    that comes next after text is the figures after the title; a title that opens a table chunk's header
    row heads it (a title elsewhere in a table is an index's); and other text that comes next is read on
    for the figures when the chunk's own text does not show them."""
    text = chunk.get("text") or ""
    probe = f"{text}\n{following.get('text') or ''}" if following else text
    for m in TITLES[statement].finditer(text):
        start, _ = line_at(text, m.start())
        page, offset = page_position(chunk, start)
        table = bool(following) and chunk.get("kind") != "table" and following.get("kind") == "table" and \
            int(following.get("page_start") or -1) == page and len(text) - m.start() < FIGURES_WINDOW
        header = start == 0 and chunk.get("kind") == "table"  # a table chunk's first row: its header
        if statement_heads(statement, text, m, offset, header=header) or (following is not None and statement_heads(
                statement, probe, m, offset, table_follows=table, header=header)):
            return page
    return None


def titled_last(statement: str, chunk: dict) -> bool:
    """Whether the chunk names the statement where its own text cannot show the figures after the title:
    within the figures' window of its end (the chunk to read on is worth fetching)."""
    text = chunk.get("text") or ""
    return any(len(text) - m.start() < FIGURES_WINDOW for m in TITLES[statement].finditer(text))


# Items where a statement's title heads a table of MD&A, not the statement itself.
NARRATIVE_ITEMS = frozenset({"7", "part1item2"})


def continuation(statement: str, page: int, chunks: list[dict]) -> dict | None:
    """A chunk of the page after ``page`` when the statement on ``page`` runs on to it (a balance sheet's
    liabilities, a cash flow statement's financing activities): the statement does not close on its page
    (no closing line among its chunks there) and no other statement opens the next one; else None.
    ``chunks``: candidate chunks of the two pages."""
    on_page = " ".join(c.get("text") or "" for c in chunks if int(c["page_start"]) == page)
    following = [c for c in chunks if int(c["page_start"]) == page + 1]
    if not on_page or not following or CLOSINGS[statement].search(on_page):
        return None
    if any(statement_page(other, c) == page + 1 for other in TITLES if other != statement for c in chunks):
        return None
    return following[0]


def best_statement_page(statement: str, chunks: list[dict], following: dict[str, dict] | None = None
                        ) -> tuple[int, dict] | None:
    """(page, chunk) of the statement among candidate chunks of one document: outside MD&A when any is,
    then the first page. ``following``: chunk_id -> the chunk after it (:func:`statement_page`)."""
    following = following or {}
    pages = [(p, c) for c in chunks
             if (p := statement_page(statement, c, following.get(c.get("chunk_id")))) is not None]
    if not pages:
        return None
    return min(pages, key=lambda t: (t[1].get("item") in NARRATIVE_ITEMS, t[0]))


def heading_position(title: re.Pattern, chunk: dict) -> tuple[int, int, bool] | None:
    """(page, offset on the page, whether its line opens with the note's number) of the first heading of a
    note's ``title`` in a chunk."""
    text = chunk.get("text") or ""
    for m in title.finditer(text):
        start, line = line_at(text, m.start())
        page, offset = page_position(chunk, start)
        if note_heads(title, line, offset, *neighbours(text, start, line)):
            return page, offset, numbered_line(line)
    return None


def best_heading_page(title: re.Pattern, chunks: list[dict]) -> tuple[int, dict, int] | None:
    """(page, chunk, the heading's offset on its page) of the first heading page among candidate chunks:
    within the financial statements' Item when any is, then a heading that opens with the note's number (a
    filer whose statements sit in MD&A's Item heads a topic of MD&A, or a table's row, with the note's title
    too: "Restructuring and Impairment Charges" there, "Note 3 - Restructuring and Impairment Charges" in
    the notes); a note begins at its first heading, later pages repeat it as a running head."""
    found = [(at[0], c, at[1], at[2]) for c in chunks if (at := heading_position(title, c)) is not None]
    if not found:
        return None
    page, chunk, offset, _ = min(found, key=lambda t: (t[1].get("item") not in STATEMENT_ITEMS, not t[3], t[0]))
    return page, chunk, offset


# A non-GAAP measure or its reconciliation to GAAP ("Non-GAAP gross margin percentage", "adjusted EBITDA"):
# phrases of lower-cased, unstemmed words ("adjustments to reconcile net income" is GAAP's own wording)
_NON_GAAP = tuple(tuple(lower_words(p)) for p in ("non gaap", "nongaap", "adjusted"))
ROW_FIGURES = 2  # figures a metric's row prints at least: the year asked and the one compared
_ROW_LABEL_SLACK = 2  # words a row's label may add to the metric's ("Effective tax rate (1)", "... - GAAP")
_TOTAL = words("total")
_LETTERS = re.compile(r"[A-Za-z&]+")
_FIGURE = re.compile(r"[(\-–—]?\s*\$?\s*\d[\d,]*(?:\.\d+)?\s*%?\s*\)?")


def non_gaap(text: str | None) -> bool:
    """Whether a text names a non-GAAP measure, read through the shared normalizer's words, so every hyphen
    ("non-GAAP", a non-breaking "non\u2011GAAP", "nongaap") reads alike."""
    plain = phrase_text(tuple(lower_words(text)))
    return any(has_phrase(plain, p) for p in _NON_GAAP)


def row_page(metric: tuple[str, ...], chunk: dict, percent: bool = False) -> int | None:
    """The page on which a chunk prints ``metric`` (its words' stems) as a table's row: a short line opening
    with its words, then at least ``ROW_FIGURES`` figures before the next line with words (a PDF's text puts
    a row's cells on its label's line or the lines after it); with ``percent``, figures that are percentages
    (a share asked for: "gross margin percentage" is MD&A's row of gross margin as a percent of revenue,
    not the income statement's row of amounts)."""
    text = chunk.get("text") or ""
    lines = text.split("\n")
    at = 0
    for i, line in enumerate(lines):
        if not _may_label(line, metric):
            at += len(line) + 1
            continue
        said = words(_FIGURE.sub(" ", line))
        said = said[1:] if said[:1] == _TOTAL and said[1:1 + len(metric)] == metric else said  # "Total revenues"
        labelled = said[:len(metric)] == metric and len(said) <= len(metric) + _ROW_LABEL_SLACK
        cells = _FIGURE.findall(_without_label(line, metric)) + _row_cells(lines[i + 1:])
        if labelled and len([c for c in cells if "%" in c or not percent]) >= ROW_FIGURES:
            return page_position(chunk, at)[0]
        at += len(line) + 1
    return None


PART_LABEL_WORDS = 6  # words a part's row label holds at most ("Building Solutions North America")
# Words a part's label may add to the part's own: it is a segment's, a business's (none names which)
_STRUCTURE = frozenset(words("segment segments business businesses division divisions group total net gross "
                             "percentage percent rate growth change adjusted reported eps ebit ebitda gaap non "
                             "usd fy ttm ytd"))


def part_row(asked: frozenset[str], parts: frozenset[str], metric: tuple[tuple[str, ...], ...], chunk: dict,
             titled: bool = False) -> tuple[int, int, str] | None:
    """(page, words of the part, the row's label) of the first table row in a chunk labelled by a part of the
    company the question names (a segment, a business, a product: "Theme Parks 8,947 7,541", "Diabetes 2,488
    2,262"): a label of the question's own words (``asked``: its stems) or the metric's ("Sales through NIKE
    Direct" for NIKE Direct's revenues) holding one of ``parts`` (the names
    it writes with a capital, :func:`named_parts`), with ``ROW_FIGURES`` figures, in a chunk that names the
    metric by one of its cues (``metric``: a table of parts' revenue or net sales, not of their comparable
    sales); with ``titled`` (a question typed in lower case), a label written as a name. The consolidated
    statements print no part's row, so a part's figure stands in MD&A's or a note's table of parts."""
    text = chunk.get("text") or ""
    stems = phrase_text(words(text))
    if not any(has_phrase(stems, cue) for cue in metric):
        return None
    measured = frozenset(w for cue in metric for w in cue)  # "Sales through NIKE Direct" for its revenues
    lines = text.split("\n")
    at = 0
    for i, line in enumerate(lines):
        said = words(_FIGURE.sub(" ", line))
        named = frozenset(said) - FUNCTION_WORDS
        part = named & parts
        if part and len(said) <= PART_LABEL_WORDS and named <= asked | measured and _label_first(line) and \
                (not titled or _titled(line)) and len(_FIGURE.findall(line) + _part_cells(lines[i + 1:])) >= ROW_FIGURES:
            return page_position(chunk, at)[0], len(part), _label(line)
        at += len(line) + 1
    return None


PART_HEADING_LINES = 3  # a text chunk's last lines where a part's section heading stands (its table is next)


def part_heading(parts: frozenset[str], chunk: dict) -> str | None:
    """The heading of a part's own section that closes a text chunk (MD&A's "AEROSPACE", "Theme Parks Segment
    Results of Operations": its table of results is the next chunk), or None: one of the last lines, opening
    with one of ``parts``' words, of few words and no figures, not a sentence."""
    if chunk.get("kind", "text") != "text":
        return None
    lines = [line for line in (chunk.get("text") or "").split("\n") if re.search(r"[A-Za-z]", line)]
    for line in lines[-PART_HEADING_LINES:]:  # lines of words: a chart's stray figures after it are no line
        said = words(line)
        if said and said[0] in parts and len(said) <= PART_LABEL_WORDS and not re.search(r"\d|[.;:]\s*$", line):
            return line.strip()
    return None


def _part_cells(lines: list[str]) -> list[str]:
    """A part's row's figures on the lines after its label, one line of words between allowed (a PDF's table
    of products prints each one's indication under its name: "Paxlovid", "COVID-19 in certain high-risk
    patients", then its figures)."""
    cells = _row_cells(lines)
    words_at = next((i for i, line in enumerate(lines) if re.search(r"[A-Za-z]{2}", line)), None)
    return cells if cells or words_at is None else _row_cells(lines[words_at + 1:])


def named_parts(question: str, ignore: frozenset[str]) -> frozenset[str]:
    """The stems of the words a question writes with a capital, a sentence's first aside (names: "Theme
    Parks", "Optum Health", "Diabetes"), less ``ignore`` (the companies' names, the periods, the metric's
    words) and words that say a part is one without naming it ("segment", "EPS"): a line item is asked in
    lower case ("free cash flow", "research and development expenses"), a part by its name. A question
    typed all in lower case ("theme parks revenue 2023") says no case: each of its words may be a part,
    which a row then names only in a title's capitals (:func:`part_row`'s ``titled``)."""
    if typed_lower(question):
        return frozenset(w for w in words(question) if not w.isdigit()) - ignore - _STRUCTURE - FUNCTION_WORDS - _ASKING
    caps = [w for w, at in surface_words(question)
            if w[:1].isupper() and not re.search(r"(?:^|[.?!;:])\W*$", question[:at])]  # no sentence's first word
    return frozenset(w for c in caps for w in words(c)) - ignore - _STRUCTURE


_ASKING = frozenset(words("what was were is are did does do how much many which who when why has have had a an"))


def typed_lower(question: str) -> bool:
    """Whether a question is typed without a capital (a search box's "nike direct revenue fy21")."""
    return not any(c.isupper() for c in question)


def _titled(line: str) -> bool:
    """Whether a row's label is written as a name: each word but the joining ones opens with a capital
    ("Theme Parks", "Sales through NIKE Direct"), not a line item's sentence case ("Free cash flow")."""
    said = re.findall(r"[A-Za-z][A-Za-z&'’-]*", _label(line))
    return bool(said) and all(w[0].isupper() or w.lower() in FUNCTION_WORDS for w in said)


def _label(line: str) -> str:
    """A row's label as printed: its line up to the first cell."""
    return re.split(r"\s*\|\s*|\s+[(\-–—$]?\s*\d", line.strip(), maxsplit=1)[0]


def _label_first(line: str) -> bool:
    """Whether a line opens with its label's words (then figures), as a table's row does."""
    return bool(re.match(r"^\W*[A-Za-z&]", line)) and not re.search(r"[A-Za-z]{2}.*\d.*[A-Za-z]{2}", line)


def _may_label(line: str, metric: tuple[str, ...]) -> bool:
    """A cheap look before stemming a line: few words, the first like the metric's first (or "Total")."""
    said = _LETTERS.findall(line)
    return 0 < len(said) <= len(metric) + _ROW_LABEL_SLACK + 1 and \
        said[0].lower().startswith((metric[0][:3], "tot"))


def _without_label(line: str, metric: tuple[str, ...]) -> str:
    """A row's line after its label's words."""
    return re.sub(r"^\W*" + r"\W+".join(r"[A-Za-z&]+" for _ in metric), "", line.strip())


def _row_cells(lines: list[str]) -> list[str]:
    """Figures on the lines after a row's label, up to the next line with words."""
    cells: list[str] = []
    for line in lines:
        if re.search(r"[A-Za-z]{2}", line):
            break
        cells += _FIGURE.findall(line)
    return cells


def section_page(section: Section, chunk: dict) -> int | None:
    """The page on which a chunk of the section's Items opens the MD&A ``section`` (its heading on a line
    of its own, ``domain.statements.section_heads``)."""
    text = chunk.get("text") or ""
    if chunk.get("item") not in section.items:
        return None
    for m in section.title.finditer(text):
        start, line = line_at(text, m.start())
        if section_heads(section.title, line, neighbours(text, start, line)[1]):
            return page_position(chunk, start)[0]
    return None


def best_section_page(section: Section, chunks: list[dict]) -> tuple[int, dict] | None:
    """(page, chunk) of the first page that opens the section among candidate chunks of one document."""
    found = [(p, c) for c in chunks if (p := section_page(section, c)) is not None]
    return min(found, key=lambda t: t[0]) if found else None


# The line that closes each statement (a statement page without it continues on the next page), and what
# finds a statement's pages by their titles (BM25).
CLOSINGS: dict[str, re.Pattern] = {name: s.closing for name, s in statements().items() if s.closing}
QUERIES: dict[str, str] = {name: s.query for name, s in statements().items()}
