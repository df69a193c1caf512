"""Whether the evidence holds the period the question asks for (HiREC's missing-evidence check, for time).

A question naming a fiscal year or quarter ("FY2023", "Q4 2022", "as of year end 2021") is answered from the
documents that report it (``domain.periods.reports_period``: the year's annual report or a later one's
comparative columns, the quarter's 10-Q or release; a fact pin is no exception: a 10-Q's facts of the year
are of six or nine months). When no evidence of a company is from such a document, the answer says so in one line, naming the closest period it holds
instead, and whether the index has that period at all: "no FY2023 figures of IBM in the index; closest:
H1 2023 (IBM_2023Q2_10Q)". Pure: plain plan values, evidence and the catalog's documents.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.periods import asked_label, period_distance, period_label, reports_period, statements_absent
from domain.rules import CURRENT
from query.api import Evidence
from query.catalog import DocInfo


def period_notes(year: int | None, quarters: list[int], evidence: list[Evidence], docs: dict[str, DocInfo],
                 companies: Iterable[str] = ()) -> list[str]:
    """One note per company (of ``companies``, entity keys, when the question names any; else each company
    the evidence is from) whose evidence does not report the asked period."""
    if year is None or not evidence:
        return []
    quarter = quarters[0] if len(quarters) == 1 else None  # several quarters asked: the year decides
    by_company: dict[str, list[Evidence]] = {}
    for e in evidence:
        doc = docs.get(e.doc_id)
        by_company.setdefault((doc.entity if doc else None) or e.ticker or e.doc_id, []).append(e)
    named = list(companies) or list(by_company)
    notes = []
    for key in named:
        found = by_company.get(key, [])
        if not found or any(_reports(year, quarter, e, docs) for e in found):
            continue
        notes.append(_note(year, quarter, found, docs, key))
    return notes


def taken_notes(year: int | None, quarters: list[int], newest: list[DocInfo], previous: dict[str, DocInfo | None],
                evidence: list[Evidence]) -> list[str]:
    """A question naming no period: one note per company whose evidence it is, naming the newest filing the
    answer takes and the one before it (``previous``: doc_id -> that filing, kept among the candidates)."""
    if year is not None or quarters or not evidence:
        return []
    shown = {e.doc_id for e in evidence}
    return [_taken_note(doc, previous.get(doc.doc_id)) for doc in newest if doc.doc_id in shown]


def _taken_note(doc: DocInfo, before: DocInfo | None) -> str:
    name = doc.ticker or doc.company or doc.entity
    if doc.form == CURRENT:  # an 8-K filed after the newest report, on what it does not speak of (query.event_filings)
        tail = f"; its newest report, {before.doc_id}, is kept among the candidates" if before else ""
        return f"no period named: {name}'s newest filing on it answers, {doc.doc_id} (8-K of {doc.period_end}){tail}"
    label = period_label(doc.form, doc.fiscal_year, doc.fiscal_period) or doc.form
    tail = (f"the one before, {before.doc_id}, is kept among the candidates" if before
            else f"the index holds no earlier {doc.form} of this company")
    return f"no period named: {name}'s newest report answers, {doc.doc_id} ({label}, period ended {doc.period_end}); {tail}"


def _reports(year: int, quarter: int | None, e: Evidence, docs: dict[str, DocInfo]) -> bool:
    doc = docs.get(e.doc_id)
    return doc is not None and reports_period(year, quarter, doc.form, doc.fiscal_year, doc.fiscal_period,
                                              doc.absent_items)


def _note(year: int, quarter: int | None, found: list[Evidence], docs: dict[str, DocInfo], company: str) -> str:
    asked = asked_label(year, quarter)
    name = found[0].ticker or found[0].company or "the company"
    with_figures = [e for e in found if e.doc_id not in docs or not statements_absent(docs[e.doc_id].absent_items)] \
        or found
    closest = min(with_figures, key=lambda e: (period_distance(year, quarter, e.fiscal_year, e.fiscal_period),
                                               -(e.fiscal_year or 0)))
    label = period_label(closest.form, closest.fiscal_year, closest.fiscal_period) or "no fiscal period"
    held = sorted(d.doc_id for d in docs.values() if d.entity == company and reports_period(
        year, quarter, d.form, d.fiscal_year, d.fiscal_period, d.absent_items))
    where = f"among the evidence (the index holds {', '.join(held[:3])})" if held else "in the index"
    return f"no {asked} figures of {name} {where}; closest: {label} ({closest.doc_id})"
