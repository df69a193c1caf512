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


def statement_page(statement: str, chunk: dict, top_window: int = 250) -> int | None:
    """The page a chunk shows ``statement`` on, when it does: the title in the first lines of a page, no
    other statement's title beside it (the index of financial statements lists them all), mostly figures.
    Offsets are page-relative: a text chunk is the tail of ``page_start`` from ``char_start``, a newline,
    and the head of ``page_end`` up to ``char_end``."""
    text = chunk.get("text") or ""
    m = STATEMENTS[statement][0].search(text)
    if m is None or sum(c.isdigit() for c in text) < 0.12 * max(1, len(text)):
        return None
    start, end = int(chunk.get("page_start") or 0), int(chunk.get("page_end") or 0)
    boundary = len(text) - int(chunk.get("char_end") or 0) if end > start else len(text) + 1
    if m.start() >= boundary:  # on page_end
        page, offset = end, m.start() - boundary
    else:
        page, offset = start, int(chunk.get("char_start") or 0) + m.start()
    if offset > top_window:
        return None
    window = text[max(0, m.start() - 120): m.end() + 120]
    if any(title.search(window) for s, (title, _) in STATEMENTS.items() if s != statement):
        return None
    return page


# What finds a statement's pages by their titles (BM25).
QUERIES = {
    "balance sheet": "consolidated balance sheets statements of financial position",
    "income statement": "consolidated statements of operations income earnings",
    "cash flow statement": "consolidated statements of cash flows",
}
