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
from collections.abc import Iterable, Iterator

from domain.sec_items import STATEMENT_ITEMS
from domain.statements import (
    FIGURES_WINDOW,
    Section,
    among_labels,
    line_at,
    neighbours,
    note_heads,
    numbered_line,
    runs_in,
    section_heads,
    statement_heads,
    statements,
)
from domain.text import FUNCTION_WORDS, ends_sentence, has_phrase, lower_words, phrase_text, words

# statement -> its title, as printed at the head of the statement (and as a question may name it), from the
# domain's definitions. Which statements a question needs is the query plan's business (query/plan.py).
TITLES: dict[str, re.Pattern] = {name: s.title for name, s in statements().items()}


def page_break(chunk: dict) -> int | None:
    """Where a chunk's text runs on to ``page_end``: the index its head there starts at (a text chunk is the
    tail of ``page_start`` from ``char_start``, a newline, and the head of ``page_end`` up to ``char_end``);
    None for a chunk on one page. The one formula :func:`page_position`, ``query.scoring.page_head`` and
    ``query.scoring.chunk_pages`` read."""
    if int(chunk.get("page_end") or 0) <= int(chunk.get("page_start") or 0):
        return None
    return len(chunk.get("text") or "") - int(chunk.get("char_end") or 0)


def page_position(chunk: dict, index: int) -> tuple[int, int]:
    """(page, offset on that page) of character ``index`` of a chunk's text (:func:`page_break`)."""
    text = chunk.get("text") or ""
    start, end = int(chunk.get("page_start") or 0), int(chunk.get("page_end") or 0)
    broken = page_break(chunk)
    boundary = len(text) + 1 if broken is None else broken
    if index >= boundary:  # on page_end
        return end, index - boundary
    return start, int(chunk.get("char_start") or 0) + index


def statement_page(statement: str, chunk: dict, following: dict | None = None, summaries: bool = False
                   ) -> int | None:
    """The page a chunk shows ``statement`` on, when it does (``domain.statements.statement_heads``: the
    title on a heading line near the top, no other statement's title beside it, figures after it; a chunk
    may start with the prose of the page before). Every mention of the title counts, so the index of
    statements at the head of a chunk does not hide the statement further down. Offsets are page-relative
    (:func:`page_position`).

    A filing's HTML statement is chunked as its title (a text chunk's last lines), then its table (the next
    chunk, ``following``), its header row repeated in each of its chunks. So a table of the title's page
    that comes next after text is the figures after the title; a title that opens a table chunk's header
    row heads it (a title elsewhere in a table is an index's); and other text that comes next is read on
    for the figures when the chunk's own text does not show them. ``summaries``: a summary of some of the
    statement's lines counts too ("Selected Income Statement Data", ``domain.statements.summary_title``)."""
    text = chunk.get("text") or ""
    probe = f"{text}\n{following.get('text') or ''}" if following else text
    for m in TITLES[statement].finditer(text):
        start, _ = line_at(text, m.start())
        page, offset = page_position(chunk, start)
        table = bool(following) and chunk.get("kind") != "table" and following.get("kind") == "table" and \
            int(following.get("page_start") or -1) == page and len(text) - m.start() < FIGURES_WINDOW
        header = start == 0 and opens_on_header(chunk)
        if statement_heads(statement, text, m, offset, header=header, summaries=summaries) or (
                following is not None and statement_heads(statement, probe, m, offset, table_follows=table,
                                                          header=header, summaries=summaries)):
            return page
    return None


def titled_last(statement: str, chunk: dict) -> bool:
    """Whether the chunk names the statement where its own text cannot show the figures after the title:
    within the figures' window of its end (the chunk to read on is worth fetching)."""
    text = chunk.get("text") or ""
    return any(len(text) - m.start() < FIGURES_WINDOW for m in TITLES[statement].finditer(text))


