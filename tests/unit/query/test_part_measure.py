"""A part named with a measure its rows are not tagged with ("GM Financial's earnings before income taxes":
GM tags its finance arm's EBT-adjusted with a concept of its own) takes the part's own measure, not the
consolidated figure of the measure named: the embedded engine over literal facts."""

from __future__ import annotations

from query.facts import question_facts
from tests.index_records import fact, facts_backend

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
    return [fact(DOC, seq, concept, label.title(), dims, display, page, ticker="GM", company="General Motors Co",
                 year=2023, label=label) for seq, (concept, label, dims, display, page) in enumerate(ROWS)]


def test_a_parts_own_measure_when_the_measure_named_has_no_row_of_it(tmp_path):
    backend, targets = facts_backend(tmp_path, _facts())
    names = ["General Motors", "GM"]
    found = question_facts(backend, targets, "How much did GM Financial earn before income taxes in 2023?", names,
                           DOC, "General Motors Co")
    assert {(f["display"], f["page"]) for f in found} == {("2,985", 100)}
    # no part named: the consolidated figure, as before
    found = question_facts(backend, targets, "How much did GM earn before income taxes in 2023?", names, DOC,
                           "General Motors Co")
    assert [(f["display"], f["page"]) for f in found] == [("10,403", 58)]
