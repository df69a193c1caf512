"""A part whose member does not spell the name people say is named by the label of the row its figure is printed
on: a taxonomy's own member under the filer's name (``us-gaap:AllOtherSegmentsMember`` printed as "Other Bets"),
a member longer than the name said (``CollinsAerospaceSystemsMember`` printed as "Collins Aerospace"). The
embedded engine over literal facts."""

from __future__ import annotations

from query.facts import named_members, question_facts, synonym_terms, synonyms
from tests.index_records import ACME_10K as DOC
from tests.index_records import acme_fact, acme_facts_backend

SEGMENTS = "us-gaap:StatementBusinessSegmentsAxis="
OTHER = SEGMENTS + "us-gaap:AllOtherSegmentsMember"
CLOUD = SEGMENTS + "acme:AcmeCloudMember"
SYSTEMS = SEGMENTS + "acme:NorthwindAvionicsSystemsMember"
PHARMA = SEGMENTS + "acme:EstablishedPharmaceuticalProductsMember"
INCOME, SALES = "us-gaap:OperatingIncomeLoss", "us-gaap:Revenues"


def _found(backend, targets, question: str) -> set[tuple[str, int]]:
    return {(f["display"], f["page"]) for f in question_facts(backend, targets, question, ["Acme"], DOC, "Acme Corp")}


def test_the_loss_a_line_reports_is_its_concept_and_a_net_operating_loss_is_no_operating_loss():
    assert synonym_terms("What was the operating loss of Acme's Other Bets?") == ["operating loss"]
    assert synonyms()["loss from operations"] == (INCOME,)
    assert synonym_terms("What net operating loss carryforwards did Acme have?") == ["net operating loss"]
    assert INCOME not in synonyms()["net operating loss"]


def test_a_taxonomy_member_is_named_by_its_rows_label(tmp_path):
    backend, targets = acme_facts_backend(tmp_path, [
        (INCOME, "Income from operations", [], "112,390", 53),
        (INCOME, "Acme Cloud", [CLOUD], "6,112", 88),
        (INCOME, "Other Bets", [OTHER], "(4,444)", 88),
        (INCOME, "Total income from operations", [], "112,390", 88),
    ])
    assert _found(backend, targets, "What was the operating loss of Acme's Other Bets in 2024?") == {("(4,444)", 88)}
    assert _found(backend, targets, "What was Acme's operating income in 2024?") == {("112,390", 53), ("112,390", 88)}


def test_a_label_of_one_word_or_of_the_metrics_words_names_no_part():
    other = acme_fact(0, INCOME, "Other", [OTHER], "(5)", 9)
    total = acme_fact(1, INCOME, "Total operating income", [OTHER], "9", 9)
    assert named_members([other], "what was other operating income") == []
    assert named_members([total], "what was total operating income", frozenset({"oper", "incom"})) == []


def test_a_brand_said_for_a_part_brings_its_rows_up_among_many(tmp_path):
    """"Northwind Avionics" (a segment whose member adds "Systems"): its words are a name's, left out of the
    words the facts are searched with, so without them the rows saying "sales" (three hundred of other parts)
    came first and its own row was never read."""
    fillers = [(SALES, f"Sales to customer group {n}", [SEGMENTS + f"acme:Group{n}Member"], f"{n},000", 110)
               for n in range(320)]
    backend, targets = acme_facts_backend(tmp_path, [(SALES, "Total net sales", [], "68,920", 64), *fillers,
                                           (SALES, "Northwind Avionics", [SYSTEMS], "26,253", 108)])
    found = question_facts(backend, targets, "How did Northwind Avionics' sales change from 2022 to 2024?",
                           ["Northwind Avionics", "Acme"], DOC, "Acme Corp")
    assert {(f["display"], f["page"]) for f in found} == {("26,253", 108)}


def test_a_label_does_not_choose_the_concept_when_the_question_names_no_measure(tmp_path):
    """"How much did Established Pharmaceuticals sell": no reviewed term, so the concept is chosen by the part's
    rows; its label names only the depreciation and assets rows (its sales row says "Products"), which are no
    answer: no facts, as before, rather than the depreciation."""
    backend, targets = acme_facts_backend(tmp_path, [
        (SALES, "Established Pharmaceutical Products", [PHARMA], "5,066", 74),
        ("us-gaap:Depreciation", "Established Pharmaceuticals", [PHARMA], "104", 75),
        ("us-gaap:Assets", "Established Pharmaceuticals", [PHARMA], "3,118", 75),
    ])
    assert _found(backend, targets, "How much did Acme's Established Pharmaceuticals business sell in 2024?") == set()
