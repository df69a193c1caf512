"""A margin asked: the percent the facts found compute (a measure over revenue of one period and one part),
and the page printing it on a row the question's words or the whole's label. Literal facts and chunks."""

from __future__ import annotations

from domain.text import words
from query.margins import (
    RATE_WORDS,
    WHOLE,
    asks_gross,
    is_flow,
    margin_concepts,
    margin_percents,
    rate_tagged,
    says_margin,
    says_tax_rate,
    tax_rate_percents,
)
from query.statements import percent_page

REVENUE = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
SEGMENT = ["us-gaap:StatementBusinessSegmentsAxis=ba:GlobalServicesMember"]


def _fact(concept: str, value: float, period: str = "FY", dimensions: list[str] | None = None) -> dict:
    return {"concept": concept, "value": value, "fiscal_year": 2023, "fiscal_period": period, "unit": "USD",
            "dimensions": dimensions or []}


def test_a_margin_is_the_measure_over_revenue_of_its_own_period_and_part():
    facts = [_fact(REVENUE, 42_272e6), _fact("us-gaap:OperatingIncomeLoss", 4_245e6),
             _fact("us-gaap:Revenues", 4_746e6, "Q2", SEGMENT), _fact("us-gaap:OperatingIncomeLoss", 856e6, "Q2", SEGMENT),
             _fact("us-gaap:OperatingIncomeLoss", -99e6, "H1")]
    percents = margin_percents(facts, {(2023, "FY"), (2023, "Q2"), (2023, "H1")})
    assert {"10.0", "10.04", "18.0", "18.04"} <= percents
    assert "2.0" not in percents  # the segment's profit over the consolidated revenue: no margin anyone prints
    assert len(percents) == 4  # the loss of a period with no revenue found is divided by nothing
    quarter = [_fact("us-gaap:Revenues", 19_751e6, "Q2"), _fact("us-gaap:OperatingIncomeLoss", -99e6, "Q2"),
               _fact("us-gaap:Revenues", 16_681e6, "Q2") | {"fiscal_year": 2022},
               _fact("us-gaap:OperatingIncomeLoss", 780e6, "Q2") | {"fiscal_year": 2022}]
    assert margin_percents(quarter, {(2023, "Q2")}) == {"0.5", "0.50"}  # "(0.5)%": the sign is not compared
    assert "4.7" in margin_percents(quarter, {(2022, "Q2")})  # only the periods asked are divided


def test_a_gross_margin_untagged_is_revenue_less_the_cost_of_sales_over_revenue():
    facts = [_fact("us-gaap:Revenues", 84_039e6), _fact("us-gaap:CostOfGoodsAndServicesSold", 40_848e6)]
    assert {"51.4", "51.39"} <= margin_percents(facts, {(2023, "FY")}, gross=True)
    assert margin_percents(facts, {(2023, "FY")}) == set()  # no gross margin asked: the cost is no margin
    assert "48.6" not in margin_percents(facts, {(2023, "FY")}, gross=True)  # the cost's own share is none
    assert asks_gross("What was Procter & Gamble's gross margin in fiscal 2024?")
    assert not asks_gross("What was RTX's operating margin in 2023?")
    assert {"us-gaap:Revenues", "us-gaap:CostOfRevenue"} <= set(margin_concepts())


def test_a_margin_divides_flows_never_a_balance():
    part = ["us-gaap:StatementBusinessSegmentsAxis=ge:RenewableEnergySegmentMember"]
    facts = [_fact("us-gaap:Revenues", 14_974e6, dimensions=part) | {"period_start": "2023-01-01"},
             _fact("us-gaap:Goodwill", 3_287e6, dimensions=part) | {"period_start": None}]
    assert margin_percents(facts, {(2023, "FY")}) == set()  # a segment's goodwill over its revenue: no margin
    assert is_flow(facts[0]) and not is_flow(facts[1])


