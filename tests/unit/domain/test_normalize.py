"""The one normalizer of questions and cues: word variants meet, periods are read however written."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.periods import (
    FORECAST_TERMS,
    forecast_sentences,
    forecast_year,
    named_day,
    names_period,
    opens_with_code,
    periods,
    printed_periods,
    vantage_year,
)
from domain.text import has_phrase, phrase_text, words
from query.concepts import concept_map


@pytest.mark.parametrize("a, b", [
    ("capital intensity", "Capital-intensive"),  # case, hyphen, stem
    ("capital intensity", "capital intensive"),
    ("free cash flow", "free cashflow"),  # a closed compound opened
    ("free cash flow", "Free Cash-Flow"),
    ("operates in", "operate in"),  # verb forms
    ("total liabilities", "total liability"),  # plurals
    ("Johnson & Johnson", "Johnson and Johnson"),  # & is and
    ("shareholders' equity", "shareholder equity"),  # possessive
    ("Boeing's revenue", "Boeing revenues"),
    ("non-GAAP", "Non GAAP"),
])
def test_spellings_of_one_phrase_meet(a, b):
    assert words(a) == words(b)


def test_a_cue_matches_whole_words_in_a_row_and_keeps_little_words():
    text = phrase_text(words("Which regions does the company operate in?"))
    assert has_phrase(text, words("operates in"))
    assert not has_phrase(phrase_text(words("operating income rose")), words("operates in"))  # "in" kept
    assert not has_phrase(phrase_text(words("a debtor's claim")), words("debt"))  # whole words only


@pytest.mark.parametrize("text, year, quarter", [
    ("revenue in FY2023Q1", 2023, 1),
    ("revenue in Q1 FY2023", 2023, 1),
    ("revenue in 1Q23", 2023, 1),
    ("Oracle revenue for 4Q FY2022?", 2022, 4),
    ("revenue in Q1'23", 2023, 1),
    ("revenue in Q12023", 2023, 1),
    ("Q2 of FY2024", 2024, 2),
    ("the first quarter of fiscal 2023", 2023, 1),
    ("its second-quarter 2023 report", 2023, 2),  # hyphenated, as an adjective
    ("the first-half of 2023", 2023, 2),
    ("H1 FY2023 sales", 2023, 2),  # a half year: the second quarter's report covers six months
    ("1H23 sales", 2023, 2),
    ("the first half of 2023", 2023, 2),
    ("the second half of fiscal 2022", 2022, 4),
    ("the first six months of fiscal 2023", 2023, 2),  # year to date: the second quarter's report
    ("in the first nine months of 2023", 2023, 3),
    ("the first three months of FY2024", 2024, 1),  # the first quarter
    ("in the first 36 weeks of 2023", 2023, 3),  # counted in weeks: nine months to date, the third quarter's report
    ("the 24 weeks of fiscal 2023", 2023, 2),
    ("PepsiCo's first 12 weeks of 2023", 2023, 1),
    ("FY22", 2022, None),
    ("fiscal year 2019", 2019, None),
])
def test_period_spellings(text, year, quarter):
    found = periods(text)
    assert [(p.year, p.quarter) for p in found] == [(year, quarter)]


def test_year_to_date_spans_and_dates():
    found = periods("the nine months ended September 30, 2023")
    assert [(p.year, p.quarter) for p in found] == [(None, 3), (2023, None)]  # the third quarter's report


def test_spans_counted_in_weeks():
    """A span of weeks is the quarters it nearly is: 36 weeks to date the third quarter's report; a quarter's
    12 weeks say which only with "first" (else the day it ended does, ``period_ended``); other lengths and a
    year's 52 weeks name no quarter, and leave the year for the year's pattern."""
    assert [(p.year, p.quarter, p.half) for p in periods("the 36 weeks ended September 9, 2023")] == \
        [(None, 3, True), (2023, None, False)]
    assert [(p.year, p.quarter) for p in periods("the 12 weeks ended September 9, 2023")] == [(2023, None)]
    assert [(p.year, p.quarter) for p in periods("the 12 weeks of 2023")] == [(2023, None)]
    assert [(p.year, p.quarter) for p in periods("52 weeks ended August 29, 2021")] == [(2021, None)]
    assert periods("the 20 weeks ended June 1") == [] and periods("its high over the last 52 weeks") == []
    assert [p.quarter for p in periods("six months ended June 30")] == [2]
    assert [p.year for p in periods("FY2017 - FY2019 average")] == [2017, 2019]
    assert periods("3 year average of 10 stores") == []
    assert [(p.year, p.quarter) for p in periods("its fiscal 2024 first-quarter report")] == [(2024, None), (None, 1)]


def test_the_day_a_question_names():
    assert named_day("How much cash did Adobe hold at March 3, 2023?") == dt.date(2023, 3, 3)
    assert named_day("as of Sept. 30 2021 and June 30, 2022") == dt.date(2021, 9, 30)  # the first
    assert named_day("June 31, 2023, then July 1, 2023") == dt.date(2023, 7, 1)  # no such day: the next
    assert named_day("revenue in fiscal 2023") is None
    # a month with its year and no day: its last day, the end of the period a report closes with it
    assert named_day("daily users in June 2023") == dt.date(2023, 6, 30)
    assert named_day("the quarter ended Feb. 2024") == dt.date(2024, 2, 29) == named_day("February of 2024")
    assert named_day("Mayer 2023 and Marches 2022") is None  # a word that opens like a month is none
    # the middle of a year: June's end
    assert named_day("charges expected as of mid-2023") == dt.date(2023, 6, 30) == named_day("at midyear 2023") \
        == named_day("in the middle of 2023") == named_day("as of mid-year 2023") == named_day("mid 2023")
    assert named_day("midterm 2023 results") is None and named_day("the middle east in 2023") is None


def test_the_year_a_question_stands_in():
    assert vantage_year("As of FY 2021, how much will Acme pay in 2024?") == 2021
    assert vantage_year("as of the end of fiscal year 2022, what matures in 2025") == 2022
    assert vantage_year("as of FY22, what") == 2022
    assert vantage_year("as of June 30, 2023") is None  # a day: rule D's
    assert vantage_year("as of Q2 2023, what") is None  # a quarter's report: not a year's
    assert vantage_year("as of mid-2023, expected from the 2022 program") is None
    assert vantage_year("revenue in 2023 and 2024") is None
    # a report named by its period stands there, a quarter's too: the later year is its forecast's
    assert vantage_year("What guidance for 2023 did Acme give in its fourth-quarter 2022 earnings release?") == 2022
    assert vantage_year("Per its 2023 10-K, what does Acme expect to spend in 2025?") == 2023
    assert vantage_year("In Acme's Q2 2023 release, what is the outlook for 2024?") == 2023
    assert vantage_year("In Acme's Q4 2022 earnings press release, what EPS did it guide to for 2023?") == 2022
    assert vantage_year("Acme's 2023 revenue, and its 2024 10-K's outlook") == 2024
    assert vantage_year("revenue in 2023 versus 2022 reported") is None


def test_the_year_a_question_asks_a_forecast_of():
    """A verb of expectation with its auxiliary or its "to": the latest year named; an assumption's adjective,
    a plan or project as nouns, a quarter, or no verb of expectation: none."""
    assert forecast_year("How much does Acme expect to contribute to its pension plans in 2024?") == 2024
    assert forecast_year("What capital expenditures did Acme anticipate for 2024?") == 2024
    assert forecast_year("What full-year 2022 net sales did Acme expect?") == 2022
    assert forecast_year("Does Acme expect its capital expenditures to increase in fiscal 2026?") == 2026
    assert forecast_year("What was Acme's outlook for 2024, compared with 2023's results?") == 2024
    assert forecast_year("How many aircraft does Acme plan to produce in 2023?") == 2023
    assert forecast_year("How much capital expenditure does Acme Water plan for 2022?", None, ["Acme Water"]) == 2022
    assert forecast_year("What pension income did Acme project for 2021?", None, ["Acme"]) == 2021
    assert forecast_year("What capital expenditures does Acme-Widget plan for 2024?", None, ["Acme Widget"]) == 2024
    assert forecast_year("What capital expenditures does Acme’s plan for 2024?", None, ["Acme’s"]) == 2024  # curly
    assert forecast_year("What does Acme's plan for 2024 include?", None, ["Acme"]) is None  # a noun, possessed
    assert forecast_year("How much did Acme contribute to its pension plan in 2023?", None, ["Acme"]) is None
    assert forecast_year("What did the PSC decide on Acme's rate plan in 2019?", None, ["Acme"]) is None
    assert forecast_year("What were Acme's capital expenditures in 2024?") is None
    assert forecast_year("What was the expected return on plan assets in 2022?") is None
    assert forecast_year("What was the projected benefit obligation at the end of 2022?") is None
    assert forecast_year("What did the pension plan hold in 2023?") is None
    assert forecast_year("What revenue did Acme expect for Q3 2024?") is None  # a quarter's: no year's report
    assert forecast_year("What are Acme's critical accounting estimates for fiscal 2025?") is None  # a noun
    assert forecast_year("What charges did Acme expect from its 2022 program, as of mid-2023") is None  # a stand


def test_the_sentences_that_state_an_expectation_of_a_year():
    text = ("Capital expenditures totaled $1.5 billion in 2023. We expect capital expenditures to grow in 2024 "
            "compared with 2023.\nThe 2024 Incentive Plan was approved.\nWe anticipate a rate of 24% for 2025.")
    assert forecast_sentences(text, 2024) == ["We expect capital expenditures to grow in 2024 compared with 2023."]
    dated = "Estimated Depreciable Lives, In Years February 2, 2024 February 3, 2023\nWe expect to spend $2 billion in 2024."
    assert forecast_sentences(dated, 2024) == ["We expect to spend $2 billion in 2024."]
    assert forecast_sentences(text, 2025) == ["We anticipate a rate of 24% for 2025."]
    assert forecast_sentences(text, 2022) == []


def test_the_words_searched_for_a_forecast_are_words_of_expectation():
    """The terms the forecast pins search with find the sentences the rule reads: each is a word of expectation."""
    for term in FORECAST_TERMS.split():
        assert forecast_sentences(f"Capital spending is {term} in 2024.", 2024), term


def test_a_period_named_in_figures_or_in_words():
    assert names_period("Apple net income 2023") and names_period("Visa net revenue, last three fiscal years?")
    assert names_period("Meta revenue in the quarter") and names_period("AMD FY24 revenue")
    assert not names_period("Target margins of 5% are common in retail.")
    assert not names_period("Booking revenue early is a risk.") and not names_period("")


def test_a_period_written_as_a_code_opens_the_text():
    """What an analyst types right after a ticker: a code, not a bare year or a word."""
    for text in (" FY24 net revenue", "2Q23 churn", " Q2'23 buybacks", "Q1 FY24 services", "1H23", "FY2023 capex"):
        assert opens_with_code(text), text
    for text in (" 2023 filings", " companies in FY23", "", " fiscal", " revenue Q2 2023"):
        assert not opens_with_code(text), text


def test_periods_are_printed_as_filings_print_them():
    assert printed_periods("FY2023Q1 and FY22 revenue") == "Q1 2023 and 2022 revenue"
    assert printed_periods("H1 FY2023") == "six months 2023"
    assert printed_periods("the third quarter of fiscal 2022") == "the third quarter of fiscal 2022"  # as written


def test_concept_cues_cover_the_variants():
    names = lambda q: [c.name for c in concept_map().matching(q)]  # noqa: E731
    assert "capital intensity" in names("Is Acme a capital-intensive business?")
    assert "capital intensity" in names("How capital intensive is Acme?")
    assert "cash flows" in names("What was the free cashflow in 2022?")
    assert "geography and segments" in names("Where does Acme operate in?")
    assert "balance sheet items" in names("What were the total liability and stockholders' equity?")


def test_analyst_judgements_reach_the_facts_that_hold_their_inputs():
    from query.facts import synonym_concepts

    concepts = lambda q: {m.concept for m in synonym_concepts(q)}  # noqa: E731
    assert {"us-gaap:PropertyPlantAndEquipmentNet", "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
            "us-gaap:Assets"} <= concepts("Is Acme a capital-intensive business?")
    assert "us-gaap:NetCashProvidedByUsedInOperatingActivities" in concepts("Acme's free cashflow in FY2023")
    assert concepts("inventories at year end") == concepts("inventory at year end") == {"us-gaap:InventoryNet"}
    # net sales tagged with the taxes a seller collects in (Kraft Heinz's, Smucker's) are revenue too
    assert "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax" in concepts("Acme's net sales in 2023")


def test_a_measure_no_statement_reports_is_no_revenue():
    """"comparable sales", "organic sales": listed with no concept, so their "sales" reaches no revenue
    concept and a question asking one gets no fact pins (``query.facts.question_facts``)."""
    from query.facts import synonym_concepts, synonym_terms, synonyms

    assert synonym_terms("What was Lowe's comparable sales change in fiscal 2023?") == ["comparable sales"]
    assert synonyms()["comparable sales"] == () and synonym_concepts("comparable sales in 2023") == []
    assert synonym_terms("organic sales growth and net sales") == ["organic sales", "net sales"]


def test_a_sale_inside_an_accounting_term_is_no_revenue():
    """"available-for-sale" and "held for sale" name securities and disposal groups: their "sale" is not the
    "sales" that means revenue (the longest term takes its words)."""
    from query.facts import synonym_concepts

    concepts = lambda q: {m.concept.split(":")[1] for m in synonym_concepts(q)}  # noqa: E731
    assert concepts("fair value of available-for-sale debt securities") == \
        {"AvailableForSaleSecuritiesDebtSecurities", "DebtSecuritiesAvailableForSaleExcludingAccruedInterest"}
    assert "Revenues" not in concepts("assets held for sale at year end")
    assert "Revenues" in concepts("net sales of the business held for sale")


def test_income_before_taxes_by_its_names_is_pretax_income_not_the_tax():
    """"Earnings before taxes", "pre-tax income", "income before income taxes": the pretax line, whose words
    hold "income taxes" (the longest term takes them, so the tax expense is not what is asked)."""
    from query.facts import synonym_concepts

    pretax = "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest"
    for asked in ("earnings before taxes", "pre-tax income", "pretax earnings", "income before income taxes",
                  "earnings before income tax", "profit before tax"):
        concepts = [m.concept.split(":")[1] for m in synonym_concepts(f"Acme's {asked} in 2023")]
        assert concepts[0] == pretax and "IncomeTaxExpenseBenefit" not in concepts, asked