# Items where a statement's title heads a table of MD&A, not the statement itself.
NARRATIVE_ITEMS = frozenset({"7", "part1item2"})


OPENING_CHUNKS = 8  # MD&A's first passages, where a filing sums up its period (overview, highlights)


def in_narrative(chunk: dict) -> bool:
    """Whether a chunk is MD&A's (:data:`NARRATIVE_ITEMS`), where a statement's title heads one of its tables."""
    return chunk.get("item") in NARRATIVE_ITEMS


def at_opening(chunk: dict) -> bool:
    """Whether a chunk is among MD&A's first :data:`OPENING_CHUNKS` passages, where a filing sums up its period
    (a bank's "Consolidated financial highlights", which its MD&A opens with, before the statements)."""
    return in_narrative(chunk) and chunk.get("seq") is not None and int(chunk["seq"]) < OPENING_CHUNKS


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


def best_statement_page(statement: str, chunks: list[dict], following: dict[str, dict] | None = None,
                        summaries: bool = False) -> tuple[int, dict] | None:
    """(page, chunk) of the statement among candidate chunks of one document: outside MD&A when any is,
    then the first page. ``following``: chunk_id -> the chunk after it; ``summaries``: a summary's page
    counts too (:func:`statement_page`), MD&A's opening summing up the period as selected data outside it
    does (:func:`at_opening`)."""
    following = following or {}
    pages = [(p, c) for c in chunks
             if (p := statement_page(statement, c, following.get(c.get("chunk_id")), summaries)) is not None]
    if not pages:
        return None
    return min(pages, key=lambda t: (in_narrative(t[1]) and not (summaries and at_opening(t[1])), t[0]))


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
_WHOLE = frozenset(words("total consolidated"))  # a row label naming the whole, not a line item
# a row label's words that say no more than the question does: joining words, and "net" (a statement's "Net
# cash provided by operating activities" is the "cash operating activities provided" asked)
_UNNAMING = FUNCTION_WORDS | frozenset(words("net"))
# a row printing the row above's measure as a share of the whole's sales ("% of sales", "Percent of net revenues"):
# the row above names the ratio (JCI's "Gross profit | 2,431" over "% of sales | 34.1%")
_SHARE_OF = frozenset(words("as a percent percentage of sales revenue revenues"))
# Words that say an item is a cost: a row labels it by the item alone or with them ("Research and development
# expenses", "Medical costs"), a question with them or with a verb of spending ("spend on research and development")
COST_WORDS = frozenset(words("expense expenses cost costs"))
_LETTERS = re.compile(r"[A-Za-z&]+")
FIGURE = re.compile(r"[(\-–—]?\s*\$?\s*\d[\d,]*(?:\.\d+)?\s*%?\s*\)?")  # a table cell: an amount or a percent


def non_gaap(text: str | None) -> bool:
    """Whether a text names a non-GAAP measure, read through the shared normalizer's words, so every hyphen
    ("non-GAAP", a non-breaking "non\u2011GAAP", "nongaap") reads alike."""
    plain = phrase_text(tuple(lower_words(text)))
    return any(has_phrase(plain, p) for p in _NON_GAAP)


def row_page(metric: tuple[str, ...], chunk: dict, percent: bool = False, after: int = 0) -> int | None:
    """The page on which a chunk prints ``metric`` (its words' stems) as a table's row: a short line opening
    with its words, then at least ``ROW_FIGURES`` figures before the next line with words (a PDF's text puts
    a row's cells on its label's line or the lines after it); with ``percent``, figures that are percentages
    (a share asked for: "gross margin percentage" is MD&A's row of gross margin as a percent of revenue,
    not the income statement's row of amounts). ``after``: only rows from that character of the text on."""
    found = row_line(metric, chunk, percent, after)
    return page_position(chunk, found[1])[0] if found else None


