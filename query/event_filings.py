"""Rule L's other newest filing: an 8-K a company filed after its newest report, when the question is about it.

A question naming no period is answered from each company's newest report (rule L, ``query.scoring``). That
report cannot speak of what happened after it was filed: 3M's spin-off of Solventum, announced in an 8-K of
March 2024, is in no 10-Q of 2023, and NVIDIA's variable compensation plan for fiscal 2027 is in no report
before March 2026. So when the question asks no figure (a figure is a report's: the statements print it)
and its words match such an 8-K (its cover or an exhibit, one filing) better than the newest report, that
filing is the newest one that answers: it takes rule L's points, and the report, the one before it, stays a
candidate. Pure: plain documents and text matches in, doc_ids out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from domain.rules import CURRENT
from query.catalog import DocInfo
from query.plan import QueryPlan


def asks_event(plan: QueryPlan) -> bool:
    """Whether an 8-K filed after the newest report may answer: no period, no figure, no annual report and no
    form asked."""
    return (plan.target_year is None and not plan.analysis.quarters and not plan.figure and not plan.annual
            and not plan.doc_types)


def events_after(docs: Iterable[DocInfo], newest: Iterable[DocInfo], text: Mapping[str, float],
                 plan: QueryPlan) -> dict[str, list[str]]:
    """For each newest report (``newest``: rule L's, one per company) that an 8-K filed after it answers
    better: its doc_id -> the doc_ids of that filing's documents (the best matched filing's, when several).
    ``text``: doc_id -> the question's text match (documents not matched: 0)."""
    if not asks_event(plan):
        return {}
    docs = list(docs)
    out: dict[str, list[str]] = {}
    for report in newest:
        filings: dict[str, list[DocInfo]] = {}
        for d in docs:
            if d.entity == report.entity and d.form == CURRENT and d.accession and _dated_after(d, report):
                filings.setdefault(d.accession, []).append(d)
        best = max(filings.values(), key=lambda f: (_match(f, text), f[0].accession), default=None)
        if best is not None and _match(best, text) > text.get(report.doc_id, 0.0):
            out[report.doc_id] = sorted(d.doc_id for d in best)
    return out


def _dated_after(d: DocInfo, report: DocInfo) -> bool:
    """The 8-K's event (its period end: the date of its report) falls after the report's period."""
    return bool(d.period_end and report.period_end and str(d.period_end) > str(report.period_end))


def _match(filing: list[DocInfo], text: Mapping[str, float]) -> float:
    return max(text.get(d.doc_id, 0.0) for d in filing)