def test_a_margin_to_a_whole_percent_is_asked_for_apart():
    facts = [_fact(REVENUE, 74_604e6, "Q2"), _fact("us-gaap:OperatingIncomeLoss", 21_838e6, "Q2")]
    assert margin_percents(facts, {(2023, "Q2")}) == {"29.3", "29.27"}
    assert margin_percents(facts, {(2023, "Q2")}, places=WHOLE) == {"29"}


def test_percent_page_reads_a_share_of_sales_row_by_the_row_above():
    asked = frozenset(words("What was Johnson Controls' gross margin in the third quarter of fiscal 2023?"))
    table = {"text": "(in millions) | 2023 | 2022\nCost of sales | $4,702 | $4,414\nGross profit | 2,431 | 2,200\n"
                     "% of sales | 34.1% | 33.3%", "page_start": 42, "page_end": 42}
    assert percent_page({"34.1"}, asked, table) == 42
    cost = {**table, "text": table["text"].replace("Gross profit", "Operating expenses")}
    assert percent_page({"34.1"}, asked, cost) is None  # the row above names another measure
    spelled = {**table, "text": "Gross margin | $9,625 | $10,413\nas a % of net revenues | 69% | 71%"}
    assert percent_page({"69"}, asked, spelled, signed=True) == 42


def test_a_whole_percent_is_read_only_with_its_sign():
    asked = frozenset(words("What was AbbVie's gross margin in the second quarter of 2023?"))
    counts = {"text": "AbbVie's share of gross costs | 57 | 69 | 112", "page_start": 9, "page_end": 9}
    assert percent_page({"69"}, asked, counts) == 9  # a decimal's rule: a table's cell of no currency
    assert percent_page({"69"}, asked, counts, signed=True) is None  # a whole percent needs its sign


def test_says_margin_reads_the_word_not_a_cue():
    assert says_margin("What was Boeing Global Services' operating margin in Q2 2023?")
    assert says_margin("What profit margins did GE earn?")
    assert not says_margin("What was GE's operating profit in 2023?")
    assert says_margin("What gross profit rate did Walmart report?")  # a retailer's name for its gross margin
    assert not says_margin("What was Visa's effective tax rate?")


def test_percent_page_finds_the_margin_printed_under_the_questions_words_or_the_whole():
    asked = frozenset(words("What was General Dynamics' operating margin in 2023?"))
    summary = {"text": "Operating earnings | 4,245 | 4,211\nOperating margin | 10.0% | 10.7%", "page_start": 35,
               "page_end": 35}
    assert percent_page({"10.0"}, asked, summary) == 35
    by_segment = {"text": "2023 | 2022\nConsolidated | 24.7% | 25.4%\nEurope | 56.8% | 57.4%", "page_start": 49,
                  "page_end": 49}
    assert percent_page({"24.7"}, asked, by_segment) == 49  # a table of margins: "Consolidated" alone
    assert percent_page({"56.8"}, asked, by_segment) is None  # a region's row: words the question does not say


def test_percent_page_reads_a_percent_column_that_prints_no_sign():
    asked = frozenset(words("What was Home Depot's operating margin in the second quarter of fiscal 2023?"))
    column = {"text": "% of Net Sales\nOperating income | 6,589 | 15.4 | 7,210 | 16.5", "page_start": 17,
              "page_end": 17}
    assert percent_page({"15.4"}, asked, column) == 17
    amount = {"text": "Operating income | $ 15.4 | $ 16.5", "page_start": 3, "page_end": 3}
    assert percent_page({"15.4"}, asked, amount) is None  # a currency's cell is an amount
    prose = {"text": "Operating income was 15.4 billion dollars.", "page_start": 4, "page_end": 4}
    assert percent_page({"15.4"}, asked, prose) is None  # no sign and no table: not read as a share