_RATIO_WORDS = frozenset(words("margin rate"))  # a metric's last word saying it is a ratio, as words() stems it
_MARGIN = words("margin")[0]
_RATE = words("rate")[0]
_PROFIT_WORDS = tuple(words("income profit"))  # a margin's row may name the profit it is the margin of
# what follows the profit's words in a margin's row: "Operating income margin", "Gross profit rate", "Operating
# income as a percentage of net sales" (the margin printed as the profit's share of sales)
_MARGIN_TAILS = (words("margin"), words("rate"), words("as a percentage of"), words("as a percent of"))


def ratio_rows(labels: list[tuple[str, ...]], question: str) -> tuple[tuple[str, ...], ...]:
    """The rows that print the ratio a question asks (a margin, a rate: stems; ``labels``: its metric's,
    :meth:`~query.concepts.ConceptMap.row_labels`), as filings label them: a margin with or without its
    profit's word ("Operating margin", "Operating income margin", "Operating profit margin"), whichever the
    question says ("operating income margin": the metric's cue is "operating income"), or as its profit's rate
    or share of sales ("Gross profit rate", "Operating income as a percentage of net sales"), whichever the
    question says it by ("gross margin", "gross profit margin", "gross profit rate"). None for a metric of
    amounts: its row of percents is its growth, not the metric."""
    said = phrase_text(words(question))
    out: list[tuple[str, ...]] = []
    for label in labels:
        if label[-1] not in _RATIO_WORDS and (has_phrase(said, (*label, _MARGIN)) or (
                label[-1] in _PROFIT_WORDS and has_phrase(said, (*label, _RATE)))):
            label = (*label, _MARGIN)  # a profit's rate is its margin ("gross profit rate"; not "income tax rate")
        if label[-1] in _RATIO_WORDS:
            out.append(label)
        if label[-1] == _MARGIN and (len(label) == 2 or (len(label) == 3 and label[1] in _PROFIT_WORDS)):
            out += [(label[0], _MARGIN)] + [(label[0], w, *tail) for w in _PROFIT_WORDS for tail in _MARGIN_TAILS]
    return tuple(dict.fromkeys(out))


def unstated_rank(ratios: tuple[tuple[str, ...], ...], texts: Iterable[str]) -> int | None:
    """Where the income statement ranks among MD&A's pages (``texts``) for a margin asked (``ratios``:
    :func:`ratio_rows`) that they never state, in any of its printed forms. First when they do not name its
    profit either ("gross profit" for a gross margin): the company does not measure itself by it (a card issuer
    prints no gross profit). Second when they explain the profit (Amazon's "operating income", a chip maker's
    "gross profit"): that page tells what drove it, the statement's lines give the margin. None when the margin
    is stated, or no margin is asked."""
    if not any(label[-1] == _MARGIN for label in ratios):
        return None
    said = [phrase_text(words(text)) for text in texts]
    if any(has_phrase(stems, label) for stems in said for label in ratios):
        return None
    profits = dict.fromkeys(label[:2] for label in ratios if len(label) > 2 and label[1] in _PROFIT_WORDS)
    return int(any(has_phrase(stems, label) for stems in said for label in profits))


def row_line(metric: tuple[str, ...], chunk: dict, percent: bool = False, after: int = 0) -> tuple[int, int] | None:
    """(line, character) where :func:`row_page`'s row stands in the chunk's text."""
    text = chunk.get("text") or ""
    lines = text.split("\n")
    at = 0
    for i, line in enumerate(lines):
        if at < after or not _may_label(line, metric):
            at += len(line) + 1
            continue
        said = words(FIGURE.sub(" ", line))
        said = said[1:] if said[:1] == _TOTAL and said[1:1 + len(metric)] == metric else said  # "Total revenues"
        labelled = said[:len(metric)] == metric and len(said) <= len(metric) + _ROW_LABEL_SLACK
        cells = FIGURE.findall(_without_label(line, metric)) + row_cells(lines[i + 1:])
        if labelled and len([c for c in cells if "%" in c or not percent]) >= ROW_FIGURES:
            return i, at
        at += len(line) + 1
    return None


