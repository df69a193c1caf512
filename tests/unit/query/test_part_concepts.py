"""A part's concept is chosen by the rows of the part that say what is measured, not by a row its name alone
matched ("GM Financial net sales and revenue" repeats the part's name, so the search ranks it first for any
question naming the part). The embedded engine over literal facts."""

from __future__ import annotations

from query.facts import label_initials, question_facts
from tests.index_records import ACME_10K as DOC
from tests.index_records import acme_facts_backend

FINANCE = "acme:BusinessGroupAxis=acme:AcmeFinanceMember"
PRETAX = "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest"


def _found(tmp_path, rows: list[tuple], question: str) -> set[tuple[str, int]]:
    backend, targets = acme_facts_backend(tmp_path, rows)
    return {(f["display"], f["page"]) for f in question_facts(backend, targets, question, ["Acme"], DOC, "Acme Corp")}


def test_a_part_measure_named_by_no_reviewed_term_is_a_row_saying_it(tmp_path):
    rows = [("us-gaap:RevenueNotFromContractWithCustomer", "Acme Finance net sales and revenue", [FINANCE],
             "14,225", 58),
            ("us-gaap:RevenueNotFromContractWithCustomer", "Acme Finance", [FINANCE], "14,184", 58),
            ("us-gaap:DividendsCommonStock", "Cash dividends paid to the parent company from its retained earnings",
             [FINANCE], "1,800", 74),
            *[("us-gaap:DividendsCommonStockCash", f"Cash dividends paid on common stock, plan {n}", [], f"{n},111", 61)
              for n in range(30)]]
    assert _found(tmp_path, rows, "How much did Acme Finance pay Acme in dividends in 2024?") == {("1,800", 74)}


def test_a_part_reporting_its_own_measure_is_found_by_the_measures_words(tmp_path):
    """The reviewed term names the consolidated concept, which the part has no row of: the part's own measure
    (a row saying "earnings" and "taxes"), not its revenue, whose label repeats the part's name."""
    rows = [(PRETAX, "Income before income taxes", [], "10,403", 56),
            ("us-gaap:Revenues", "Acme Finance", [FINANCE], "14,225", 100),
            ("acme:EarningsBeforeInterestAndTaxesAdjusted", "Earnings before interest and taxes-adjusted", [FINANCE],
             "2,985", 100),
            *[("us-gaap:IncomeTaxExpenseBenefit", f"Taxes on earnings, plan {n}", [], f"{n},222", 57) for n in range(30)]]
    found = _found(tmp_path, rows, "What pre-tax earnings did Acme Finance report for 2024?")
    assert found == {("2,985", 100)}


def test_a_measure_said_by_its_initials_is_the_row_they_spell(tmp_path):
    """"EBIT" names no word of the part's row, whose label opens with the words it abbreviates; without it the
    consolidated operating income (the reviewed term's concept) would stand for the part's."""
    assert label_initials("Earnings (loss) before interest and taxes-adjusted") == "ebita"
    assert label_initials("Earnings per share") == "eps"
    rows = [("us-gaap:OperatingIncomeLoss", "Operating income", [], "9,298", 56),
            ("acme:ReconcilingAdjustments", "Adjustments", [FINANCE], "(12)", 100),
            ("acme:EarningsBeforeInterestAndTaxesAdjusted", "Earnings (loss) before interest and taxes-adjusted",
             [FINANCE], "2,985", 100)]
    assert _found(tmp_path, rows, "What was Acme Finance's EBIT-adjusted in 2024?") == {("2,985", 100)}


def test_a_word_saying_a_part_is_one_measures_nothing(tmp_path):
    """"segment" is in the question and in every row label of the segment ("Acme Finance Segment"): it says
    which part, not what is measured, so the part's assets do not answer its pre-tax profit."""
    segment = "us-gaap:StatementBusinessSegmentsAxis=acme:AcmeFinanceSegmentMember"
    rows = [("us-gaap:Assets", "Acme Finance Segment", [segment], "35,445", 32),
            ("us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "Acme Finance Segment", [segment], "312", 32),
            (PRETAX, "Acme Finance Segment", [segment], "240", 31)]
    question = "What pre-tax profit did the Acme Finance segment report in the second quarter of 2024?"
    assert _found(tmp_path, rows, question) == {("240", 31)}


def test_a_parts_profit_is_its_income_concept_not_its_revenue(tmp_path):
    """Profit, income and earnings name one measure: a segment's "profit" tagged with the pre-tax income concept
    (its row labelled by the segment's name alone, under "Profit from reportable segments") is the part's
    measure; its revenue rows, whose labels the search ranks first, are not."""
    segment = "us-gaap:StatementBusinessSegmentsAxis=acme:ConstructionMember"
    rows = [*[("us-gaap:Revenues", "Construction segment", [segment], f"{n},333", 29) for n in range(8)],
            (PRETAX, "Construction", [segment], "1,803", 31)]
    question = "What was Acme's Construction segment profit in the second quarter of 2024?"
    assert _found(tmp_path, rows, question) == {("1,803", 31)}


def test_a_parts_own_total_tied_with_hundreds_of_its_product_rows_is_read(tmp_path):
    """A segment's revenue printed as its products' rows and once as its own total, every row saying only
    "Worldwide": the search's hundreds of tied rows are read whole, so the total, indexed last, is found
    (Johnson & Johnson's Innovative Medicine: the 358th of 480 tied rows, cut at 300 before)."""
    segment = "us-gaap:StatementBusinessSegmentsAxis=acme:DevicesMember"
    revenue = "us-gaap:Revenues"
    rows = [*[(revenue, "Worldwide", [f"srt:ProductOrServiceAxis=acme:Product{n}Member", segment], f"{n},333", 86)
              for n in range(320)],
            (revenue, "Worldwide", [segment], "54,759", 88)]
    assert ("54,759", 88) in _found(tmp_path, rows, "What were Acme's Devices sales in 2024?")