def test_percent_page_ignores_other_rows_and_other_values():
    asked = frozenset(words("What was General Dynamics' operating margin in 2023?"))
    tax = {"text": "Effective tax rate | 10.0% | 21.0%", "page_start": 40, "page_end": 40}
    assert percent_page({"10.0"}, asked, tax) is None  # the value, under words the question does not say
    other = {"text": "Operating margin | 10.7% | 10.0%", "page_start": 35, "page_end": 35}
    assert percent_page({"13.7"}, asked, other) is None


def test_the_margin_printed_goes_before_its_documents_fact_pages():
    """"What was General Dynamics' operating margin in 2023?": the facts' pages print operating earnings and
    revenue, MD&A's page the margin itself, so it comes before them; another document's pins keep their
    place, and each pin scores below the one before."""
    from kernel.search import Hit
    from query.fact_pins import place_echo

    pins = [Hit("other:3", 1.05, {"_page": 3}), Hit("gd:54", 1.04, {"_page": 54}), Hit("gd:80", 1.03, {"_page": 80})]
    place_echo(pins, Hit("gd:35", 0.0, {"_page": 35}), 1, 1.0)
    assert [h.source["_page"] for h in pins] == [3, 35, 54, 80]
    assert [round(h.score, 2) for h in pins] == [1.05, 1.04, 1.03, 1.02]


TAX = "us-gaap:IncomeTaxExpenseBenefit"
PRETAX = "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest"
RATE = "us-gaap:EffectiveIncomeTaxRateContinuingOperations"


def test_a_tax_rate_is_the_tax_over_pretax_income_or_the_rate_tagged():
    facts = [_fact(TAX, 4_173e6), _fact(PRETAX, 23_916e6), _fact(TAX, 3_764e6) | {"fiscal_year": 2022},
             _fact(PRETAX, 21_037e6) | {"fiscal_year": 2022}]
    assert tax_rate_percents(facts, {(2023, "FY")}) == {"17", "17.4"}  # Visa's "17 %"; only the year asked
    benefit = [_fact(TAX, -122e6), _fact(PRETAX, 1_184e6)]
    assert tax_rate_percents(benefit, {(2023, "FY")}) == {"10", "10.3"}  # AMD's "(10%)": unsigned
    tagged = [{**_fact(RATE, 0.119, "Q2"), "unit": "pure"}, {**_fact(RATE, 0.21, "Q2"), "unit": "pure"}]
    assert tax_rate_percents(tagged, {(2023, "Q2")}) == {"11.9", "21", "21.0"}  # as tagged, to 0.1
    assert rate_tagged(tagged) and not rate_tagged(benefit)


def test_says_tax_rate_reads_the_two_words_together():
    assert says_tax_rate("What was Visa's effective income tax rate in fiscal 2024?")
    assert says_tax_rate("What effective tax rates did Merck and Pfizer report?")
    assert not says_tax_rate("What was the rate of growth of Visa's income taxes?")


def test_a_tax_rate_is_found_on_a_row_or_in_a_sentence_that_names_it():
    sentence = {"text": "an income tax benefit of $122 million in 2022, representing effective tax rates of (10%) "
                        "and 14%, respectively.", "page_start": 49, "page_end": 49}
    assert percent_page({"10"}, RATE_WORDS, sentence) == 49
    other = {"text": "Revenue grew 10% in 2022 on higher data center sales.", "page_start": 30, "page_end": 30}
    assert percent_page({"10"}, RATE_WORDS, other) is None


def test_a_percent_spelled_out_is_a_percent():
    sentence = {"text": "The effective tax rate for the second quarter of 2023 was 24.2 percent on a pre-tax loss.",
                "page_start": 17, "page_end": 17}
    assert percent_page({"24.2"}, RATE_WORDS, sentence) == 17
    broken = {**sentence, "text": sentence["text"].replace("24.2 percent", "24.2\npercent")}
    assert percent_page({"24.2"}, RATE_WORDS, broken) == 17  # the sign on the next line
    amount = {"text": "The effective tax rate reflects a $24.2 million benefit.", "page_start": 17, "page_end": 17}
    assert percent_page({"24.2"}, RATE_WORDS, amount) is None