def _may_label(line: str, metric: tuple[str, ...]) -> bool:
    """A cheap look before stemming a line: few words, the first like the metric's first (or "Total")."""
    said = _LETTERS.findall(line)
    return 0 < len(said) <= len(metric) + _ROW_LABEL_SLACK + 1 and \
        said[0].lower().startswith((metric[0][:3], "tot"))


def _without_label(line: str, metric: tuple[str, ...]) -> str:
    """A row's line after its label's words."""
    return re.sub(r"^\W*" + r"\W+".join(r"[A-Za-z&]+" for _ in metric), "", line.strip())


def labelled_lines(lines: list[str]) -> Iterator[tuple[int, str, int]]:
    """Each line of a page's text read as a table's row: (its index, its label: the text before its first
    figure, a cell's bar read as a space, where it starts in the text joined by newlines)."""
    at = 0
    for i, line in enumerate(lines):
        cell = FIGURE.search(line)
        yield i, (line[:cell.start()] if cell else line).replace("|", " "), at
        at += len(line) + 1


def label_cells(lines: list[str], i: int, label: str) -> list[str]:
    """The figures of the row line ``i`` labels (``label``: :func:`labelled_lines`'): after the label on its
    line, then on the lines after it up to the next line with words (a PDF's text puts a row's cells below)."""
    return FIGURE.findall(lines[i][len(label):]) + row_cells(lines[i + 1:])


def opens_on_header(chunk: dict) -> bool:
    """Whether a passage's first line is its table's header row: an HTML table's passages each open on it,
    repeated in every passage of a long table (a PDF's passages are text, their column titles lines of it)."""
    return chunk.get("kind") == "table"


_WORD = re.compile(r"[A-Za-z]{2}")


def has_words(line: str) -> bool:
    """Whether a line says a word (two letters in a row), not only figures, signs and a currency's letter: a
    table's label, head or prose, where a line of cells holds none."""
    return bool(_WORD.search(line))


def row_cells(lines: list[str]) -> list[str]:
    """Figures on the lines after a row's label, up to the next line with words."""
    cells: list[str] = []
    for line in lines:
        if has_words(line):
            break
        cells += FIGURE.findall(line)
    return cells


HEAD_LINES = 40  # lines with text a table's head holds at most: a PDF's text puts each column title on a line of its own
HEAD_WORDS = 8  # words a head's line holds at most: a longer one is the prose before the table
ROW_LINES = 24  # lines after a row's label its figures are read on (a PDF's table prints a cell per line)


def table_head(lines: list[str], i: int) -> list[str]:
    """The lines heading the table whose row line ``i`` is ("Three months ended", "December 31, 2018", "Net
    Sales"): above the table's rows (:func:`_in_body`), up to another table's row, a line of prose (more than
    ``HEAD_WORDS`` words) or a sentence's end ("... in the fourth quarter of 2019."). Empty where the passage
    opens inside the table, its head in the passage before."""
    top = i
    while top > 0 and _in_body(lines, top - 1):
        top -= 1
    head: list[str] = []
    for k in range(top - 1, -1, -1):
        line = lines[k].strip()
        said = words(line)
        if len(head) >= HEAD_LINES or prose(line) or (ends_sentence(line) and len(said) > 1) or \
                any(figure_cell(c) for c in FIGURE.findall(line) + (row_cells(lines[k + 1:]) if said else [])):
            break
        head += [line] if line else []
    return head[::-1]


PIECES = re.compile(r"\s*\|\s*|\s+/\s+")  # an HTML table's header cells, and the levels of a cell's title


