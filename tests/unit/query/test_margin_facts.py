"""A margin's facts: the measure's consolidated figure is found beside revenue however many members' rows the
revenue concept has (GD tags revenue by segment, product and customer: hundreds of rows, which crowded
operating earnings out of one search). The embedded engine over literal facts."""

from __future__ import annotations

import query.facts as facts_module
from query.facts import question_facts
from tests.index_records import ACME_10K as DOC
from tests.index_records import acme_facts_backend

REVENUE = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
MEMBERS = [f"us-gaap:StatementBusinessSegmentsAxis=acme:Product{n}Member" for n in "ABCDEF"]


def test_a_concepts_members_rows_never_crowd_out_anothers_consolidated_figure(tmp_path, monkeypatch):
    monkeypatch.setattr(facts_module, "FACTS_FOUND", 4)  # fewer than the members' rows
    rows = [(REVENUE, "Revenue earned from operating margin products", [m], f"{n},000", 12)
            for n, m in enumerate(MEMBERS, start=1)]
    rows += [(REVENUE, "Revenue", [], "42,272", 2), ("us-gaap:OperatingIncomeLoss", "Operating earnings", [], "4,245", 2)]
    backend, targets = acme_facts_backend(tmp_path, rows)
    found = question_facts(backend, targets, "What operating margin did Acme earn in 2024?", ["Acme"], DOC, "Acme Corp")
    assert {f["display"] for f in found} == {"42,272", "4,245"}
