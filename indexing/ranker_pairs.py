"""Training questions the corpus makes about itself, for the learned page ranker (issue: no human labels,
no LLM, no question text from any QA file).

A page labels itself four ways: a **row label** printed on a figures page ("Net cash provided by operating
activities  4,312") is answered by that page; a **statement's** printed title ("Consolidated Statements of
Cash Flows", ``domain.statements``) by the statement's first page; a **note's** heading ("Income Taxes") by
the page it heads; a **driver** sentence of prose ("Net sales decreased 3.0% ... primarily due to ...", how
MD&A explains a change) by its page, asked as what drove the change. Each becomes one question about the
document's company and period, phrased one of several ways (chosen by a hash of the pair, so reruns agree).
Only labels that name one or two pages of their document are kept: a label printed everywhere (a running header) answers nothing. Pure functions
over plain values; ``indexing/ranker_job.py`` runs them per document in Spark.
"""

from __future__ import annotations

import hashlib
import re

from domain.statements import (
    driver_labels,
    is_figures,
    line_at,
    note_heads,
    notes,
    statement_heads,
    statements,
)

MAX_PAIRS = 24  # per document: a 10-K has hundreds of row labels; a few dozen of each kind teach the ranker
_LABEL_LINE = re.compile(r"^[A-Z][A-Za-z,'&()/ -]{6,70}$")
_NUMBER_LINE = re.compile(r"^[\s$(]*\(?\d{1,3}(,\d{3})+(\.\d+)?\)?[\s%)]*|^[\s$(]*\d+\.\d+[\s%)]*")
ROW_TEMPLATES = (
    "What was {company}'s {label} in {period}?",
    "How much {label} did {company} report for {period}?",
    "{company} {label} {period}",
    "In {period}, what amount did {company} report as {label}?",
)
DRIVER_TEMPLATES = (
    "What drove the change in {company}'s {label} in {period}?",
    "Why did {company}'s {label} change in {period}?",
    "What explains the change in {label} at {company} in {period}?",
)
SECTION_TEMPLATES = (
    "Where are {company}'s {label} for {period}?",
    "Show the {label} of {company} for {period}.",
    "{company} {period} {label}",
)


def _digest(*parts: object) -> str:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()


def row_labels(text: str) -> list[str]:
    """Row labels of a figures page: a line of words (no digits) followed within two lines by a number."""
    lines = [line.strip() for line in text.splitlines()]
    found = []
    for i, line in enumerate(lines):
        if not _LABEL_LINE.match(line) or len(line.split()) < 2:
            continue
        after = [nxt for nxt in lines[i + 1:i + 4] if nxt and nxt != "$"][:2]
        if any(_NUMBER_LINE.match(nxt) for nxt in after):
            found.append(" ".join(line.rstrip(" ,:").split()))
    return found


def headings(text: str) -> list[tuple[str, str]]:
    """(source, name) of the statements and notes whose title heads the page (``domain.statements``' page
    rule, as the query's pins apply it: a statement's title near the top with figures after it; a note's heading
    numbered anywhere, or near the top)."""
    found = [("statement", name) for name, s in statements().items()
             if any(statement_heads(name, text, m, line_at(text, m.start())[0]) for m in s.title.finditer(text))]
    lines = _lines(text)
    return found + [("note", name) for name, n in notes().items()
                    if any(note_heads(n.title, line, offset, previous, following)
                           for offset, line, previous, following in lines)]


def _lines(text: str) -> list[tuple[int, str, str, str]]:
    """(offset, line, the line before, the line after) of each line of a page."""
    lines = text.splitlines(keepends=True)
    out, offset = [], 0
    for i, line in enumerate(lines):
        out.append((offset, line.rstrip("\n"), lines[i - 1].rstrip("\n") if i else "",
                    lines[i + 1].rstrip("\n") if i + 1 < len(lines) else ""))
        offset += len(line)
    return out


def period_words(fiscal_year: int | None, fiscal_period: str | None) -> str:
    if not fiscal_year:
        return "the latest period"
    if fiscal_period and fiscal_period.startswith("Q"):
        return f"{fiscal_period} {fiscal_year}"
    return f"fiscal {fiscal_year}" if fiscal_period == "FY" else f"FY{fiscal_year}"


def document_pairs(doc: dict, pages: list[tuple[int, str]]) -> list[dict]:
    """The training questions of one document: ``doc`` has doc_id, company, fiscal_year, fiscal_period;
    ``pages`` are (0-based page, text). Deterministic: sorted by pair id, at most MAX_PAIRS of each kind."""
    company = doc.get("company") or doc.get("ticker") or ""
    if not company:
        return []
    period = period_words(doc.get("fiscal_year"), doc.get("fiscal_period"))
    rows: dict[str, list[int]] = {}
    drivers: dict[str, list[int]] = {}
    sections: dict[tuple[str, str], list[int]] = {}
    for page, text in pages:
        for label in driver_labels(text):
            drivers.setdefault(label, []).append(page)
        if is_figures(text):
            for label in dict.fromkeys(row_labels(text)):
                rows.setdefault(label.lower(), []).append(page)
        for key in headings(text):
            sections.setdefault(key, []).append(page)
    out = []
    for label, where in rows.items():
        if len(where) <= 2:
            out.append(_pair(doc["doc_id"], where[0], "row", label, company, period, ROW_TEMPLATES))
    for label, where in drivers.items():
        if len(where) <= 2:
            out.append(_pair(doc["doc_id"], where[0], "driver", label, company, period, DRIVER_TEMPLATES))
    for (source, name), where in sections.items():
        label = {"balance sheet": "balance sheets", "income statement": "income statements",
                 "cash flow statement": "cash flow statements"}.get(name, name) if source == "statement" else \
            f"{name} note"
        out.append(_pair(doc["doc_id"], where[0], source, label, company, period, SECTION_TEMPLATES))
    kept = []
    for source in ("row", "statement", "note", "driver"):
        kept += sorted((p for p in out if p["source"] == source), key=lambda p: p["pair_id"])[:MAX_PAIRS]
    return kept


def _pair(doc_id: str, page: int, source: str, label: str, company: str, period: str,
          templates: tuple[str, ...]) -> dict:
    digest = _digest(doc_id, page, source, label)
    template = templates[int(digest[:8], 16) % len(templates)]
    return {"pair_id": f"{doc_id}:{page}:{source}:{digest[:12]}", "doc_id": doc_id, "page": page,
            "source": source, "label": label,
            "question": template.format(company=company, label=label, period=period)}
