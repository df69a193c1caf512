"""A part named with a measure its rows are not tagged with ("GM Financial's earnings before income taxes":
GM tags its finance arm's EBT-adjusted with a concept of its own) takes the part's own measure, not the
consolidated figure of the measure named: the embedded engine over literal facts."""

from __future__ import annotations

import datetime as dt

from kernel.search.embedded import EmbeddedBackend
from query.facts import question_facts
from schemas.base import to_table
from schemas.facts import FactIndexRecord
from schemas.index import INDEXES

DOC = "GM_2023_10K"
GMF = "us-gaap:StatementBusinessSegmentsAxis=gm:GMFinancialSegmentMember"
GMNA = "us-gaap:StatementBusinessSegmentsAxis=gm:GmnaMember"
ROWS = [  # concept, label, dimensions, display, page
    ("us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
     "income loss before income taxes", [], "10,403", 58),
    ("gm:Earningslossbeforeautomotiveinterestandtaxesadjusted",
     "earnings loss before automotive interest and taxes adjusted", [GMF], "2,985", 100),
    ("gm:Earningslossbeforeautomotiveinterestandtaxesadjusted",
     "earnings loss before automotive interest and taxes adjusted", [GMNA], "12,306", 100),
    ("us-gaap:Revenues", "revenues", [GMF], "14,225", 100),
    ("us-gaap:OperatingIncomeLoss", "operating income loss", [GMNA], "11,000", 100),
]


def _facts() -> list[dict]:
    return [FactIndexRecord(
        fact_id=f"{DOC}#{seq}", doc_id=DOC, ticker="GM", company="General Motors Co", form="10-K",
        filing_date=dt.date(2024, 1, 30), concept=concept, label=label, kind="numeric", value=1.0,
        display=display, unit="USD", decimals="-6", scale=6, period_type="duration",
        period_start=dt.date(2023, 1, 1), period_end=dt.date(2023, 12, 31), fiscal_year=2023, fiscal_period="FY",
        dimensions=dims, dimensional=bool(dims), page=page, end_page=page, item="8",
        row_label=label.title(), column_header="2023").model_dump()
        for seq, (concept, label, dims, display, page) in enumerate(ROWS)]


def _facts_target(tmp_path) -> tuple[EmbeddedBackend, dict[str, str]]:
    backend = EmbeddedBackend(tmp_path / "search", prefix="t")
    spec = INDEXES["facts"]
    version = backend.create_version(spec, None, {"model": "test-model"})
    backend.load(version, spec, to_table(spec.model, _facts()).to_batches())
    return backend, {"facts": version}


def test_a_parts_own_measure_when_the_measure_named_has_no_row_of_it(tmp_path):
    backend, targets = _facts_target(tmp_path)
    names = ["General Motors", "GM"]
    found = question_facts(backend, targets, "How much did GM Financial earn before income taxes in 2023?", names,
                           DOC, "General Motors Co")
    assert {(f["display"], f["page"]) for f in found} == {("2,985", 100)}
    # no part named: the consolidated figure, as before
    found = question_facts(backend, targets, "How much did GM earn before income taxes in 2023?", names, DOC,
                           "General Motors Co")
    assert [(f["display"], f["page"]) for f in found] == [("10,403", 58)]