def prose(line: str) -> bool:
    """Whether a line is prose, not a table's head nor its row: a cell of more than ``HEAD_WORDS`` words (an
    HTML table prints a row's cells on one line, "Nine Months Ended | % Change Better (Worse) / (in millions) |
    July 1, 2023 | ..." as a head, "Americas | $167,045 | 3% | $162,560 | (4)% | $169,658" as a row: each cell
    a title or a figure)."""
    return any(len(words(piece)) > HEAD_WORDS for piece in PIECES.split(line))


def _in_body(lines: list[str], k: int) -> bool:
    """Whether line ``k`` is among a table's rows: figures or nothing, or a label whose row prints an amount."""
    if not has_words(lines[k]):
        return True
    return any(figure_cell(c) for c in FIGURE.findall(lines[k]) + row_cells(lines[k + 1:]))


def figure_cell(cell: str) -> bool:
    """Whether a cell is a row's figure, not a column title's (a year, a day): a percent or an amount."""
    return "%" in cell or amount_cell(cell)


AMOUNT_DIGITS = 3  # digits of an amount (a product's sales in millions), more than a percent's or a day's


def amount_cell(cell: str) -> bool:
    """Whether a cell is an amount: ``AMOUNT_DIGITS`` digits or more before its decimals, no percent, no year."""
    digits = re.sub(r"\D", "", cell.split(".")[0])
    return len(digits) >= AMOUNT_DIGITS and "%" not in cell and not year_cell(cell)


def year_cell(cell: str) -> bool:
    """Whether a cell is a column head's year, no amount (an amount of thousands prints a comma)."""
    return bool(re.fullmatch(r"(19|20)\d\d", cell.strip()))


ECHO_DIGITS = 4  # a figure of this many digits or more names one amount within a document ...
LABELLED_ECHO_DIGITS = 3  # ... or of this many, on a row labelled by the question's own words ("Operating Profit")


def echo_page(displays: set[str], asked: frozenset[str], chunk: dict) -> int | None:
    """The page on which a chunk prints one of ``displays`` (a reported fact's figures, as "16,046") as a
    table's cell on a row the question's words (stems, ``asked``) or the whole's ("Total", "Consolidated")
    label: the amount a question asks, printed again off its statement (MD&A's summary of results, a segment
    note's "Total"). Only figures of
    ``ECHO_DIGITS`` digits or more count (a short one, "400", is printed by unrelated rows too), or of
    ``LABELLED_ECHO_DIGITS`` on a row whose label has words of its own, not the whole's alone (a segment's
    "Operating Profit $ 883" in its MD&A section), and only under a label of the question's own words (its
    joining words and "net" aside: :data:`_UNNAMING`; a cost's words too, :data:`COST_WORDS`, where the label
    says the item's own: "Research and development expenses" for "spend on research and development", "Medical
    costs" for the medical care ratio's), so a fact the question did not mean (the dividends paid of "payments
    volume") is not printed again by an equity statement's row."""
    text = chunk.get("text") or ""
    for m in FIGURE.finditer(text):
        cell = m.group().strip(" ($-–—)%")
        digits = sum(c.isdigit() for c in cell)
        if cell not in displays or digits < LABELLED_ECHO_DIGITS or "%" in m.group():
            continue
        said, own = _row_label(text, m.start())
        named = own - COST_WORDS or own  # "Research and development expenses": the item's words name it
        # "Total", "Consolidated" alone label a table's sum of the parts
        if said and named <= asked and (digits >= ECHO_DIGITS or named):
            return page_position(chunk, m.start())[0]
    return None


_PERCENT = "percent"  # the sign spelled out after a figure, as 3M and Chevron write a rate


def _value(m: re.Match) -> str:
    """A percent's digits as the facts compute them: its sign, percent and the spaces or line break around it
    aside ("(24.2)%", "24.2\n" before "percent" on the next line)."""
    return m.group().strip(" \t\r\n($-–—)%")


