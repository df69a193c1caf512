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

# statement -> (title pattern, cue pattern over the question)
STATEMENTS: dict[str, tuple[re.Pattern, re.Pattern]] = {
    "balance sheet": (
        re.compile(r"\b(balance sheets?|statements? of financial (position|condition))\b", re.I),
        re.compile(r"balance sheet|financial position|total assets|total liabilit|current assets|current liabilit|"
                   r"working capital|quick ratio|current ratio|inventor|accounts payable|receivable|"
                   r"shareholders'? equity|stockholders'? equity|ppe\b|pp&e|property,? plant|fixed asset|"
                   r"debt[- ]to|total debt|cash conversion cycle|days (sales|payable|inventory)|\bdio\b|\bdso\b|"
                   r"\bdpo\b|return on (assets|equity)|\broa\b|\broe\b|largest liabilit", re.I),
    ),
    "income statement": (
        re.compile(r"\bstatements? of (consolidated )?(operations|income|earnings)\b|\bincome statements?\b", re.I),
        re.compile(r"income statement|statement of (operations|earnings)|\brevenue|net sales|total sales|"
                   r"cost of (goods|sales|revenue)|\bcogs\b|gross (margin|profit)|operating (income|margin|profit)|"
                   r"\bebit|net (income|earnings|profit)|earnings per share|\beps\b|effective tax rate|"
                   r"interest expense|\bsg&a\b|selling, general|asset turnover|interest coverage", re.I),
    ),
    "cash flow statement": (
        re.compile(r"\bstatements? of (consolidated )?cash flows?\b|\bcash flows? statements?\b", re.I),
        re.compile(r"cash flow|capital expenditure|\bcapex\b|purchases? of property|dividends? paid|"
                   r"paid (out )?(in )?(cash )?dividends|depreciation|amorti[sz]ation|\bd&a\b|\bebitda\b|"
                   r"repurchase|buyback|cash (from|provided by|used in) (operating|investing|financing)", re.I),
    ),
}
FIGURES_SHARE = 0.15  # digits among a statement page's visible characters: prose has under 0.05
_NARRATIVE = re.compile(r"\b(what drove|why|explain|reasons?|driven by|caused)\b", re.I)


def statements_for(question: str) -> list[str]:
    """The statements a question needs, in a stable order; none for narrative questions ("what drove ...")
    unless a statement is named outright."""
    named = [s for s, (title, _) in STATEMENTS.items() if title.search(question)]
    if named:
        return named
    if _NARRATIVE.search(question):
        return []
    return [s for s, (_, cue) in STATEMENTS.items() if cue.search(question)]


def statement_page(statement: str, chunk: dict, top_window: int = 250, figures_window: int = 1500) -> int | None:
    """The page a chunk shows ``statement`` on, when it does: the title in the first lines of a page, no
    other statement's title beside it (the index of financial statements lists them all), mostly figures
    after it (a chunk may start with the prose of the page before). Every mention of the title counts, so
    the index of statements at the head of a chunk does not hide the statement further down.
    Offsets are page-relative: a text chunk is the tail of ``page_start`` from ``char_start``, a newline,
    and the head of ``page_end`` up to ``char_end``."""
    text = chunk.get("text") or ""
    start, end = int(chunk.get("page_start") or 0), int(chunk.get("page_end") or 0)
    boundary = len(text) - int(chunk.get("char_end") or 0) if end > start else len(text) + 1
    for m in STATEMENTS[statement][0].finditer(text):
        if m.start() >= boundary:  # on page_end
            page, offset = end, m.start() - boundary
        else:
            page, offset = start, int(chunk.get("char_start") or 0) + m.start()
        if offset > top_window:
            continue
        window = text[max(0, m.start() - 120): m.end() + 120]
        if any(title.search(window) for s, (title, _) in STATEMENTS.items() if s != statement):
            continue
        body = "".join(text[m.start(): m.start() + figures_window].split())  # layout whitespace aside
        if sum(c.isdigit() for c in body) >= FIGURES_SHARE * max(1, len(body)):
            return page
    return None


# Items where a statement's title heads a table of MD&A, not the statement itself.
NARRATIVE_ITEMS = frozenset({"7", "part1item2"})


def best_statement_page(statement: str, chunks: list[dict]) -> tuple[int, dict] | None:
    """(page, chunk) of the statement among candidate chunks of one document: outside MD&A when any is,
    then the first page."""
    pages = [(p, c) for c in chunks if (p := statement_page(statement, c)) is not None]
    if not pages:
        return None
    return min(pages, key=lambda t: (t[1].get("item") in NARRATIVE_ITEMS, t[0]))


# What finds a statement's pages by their titles (BM25).
QUERIES = {
    "balance sheet": "consolidated balance sheets statements of financial position",
    "income statement": "consolidated statements of operations income earnings",
    "cash flow statement": "consolidated statements of cash flows",
}