def percent_page(percents: set[str], asked: frozenset[str], chunk: dict, signed: bool = False) -> int | None:
    """The page on which a chunk prints one of ``percents`` (a margin the facts compute, "10.0") as a percent
    (a cell with "%" or "percent" after it, or a table's cell of no currency: a "% of net sales" column prints
    none) on a row whose label says one of the question's words (stems, ``asked``: "Operating margins", "GAAP
    operating income margin", "Operating income" beside its amount) or names the whole alone ("Consolidated" in
    a table of margins by segment): a value to one or two decimals that the facts compute is printed by few other rows,
    and those under other words ("Effective tax rate"). ``signed``: a cell with its sign only, for a whole
    percent, which a table's count or amount prints as often ("Share of other costs | 57 | 69")."""
    text = chunk.get("text") or ""
    for m in FIGURE.finditer(text):
        cell = m.group()
        spelled = text[m.end():m.end() + len(_PERCENT)].lower() == _PERCENT  # "24.2 percent"
        if _value(m) not in percents or \
                not ("%" in cell or spelled or (not signed and "$" not in cell and _in_table(text, m))):
            continue
        said, own = _row_label(text, m.start())
        above = text.rfind("\n", 0, m.start())
        if own and own <= _SHARE_OF and above > 0:  # "% of sales" under "Gross profit": the row above names it
            said, own = _row_label(text, above)
        if said and (not own or own & asked):
            return page_position(chunk, m.start())[0]
    return None


def _in_table(text: str, m: re.Match) -> bool:
    """Whether a figure is a table's cell: its line separates cells with "|"."""
    return "|" in line_at(text, m.start())[1]


def _row_label(text: str, at: int) -> tuple[list[str], set[str]]:
    """The stems of the label of the table row a cell at ``at`` is on (its line before the cell, figures
    aside), and those of its own: not the whole's ("Total"), joining words or "net"."""
    row = re.split(r"\n| / ", text[:at])[-1]
    said = words(FIGURE.sub(" ", row.replace("|", " ")))
    return said, set(said) - _WHOLE - _UNNAMING


def _title_lines(section: Section, chunk: dict) -> list[tuple[int, str]]:
    """(start, line) of each line of a chunk of the section's Items that the section's title falls on, once each."""
    if chunk.get("item") not in section.items:
        return []
    text = chunk.get("text") or ""
    return list(dict.fromkeys(line_at(text, m.start()) for m in section.title.finditer(text)))


def section_page(section: Section, chunk: dict) -> int | None:
    """The page on which a chunk of the section's Items opens the MD&A ``section`` (its heading on a line
    of its own, ``domain.statements.section_heads``)."""
    text = chunk.get("text") or ""
    for start, line in _title_lines(section, chunk):
        previous, following = neighbours(text, start, line)
        if section_heads(section.title, line, following) and \
                not among_labels(previous, following, text[start + len(line):], section.query):
            return page_position(chunk, start)[0]
    return None


def run_in_page(section: Section, chunk: dict) -> int | None:
    """The page on which a chunk of the section's Items opens the section by a run-in heading
    (``domain.statements.runs_in``: "Human Capital Management: Our values ...")."""
    return next((page_position(chunk, start)[0] for start, line in _title_lines(section, chunk)
                 if runs_in(section.title, line)), None)


def best_section_page(section: Section, chunks: list[dict]) -> tuple[int, dict] | None:
    """(page, chunk) of the first page that opens the section among candidate chunks of one document: by a
    heading on a line of its own, else (a filer that sets the topic in) by a run-in heading."""
    for opens in (section_page, run_in_page):
        found = [(p, c) for c in chunks if (p := opens(section, c)) is not None]
        if found:
            return min(found, key=lambda t: t[0])
    return None


# The line that closes each statement (a statement page without it continues on the next page), and what
# finds a statement's pages by their titles (BM25).
CLOSINGS: dict[str, re.Pattern] = {name: s.closing for name, s in statements().items() if s.closing}
QUERIES: dict[str, str] = {name: s.query for name, s in statements().items()}
