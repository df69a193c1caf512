"""The query plan's rules, the concept map, and the honest-tuning helpers (no index needed)."""

from __future__ import annotations

import pytest

from domain import vocabulary
from domain.text import words
from domain.vocabulary import VocabularyError
from query.analysis import QueryAnalysis, analyze
from query.concepts import ConceptMapError, concept_map, parse
from query.evaluate import QA, leave_one_group_out, present_gold, score_question
from query.plan import core_question, document_tier, lexical_query, make_plan, printed_nouns, spelled_out


def plan_of(question: str):
    return make_plan(analyze(question))


def test_core_question_drops_instructions_and_caveats():
    q = ("Does Acme have an improving gross margin profile as of FY2022? If gross margin is not a useful metric "
         "for a company like this, then state that and explain why.")
    assert core_question(q) == "Does Acme have an improving gross margin profile as of FY2022?"
    q = ("You are an investment banker and your only resource(s) to answer the following question is (are): the "
         "balance sheet. Here's the question: what is the FY2015 current ratio for Acme? Round your answer to two "
         "decimal places.")
    assert core_question(q) == "what is the FY2015 current ratio for Acme?"
    assert core_question("Is Acme's business subject to cyclicality?") == "Is Acme's business subject to cyclicality?"
    # a caveat after a semicolon is a clause of its own: the question it follows is no "explain why" question
    q = ("How many times has Acme sold its inventory in FY2022? Calculate inventory turnover ratio for the FY; if "
         "inventory management is not meaningful for the company then state that and explain why.")
    assert core_question(q).endswith("for the FY;")
    p = plan_of(q)
    assert not p.narrative and p.figure and set(p.statements) == {"balance sheet", "income statement"}
    # a caveat's own clauses stay one caveat ("say so; explain why")
    q = ("Is Acme's working capital positive in FY2023? If working capital is not a relevant metric for this "
         "company, say so; explain why.")
    assert core_question(q) == "Is Acme's working capital positive in FY2023?" and not plan_of(q).narrative


def test_lexical_query_speaks_the_filings_words():
    assert lexical_query("What is the FY2018 capex amount (in USD millions)?") == "What is the 2018 capex (in )?"
    assert lexical_query("revenues in Q22023 vs FY22") == "revenues in Q2 2023 vs 2022"
    # a form named says where to look (the plan's document types), not what the page prints
    assert lexical_query("How does Acme describe its franchise in its 2023 annual report?") == \
        "How does Acme describe its franchise in its 2023 ?"
    assert lexical_query("Acme's risk factors per its Form 10-K and 10-Qs") == "Acme's risk factors per its and"
    # the named company's own name, however its words are joined: the search is within its documents already
    assert lexical_query("per Bristol-Myers Squibb's 2023 10-K, how many years of data protection?",
                         ["Bristol Myers Squibb's"]) == "per 2023 , how many years of data protection?"
    assert lexical_query("AT&T's Mobility revenue", ["AT&T"]) == "Mobility revenue"


def test_a_verb_asks_for_the_noun_filings_print():
    assert plan_of("How many 787 airplanes did Acme deliver in 2023?").lexical.endswith(" deliveries")
    assert plan_of("When did Acme acquire Widget Co?").lexical.endswith(" acquisition")
    assert printed_nouns("How much did the segment lose, and how many people did it employ?") == ["loss", "employees"]
    assert printed_nouns("What were Acme's deliveries in 2023?") == []
    # every entry is needed: the stemmer keeps its verb apart from its noun (else BM25 matched them already)
    for verb, noun in vocabulary.load("word_forms").items():
        assert words(verb) != words(noun) and verb == verb.lower(), verb


def test_a_short_form_is_read_as_filings_print_it():
    """Issue 54's short-form rewordings: "rev", "R&D", "avg", "SG&A" spelled out, whole words only, in any
    case; a word that holds one ("revision", "Revvity", "avenue") and a ticker stay as written."""
    assert spelled_out("NVDA FY24 data center rev") == "NVDA FY24 data center revenue"
    assert spelled_out("How much did Acme spend on R&D?") == \
        "How much did Acme spend on R&D research and development?"  # filings print "R&D" too: kept
    assert spelled_out("LOW FY23 SG&A; avg ticket; Int'l FCF") == \
        "LOW FY23 SG&A selling, general and administrative; average ticket; international FCF free cash flow"
    assert spelled_out("How much stock did Acme buy back?") == "How much stock did Acme buy back share repurchases?"
    assert spelled_out("revision of Revvity's guidance on Avenue") == "revision of Revvity's guidance on Avenue"
    assert spelled_out("LOW comps Q2 2023; MRK pharma sales") == "LOW comparable sales Q2 2023; MRK pharmaceutical sales"
    assert plan_of(spelled_out("Acme comps Q2 2023")).concepts == ["comparable sales"]
    assert plan_of(spelled_out("Acme data center rev FY2023")).concepts == ["revenue and growth"]
    # every entry is a lower-case short form spelled out in other words, none a ticker or name kept apart
    lists = vocabulary.load("short_forms")
    assert set(lists) == {"replaced", "kept"} and not set(lists["replaced"]) & set(lists["kept"])
    for short, printed in [*lists["replaced"].items(), *lists["kept"].items()]:
        assert short == short.lower() and short not in printed.lower().split(), short


def test_a_sales_figure_asked_by_the_verb_is_read_as_sales():
    """"How much did Acme sell" asks its sales (filings print "net sales"; the stemmer keeps "sell" apart):
    the noun follows the verb, so the concept map reads revenue and the figure; units counted, a business
    sold, a selling expense and an adjective "sold" are left as written."""
    assert spelled_out("How much did Acme sell in Q2 2023?") == "How much did Acme sell sales in Q2 2023?"
    assert spelled_out("how much has Acme's Aerospace segment sold?") == "how much has Acme's Aerospace segment sold sales?"
    for other in ("How many vehicles did Acme sell in 2023?", "What business did Acme agree to sell?",
                  "How much did Acme spend on selling, general and administrative expense?",
                  "How much revenue did the sold business bring?"):
        assert spelled_out(other) == other
    plan = plan_of(spelled_out("How much did Acme sell in its first fiscal quarter of 2024?"))
    assert "revenue and growth" in plan.concepts and plan.figure


def test_a_share_asked_is_a_percent_and_the_unit_of_an_answer_is_not():
    """"Gross margin percentage" asks for a share (the row printing it prints percentages, and filings print
    the word); "answer in units of percents" says how to give the answer."""
    assert plan_of("How did Acme's gross margin percentage change over 2021 to 2023?").percent
    assert plan_of("What is Acme's FY2020 EBITDA % margin?").percent
    assert not plan_of("What is Acme's FY2020 gross margin? Answer in units of percents.").percent
    assert lexical_query("Acme's gross margin percentage in 2023") == "Acme's gross margin percentage in 2023"
    assert lexical_query("Acme's margin change (in units of percents)") == "Acme's margin change ( )"


def test_years_and_document_types():
    p = plan_of("What is the FY2018 - FY2020 3 year average unadjusted EBITDA % margin for Acme?")
    assert p.target_year == 2020 and p.doc_types == []  # unadjusted: not an earnings-release measure
    assert plan_of("Acme's FY2022 Adjusted EBIT over interest expense").doc_types == ["EARNINGS"]
    assert plan_of("Number of stores in Q2 of FY2024 and FY2023").doc_types == ["10-Q", "EARNINGS"]
    assert plan_of("What did Acme report in its fourth quarter 2022?").doc_types == ["10-Q", "EARNINGS", "10-K"]
    assert plan_of("What was the outcome of the shareholder vote at the AGM?").doc_types == ["8-K"]
    assert plan_of("What does the 10-K say about FY2021 revenue?").doc_types == ["10-K"]
    assert plan_of("Is Acme's business subject to cyclicality?").target_year is None


def test_a_question_standing_in_a_year_reads_that_years_report():
    p = plan_of("As of FY 2021, how much did Acme expect to pay for its retirees in 2024?")
    assert p.target_year == 2021 and any(r.startswith("as of 2021") for r in p.rules)
    assert plan_of("As of the end of fiscal 2022, which notes mature in 2025?").target_year == 2022
    # no stand taken, or the stand is the latest year: the latest year named, as before
    assert plan_of("Acme's revenue in 2021 and in 2024").target_year == 2024
    assert plan_of("As of FY2023, how has revenue changed since FY2021?").target_year == 2023
    assert plan_of("Charges expected from the 2022 program, as of mid-2023?").target_year == 2023
    # a report named by its quarter stands there: the later year is its guidance's
    p4 = plan_of("What EPS guidance for 2023 did Acme give in its fourth-quarter 2022 earnings release?")
    assert p4.target_year == 2022 and p4.analysis.quarters == [4]
    # curation's follow-up for the later year asks for that year's documents, not the stand's again
    from query.plan import follow_up_plan
    assert follow_up_plan(p, None, 2024).target_year == 2024 and follow_up_plan(p, None, 2021).target_year == 2021


def test_document_rules_r1_r2_r3():
    p = plan_of("Did Acme grow its revenue between FY20 and FY21?")
    assert p.target_year == 2021
    assert document_tier(p, 2021, "10-K", "FY", True)[0] == 0  # R1
    assert document_tier(p, 2022, "10-K", "FY", False)[0] == 1  # R2: no 2021 document, next year's 10-K
    assert document_tier(p, 2022, "10-K", "FY", True)[0] == 2  # a 2021 document exists: no fallback
    assert document_tier(p, 2024, "10-K", "FY", False)[0] == 2  # beyond the comparative columns
    assert document_tier(p, 2022, "10-Q", "Q1", False)[0] == 2  # a quarterly report has no annual comparatives
    q = plan_of("Which segment had the lowest net revenue in 2021 Q1?")
    assert document_tier(q, 2021, "10-Q", "Q1", True)[0] == 0
    assert document_tier(q, 2021, "10-Q", "Q2", True)[0] == 2  # another quarter
    assert document_tier(q, 2021, "10-K", "FY", True)[0] == 2  # not the type asked for
    # no report of that quarter: the annual report of the quarter's fiscal year holds it (R2), not another year's
    assert document_tier(q, 2021, "10-K", "FY", False)[0] == 1
    assert document_tier(q, 2020, "10-K", "FY", False)[0] == 2
    assert document_tier(p, 2021, "10-K", "FY", False)[0] == 0  # a year asked: R1 as before


def test_a_span_named_by_its_last_day_is_the_quarter_report_ending_that_day():
    """Rule E: "the three months ended December 30, 2023" is Apple's fiscal 2024 first quarter; the 10-Q
    ending that day answers (within a 52/53-week year's slack), not fiscal 2023's 10-K or another 10-Q."""
    import datetime as dt

    from domain.periods import period_ended

    assert period_ended("revenue for the three months ended December 30, 2023?") == (3, dt.date(2023, 12, 30))
    assert period_ended("the quarter ending Sept. 30, 2021") == (3, dt.date(2021, 9, 30))
    assert period_ended("fiscal year ended January 28, 2024") == (12, dt.date(2024, 1, 28))
    assert period_ended("cash as of June 30, 2023") is None and period_ended("three months ended June 31, 2023") is None
    assert period_ended("net revenue for the 12 weeks ended September 9, 2023") == (3, dt.date(2023, 9, 9))
    assert period_ended("the 36 weeks ended September 9, 2023") == (9, dt.date(2023, 9, 9))
    assert period_ended("the 53 weeks ended September 3, 2023") == (12, dt.date(2023, 9, 3))
    assert period_ended("the 20 weeks ended June 1, 2023") is None  # no whole quarters
    p = plan_of("What were Apple's net sales for the three months ended December 30, 2023?")
    assert p.doc_types == ["10-Q", "EARNINGS"]
    assert document_tier(p, 2024, "10-Q", "Q1", True, dt.date(2023, 12, 30))[0] == 0  # E, fiscal 2024's Q1
    assert document_tier(p, 2024, "10-Q", "Q1", True, dt.date(2024, 1, 2))[0] == 0  # a 52/53-week quarter
    assert document_tier(p, 2023, "10-Q", "Q3", True, dt.date(2023, 7, 1))[0] == 2  # another quarter
    assert document_tier(p, 2023, "10-K", "FY", True, dt.date(2023, 9, 30))[0] == 2  # not a quarter's report
    year = plan_of("What were Apple's net sales for the fiscal year ended September 30, 2023?")
    assert year.doc_types == [] and document_tier(year, 2023, "10-K", "FY", True, dt.date(2023, 9, 30))[0] == 0


def test_a_quarter_named_by_its_last_month_is_found_by_that_day_in_a_release_too():
    """"The December quarter of 2023" (as companies whose fiscal year is not the calendar's say it) is the
    quarter ended December 31, 2023: rule E takes the 10-Q ending then and the earnings release dated within
    about a quarter after it (the catalog dates a release by its own day), not a release of another quarter."""
    import datetime as dt

    from domain.periods import period_ended, releases_quarter

    assert period_ended("net sales for the December quarter of 2023") == (3, dt.date(2023, 12, 31))
    assert period_ended("Apple's revenue in the June 2023 quarter") == (3, dt.date(2023, 6, 30))
    assert period_ended("revenue in March 2023") is None and period_ended("the quarter of 2023") is None
    assert releases_quarter(dt.date(2024, 2, 1), dt.date(2023, 12, 30))
    assert not releases_quarter(dt.date(2024, 5, 2), dt.date(2023, 12, 30))  # the next quarter's release
    assert not releases_quarter(dt.date(2023, 11, 2), dt.date(2023, 12, 30)) and not releases_quarter(None, dt.date(2023, 12, 30))
    p = plan_of("What were Apple's total net sales for the December quarter of 2023 according to its earnings release?")
    assert document_tier(p, 2024, "EARNINGS", "Q1", True, dt.date(2024, 2, 1))[0] == 0
    assert document_tier(p, 2024, "EARNINGS", "Q2", True, dt.date(2024, 5, 2))[0] == 2
    assert document_tier(p, 2024, "10-Q", "Q1", True, dt.date(2023, 12, 30))[0] == 0


def test_a_month_named_with_its_year_is_the_report_whose_period_ends_with_it():
    """Rule D over a month and no day ("daily users in June 2023", "Visa's revenue in the quarter ending June
    2023"): the report whose period ends that month comes first (Visa's fiscal third quarter, Apple's 10-Q
    ending July 1 within the slack), not the fiscal year's 10-K."""
    import datetime as dt

    p = plan_of("How many people used Acme's apps daily in June 2023?")
    assert document_tier(p, 2023, "10-Q", "Q2", True, dt.date(2023, 6, 30))[0] == 0
    assert document_tier(p, 2023, "10-Q", "Q3", True, dt.date(2023, 7, 1))[0] == 0  # a 52/53-week quarter
    assert document_tier(p, 2023, "10-K", "FY", True, dt.date(2023, 12, 31), company_has_day=True)[0] == 1
    visa = plan_of("What was Acme's net revenue in the quarter ending June 2023?")
    assert document_tier(visa, 2023, "10-Q", "Q3", True, dt.date(2023, 6, 30))[0] == 0


def test_concepts_route_judgements_to_their_evidence():
    p = plan_of("Does Acme have a reasonably healthy liquidity profile based on its quick ratio for FY 2022? If the "
                "quick ratio is not relevant to measure liquidity, please state that and explain why.")
    assert p.statements == ["balance sheet"] and p.figure and not p.narrative
    p = plan_of("What drove operating margin change as of FY2022 for Acme?")
    assert p.statements == [] and p.narrative and "7" in p.items
    assert plan_of("What are major acquisitions that Acme has done in FY2023?").notes == ["acquisitions"]
    legal = plan_of("Has Acme reported any materially important ongoing legal battles from FY2022?")
    assert legal.notes == ["contingencies"] and legal.items == ["3"]
    assert plan_of("Which debt securities are registered to trade on a national securities exchange?").cover
    assert plan_of("How does Acme's effective tax rate in FY2022 compare to FY2021?").notes == ["income taxes"]
    # a bank's deposits are a line of its balance sheet (a customer's deposits too)
    assert plan_of("What were Acme Bank's total deposits as of June 30, 2022?").statements == ["balance sheet"]
    # a backlog is a figure MD&A reports (its table's row), on no statement and tagged by no fact
    from query.facts import synonym_terms, synonyms
    p = plan_of("What was Acme's total backlog at the end of 2022?")
    assert p.concepts == ["backlog"] and p.figure and p.statements == [] and "7" in p.items
    assert [synonyms()[t] for t in synonym_terms(p.core)] == [()]
    # a line qualified by words said after it is the qualified measure (MD&A's), and its name alone stays the line
    p = plan_of("How much did Acme's net revenue grow on a currency-neutral basis in 2023?")
    assert "qualified sales said after" in p.concepts and concept_map().unreported(p.core)
    assert plan_of("What were Acme's Organic Net Sales in 2023?").concepts == ["qualified sales"]
    assert not concept_map().unreported("What was Acme's net revenue in 2023?") and synonyms()["revenue"]
    # a statement named outright decides, even in the instructions
    p = plan_of("Using the cash flow statement, how much did Acme generate from operations in FY2020?")
    assert p.statements == ["cash flow statement"]
    assert set(plan_of("Basing your judgments on the P&L statement, what is Acme's FY2019 COGS?").statements) == \
        {"income statement"}
    # an MD&A section named by its statutory title (or its words): the section's pages, MD&A's passages
    p = plan_of("What did Acme report about its liquidity and capital resources in 2023?")
    assert p.sections == ["liquidity and capital resources"] and "7" in p.items
    assert plan_of("What is Acme's quick ratio for FY2022?").sections == []


def test_a_cause_asked_of_a_change_in_other_words_is_a_drivers_question():
    for q in ("What pushed Acme's revenue lower in 2023?", "Factors behind Acme's 2023 net sales increase?",
              "Why were Acme's Q2 2023 revenues lower?", "Reasons behind Acme's lower revenue in 2023?"):
        p = plan_of(q)
        assert p.narrative and "7" in p.items and p.statements == [] and not p.figure, q
    # a cause asked of no change is no drivers question; a change asked without a cause neither
    assert "7" not in plan_of("Why is Acme subject to cyclicality?").items
    assert not plan_of("What was Acme's revenue decline in 2023?").narrative


def test_narrative_words_are_the_concept_maps():
    for q in ("What were the reasons for Acme's margin?", "Explain Acme's 2023 results.", "What drove Acme's EPS?",
              "What caused Acme's charge?", "Acme's key growth drivers?"):
        assert plan_of(q).narrative, q
    # "reason" alone is no cue: its stem is also "reasonably"'s
    assert not plan_of("Does Acme have a reasonably healthy quick ratio for FY 2022?").narrative
    # a cause asked with "affect" or "impact", in any of the verbs' forms; "what impact" asks an effect's figure
    for q in ("Which factors impacted Acme's gross margin in Q2 2025?", "What affected Acme's sales in 2023?",
              "What factors affected Acme's operating margin?", "Factors impacting Acme's 2023 revenue?"):
        assert plan_of(q).narrative, q
    assert not plan_of("What impact did currency have on Acme's 2023 revenue?").narrative
    # "what impacted" asks the cause, as "what affected" does: the verb's own past form, read unstemmed
    assert plan_of("What impacted Acme's net revenues in 2023?").narrative
    assert plan_of("What has impacted Acme's margins?").narrative
    m = parse({"narrative": ["why"], "concepts": []})
    assert m.asks_why("why did it fall", []) and not m.asks_why("what fell", [])


def test_where_a_company_operates_is_item_1s_geographic_account():
    for q in ("What are the geographies that Acme primarily operates in as of FY2022?",
              "Where does Acme operate geographically?", "Which countries does Acme operate in?"):
        p = plan_of(q)
        assert p.sections == ["geographic areas"] and "1" in p.items, q
        # and the regions Item 1 names, and the table listing them (``query.region_pins``)
        assert p.operates and not p.regions and any(r.startswith("where it operates") for r in p.rules), q
    # a segment's or a region's figure is the segment note's, not Item 1's account
    for q in ("Which segment had the highest revenue?", "Acme revenue by region 2022"):
        assert plan_of(q).sections == [] and not plan_of(q).operates, q
    # a figure of its operations somewhere is that figure's question, not where it operates
    for q in ("What were Acme's revenues from its Canadian operations in fiscal 2021?",
              "Which of Acme's geographic segments had the highest EBIT in FY2021?"):
        assert not plan_of(q).operates, q


def test_a_measure_asked_by_region_asks_the_regions_table():
    """A region's figure compared or split ("which region", "by region", "which of its geographic segments") is
    the table of the regions' figures (``plan.regions``: ``query.region_pins``); where a company operates is
    Item 1's account, no figure's table; "topline" is the trade's one word for revenue."""
    for q in ("Which region had the worst topline performance for Acme during FY2022?", "Acme revenue by region 2022",
              "Which of Acme's geographic segments grew net sales the most in 2023?",
              "Which geographic area drove Acme's sales growth in 2023?"):
        assert plan_of(spelled_out(q)).regions, q
    for q in ("Which countries does Acme operate in?", "What was Acme's revenue in 2022?",
              "Which of Acme's segments grew net sales fastest in 2022?"):
        assert not plan_of(spelled_out(q)).regions, q
    assert plan_of(spelled_out("Acme topline FY2022")).concepts == ["revenue and growth"]


def test_a_measure_asked_by_segment_or_product_asks_the_table_of_parts():
    """A figure split by segment or product, none named ("any product categories over 20% of revenue",
    "which segment", "by product line") is read off the table of parts adding up to the whole (``plan.shares``:
    ``query.sum_pins``); a region's split is the regions' table, a figure of the whole neither."""
    for q in ("Are there any product categories / service categories that represent more than 20% of Acme's "
              "revenue for FY2022?", "Which of Acme's segments had the highest net sales in 2021?",
              "Acme revenue by product line 2023", "Did any of Acme's segments make up more than half its sales?",
              "Which of Acme's divisions contributed the largest share of net revenue in 2021?",
              "Which class of products made up the biggest share of Acme's fiscal 2021 net sales?"):
        p = plan_of(spelled_out(q))
        assert p.shares and not p.regions and any(r.startswith("by segment or product") for r in p.rules), q
    for q in ("Which region had the highest revenue for Acme in 2022?", "What was Acme's revenue in 2022?",
              "What are Acme's product categories?", "Are there any risks to Acme's revenue?"):
        assert not plan_of(spelled_out(q)).shares, q


def test_the_workforce_is_item_1s_human_capital_section():
    for q in ("Acme headcount?", "How many employees does Acme have?", "How many people did Acme employ in 2024?",
              "How many people work at Acme?", "the number of people Acme employs"):
        assert plan_of(q).sections == ["human capital"] and "1" in plan_of(q).items, q
    for q in ("What are Acme's employee benefit plans?", "What was Acme's return on capital employed in 2023?",
              "Acme employment taxes 2023"):
        assert plan_of(q).sections == [], q


def test_a_market_risk_named_is_item_7as_disclosure_of_it():
    """Regulation S-K Item 305's risks asked with a word of exposure are answered by Item 7A (Part I Item 3 of
    a 10-Q); the debt said with one is what is exposed, not a balance asked."""
    for q, section in (("Is Acme exposed to interest rate risk on its debt in 2023?", "interest rate risk"),
                       ("How sensitive is Acme to currency exchange rates in fiscal 2024?", "currency risk"),
                       ("What commodity price risk does Acme report for 2023?", "commodity price risk"),
                       ("Acme market risk 2023", "market risk")):
        p = plan_of(q)
        assert section in p.sections and "7A" in p.items and "part1item3" in p.items, q
        assert p.statements == [] and p.notes == [] and not p.figure, q
    for q in ("What was Acme's total debt in 2023?", "How did foreign currency affect Acme's sales in 2023?",
              "What interest rate does Acme pay on its notes?"):
        assert not {"interest rate risk", "currency risk", "market risk"} & set(plan_of(q).concepts), q
    assert "leverage" in plan_of("What was Acme's total debt in 2023?").concepts
    m = parse({"concepts": [{"name": "debt", "cues": ["debt"], "evidence": ["cover"], "figure": True},
                            {"name": "rates", "cues": ["interest rate risk"], "evidence": ["item: 7A"],
                             "about": ["debt"]}]})
    assert [c.name for c in m.matching("interest rate risk on its debt")] == ["rates"]
    assert [c.name for c in m.matching("its debt")] == ["debt"]
    with pytest.raises(ConceptMapError, match="about names no concept: nothing"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["cover"], "about": ["nothing"]}]})


def test_what_a_company_owns_or_leases_is_item_2_and_its_holders_item_5():
    for q in ("List the properties Acme owns, per its fiscal 2015 10-K", "Where are Acme's plants located?",
              "How much square footage of facilities did Acme own or lease at the end of 2023?"):
        p = plan_of(q)
        assert p.sections == ["properties"] and "2" in p.items, q
    for q in ("What were Acme's operating lease liabilities in 2023?", "How much did Acme own of Beta Corp?",
              "What was Acme's property and equipment, net, in 2023?"):
        assert "properties" not in plan_of(q).concepts, q
    for q in ("How many shareholders of record did Acme have?", "Acme number of stockholders 2023"):
        assert plan_of(q).sections == ["holders of record"] and "5" in plan_of(q).items, q
    assert "holders of record" not in plan_of("What dividend did Acme pay per share in 2023?").concepts
    # the dividend's history is told under a "Dividends" heading (Item 5, MD&A); an amount is the cash flow's
    for q in ("Does Acme maintain a stable trend of dividend distribution?", "Has Acme raised its dividend every year?",
              "What is Acme's dividend history?"):
        p = plan_of(q)
        assert p.sections == ["dividends"] and {"5", "7"} <= set(p.items) and p.statements == [], q
    for q in ("How much did Acme pay in dividends in 2022?", "What was Acme's dividend per share in 2023?"):
        assert plan_of(q).statements == ["cash flow statement"] and plan_of(q).sections == [], q


def test_item_1s_competition_and_seasonality_and_the_accounting_standards_note():
    """Item 1's competition and seasonality are sections of their own; a measure said with "seasonal" is what
    moves with the seasons, no figure asked; the standards adopted are a note's."""
    for q in ("Who does Acme compete with?", "Describe the competition Acme faces.", "Who are Acme's competitors?"):
        p = plan_of(q)
        assert p.sections == ["competition"] and "1" in p.items and not p.figure, q
    for q in ("Is Acme's revenue seasonal?", "Are Acme's sales seasonal?", "Acme seasonality"):
        p = plan_of(q)
        assert p.sections == ["seasonality"] and p.statements == [] and not p.figure, q
    assert plan_of("Is Acme's revenue seasonal?").described == ["revenue and growth"]
    assert plan_of("What was Acme's revenue in 2023?").described == []
    for q in ("Which new accounting standards did Acme adopt in 2023?", "Did Acme adopt any accounting pronouncements?"):
        assert plan_of(q).notes == ["new accounting standards"], q
    held = plan_of("What was Acme's holiday season revenue in 2023?")  # a season named: a time of the year
    assert held.sections == [] and "revenue and growth" in held.concepts and held.figure and not held.described


def test_a_departure_said_with_a_verb_of_leaving_and_the_seat_left_is_an_8k_event():
    """Item 5.02's departure asked in other words than "resign" ("left the board", "quit as CFO"): an 8-K's, when
    a seat is said with the verb; leaving alone ("cash left", "a departure rate") asks no event."""
    for q in ("Which director left Acme's board?", "Who quit Acme's board of directors?",
              "Which officer is departing Acme?"):
        assert plan_of(q).doc_types == ["8-K"], q
    for q in ("How much cash did Acme have left at the end of 2023?", "What was Acme's employee departure rate?"):
        assert plan_of(q).doc_types == [], q
    with pytest.raises(ConceptMapError, match="a cue is a phrase"):
        parse({"doc_types": {"8-K": [{"cues": ["left"]}]}})


def test_seasonality_asked_as_the_part_of_the_year_a_measure_peaks_in():
    """Which quarter, month or time of the year a measure is highest in, or whether it varies over the year,
    asks the seasonality section without its word; a quarter asked of an event or a figure does not."""
    for q in ("In which quarter are Acme's sales highest?", "How does the time of year affect Acme's revenue?",
              "When in the year does Acme sell the most?", "Are Acme's sales higher in some quarters than in others?"):
        p = plan_of(q)
        assert p.sections == ["seasonality"] and p.statements == [] and not p.figure, q
    for q in ("In which quarter did Acme record the impairment charge?", "What quarterly dividend did Acme declare?",
              "What was Acme's revenue in the third quarter of 2023?"):
        assert "seasonality" not in plan_of(q).sections, q


def test_subsequent_events_asked_by_name_or_as_time_after_a_periods_end():
    """The subsequent events' heading is the evidence, whether the question names them or asks what happened
    after the period's end; a balance sheet's date said so asks no balance sheet, and a year ended no event."""
    for q in ("What subsequent events did Acme disclose in its 2023 10-K?", "Did Acme report any subsequent event?",
              "What happened after the balance sheet date in Acme's Q2 2023 10-Q?",
              "Did Acme report any events after the end of the second quarter of 2023?",
              "What did Acme announce after the quarter's end?"):
        p = plan_of(q)
        assert p.sections == ["subsequent events"] and p.statements == [] and not p.figure, q
    for q in ("What was Acme's after-tax income for the year ended 2023?", "What was Acme's revenue in 2023?"):
        assert "subsequent events" not in plan_of(q).concepts, q


def test_a_forecast_is_read_in_the_report_of_the_year_before():
    """A year's expectation is written in the year before's report: its target year; the forecast is prose,
    so no statement is asked nor a figure of the year before; a stand named and a year's actual figure keep
    their own years."""
    p = plan_of("How much does Acme expect to spend on capital expenditures in 2024?")
    assert (p.target_year, p.forecast, p.statements, p.figure) == (2023, 2024, [], False)
    assert plan_of("What were Acme's capital expenditures in 2024?").target_year == 2024
    as_of = plan_of("As of FY2021, how much did Acme expect to pay for its retirees in 2024?")
    assert (as_of.target_year, as_of.forecast) == (2021, None)


def test_a_pension_assumption_is_a_row_of_the_assumptions_table():
    """A discount rate or an expected return asked of the retirement plans is read as a table's row (the
    note's assumptions, past its first pages); asked without a word of the note's own ("pension") no note page
    is pinned; a lease's discount rate is no pension assumption."""
    from query.concepts import concept_map

    p = plan_of("What discount rate did Acme use to measure its pension benefit obligations at the end of 2023?")
    assert "pension assumptions" in p.concepts and p.figure
    assert concept_map().row_labels(p.core, p.concepts)[0] == ("discount", "rate")
    returns = plan_of("What expected return on plan assets did Acme assume for 2022?")
    assert returns.concepts == ["pension assumptions"] and returns.notes == []
    assert concept_map().row_labels(returns.core, returns.concepts)[0][:2] == ("expect", "return")
    assert "pension assumptions" not in plan_of("What discount rate did Acme use for its operating leases?").concepts


def test_what_the_cover_states_is_read_on_the_cover():
    """The cover's facts asked in its own words pin the cover; where a company is incorporated needs a word of
    place with it, since "Incorporated" is also part of a company's name; shares outstanding alone do not (the
    balance sheet and the per-share note print them too)."""
    for question in ("In which state is Acme incorporated, per its fiscal 2023 10-K?",
                     "Where is Acme incorporated?",
                     "What was the aggregate market value of Acme's stock held by non-affiliates?",
                     "What is Acme's IRS employer identification number?",
                     "Where are Acme's principal executive offices?",
                     "Is Acme a large accelerated filer?",
                     # where the headquarters are: the cover's address (and the properties item)
                     "Where is Acme headquartered?", "In which city is Acme's headquarters?", "Where is Acme based?"):
        assert plan_of(question).cover, question
    for question in ("Where does Texas Instruments Incorporated make its chips?",
                     "What documents are incorporated by reference into Acme's 10-K?",
                     "How many diluted shares did Acme have outstanding in 2023?",
                     "How did Acme's revenue change from 2021 to 2023, based on its 2023 10-K?"):
        assert not plan_of(question).cover, question


def test_commercial_paper_is_debt():
    """Commercial paper asked by name is read as debt: its note (the short-term borrowings' table) and the
    balance sheet."""
    p = plan_of("How much commercial paper did Acme have outstanding at the end of 2023?")
    assert "leverage" in p.concepts and p.notes == ["debt"] and "balance sheet" in p.statements


def test_total_costs_and_expenses_is_the_income_statements_line():
    """"Total costs and expenses", the income statement's line by its printed name, is a cost figure read
    on that statement."""
    p = plan_of("What were Acme's total costs and expenses in 2023?")
    assert "costs" in p.concepts and "income statement" in p.statements and p.figure


def test_pretax_income_by_its_names_is_the_income_statements_line():
    """"EBT" (spelled out), "pre-tax earnings", "income before taxes": a figure read on the income statement."""
    for asked in ("EBT", "pre-tax earnings", "income before taxes", "earnings before taxes"):
        p = plan_of(spelled_out(f"What was Acme's {asked} in 2023?"))  # as the retriever reads it
        assert "margins" in p.concepts and "income statement" in p.statements and p.figure, asked


def test_a_concept_with_a_second_list_needs_a_cue_of_each():
    m = parse({"concepts": [{"name": "x", "cues": ["why"], "with": ["lower"], "evidence": ["cover"],
                             "narrative": True}]})
    assert [c.name for c in m.matching("why were sales lower")] == ["x"] and m.concepts[0].narrative
    assert m.matching("why were sales flat") == [] and m.matching("sales were lower") == []


def test_a_concept_said_only_inside_another_that_stands_instead_of_it_is_not_said():
    m = parse({"concepts": [{"name": "revenue", "cues": ["sales"], "evidence": ["statement: income statement"]},
                            {"name": "comps", "cues": ["comparable sales"], "evidence": ["item: 7"],
                             "instead_of": ["revenue"]}]})
    assert [c.name for c in m.matching("How did comparable sales change?")] == ["comps"]
    assert [c.name for c in m.matching("Comparable sales and net sales in 2023?")] == ["revenue", "comps"]
    assert [c.name for c in m.matching("What were net sales?")] == ["revenue"]
    assert plan_of("By how much did Acme's comparable store sales change in fiscal 2017?").statements == []
    with pytest.raises(ConceptMapError, match="instead_of or about names no concept: nothing"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["cover"], "instead_of": ["nothing"]}]})


def test_a_row_of_one_measure_may_print_any_of_its_names():
    """A concept whose cues name one measure lets a row printed under another of its names stand for the one
    asked ("comp sales" asked, "Comparable sales" printed); a concept grouping measures does not."""
    m = parse({"concepts": [{"name": "comps", "cues": ["comparable sales", "same store sales", "comp sales", "comps"],
                             "figure": True,
                             "evidence": ["item: 7"], "one_measure": True},
                            {"name": "margins", "cues": ["gross margin", "operating income"], "figure": True,
                             "evidence": ["statement: income statement"]}]})
    assert m.row_labels("Acme's comp sales in 2023?", ["comps"]) == \
        [("comp", "sale"), ("compar", "sale"), ("same", "store", "sale")]  # the map's order after the cue said
    assert m.row_labels("Acme's gross margin in 2023?", ["margins"]) == [("gross", "margin")]
    assert m.row_labels("Acme's backlog?", ["comps"]) == []
    # the lexical search reads words: a measure said by another name is searched by its first name too
    assert m.printed_names("Acme's comp sales in 2023?", ["comps"]) == ["comparable sales"]
    assert m.printed_names("Acme's comparable sales in 2023?", ["comps"]) == []
    assert m.printed_names("Acme's gross margin?", ["margins"]) == []
    assert plan_of("What was Acme's capex in 2023?").lexical.endswith("capital expenditure")
    with pytest.raises(ConceptMapError, match="one_measure and listed need figure"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["cover"], "one_measure": True}]})
    with pytest.raises(ConceptMapError, match="unreported and by_plan need figure"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["cover"], "unreported": True}]})
    with pytest.raises(ConceptMapError, match="unreported and by_plan need figure"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["cover"], "by_plan": True}]})
    unreported = parse({"concepts": [{"name": "x", "cues": ["x y"], "evidence": ["cover"], "figure": True, "unreported": True},
                                     {"name": "z", "cues": ["z"], "with": ["y"], "evidence": ["cover"], "figure": True,
                                      "unreported": True}]})
    assert unreported.unreported_terms() == ("x y",) and unreported.unreported("z, said with y")


def test_the_concept_map_is_validated():
    assert len(concept_map().concepts) > 20 and "income taxes" in concept_map().notes
    with pytest.raises(ConceptMapError, match="unknown evidence"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["statement: cash flows"]}]})
    with pytest.raises(ConceptMapError, match="has no words"):
        parse({"concepts": [{"name": "x", "cues": ["--"], "evidence": ["cover"]}]})
    with pytest.raises(VocabularyError, match="bad pattern"):
        parse({"notes": {"n": {"title": "(unclosed", "query": "q"}}})
    with pytest.raises(ConceptMapError, match="unknown evidence"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["note: nowhere"]}]})
    with pytest.raises(ConceptMapError, match="unknown evidence"):
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["section: nowhere"]}]})
    with pytest.raises(ConceptMapError, match="unknown evidence"):  # the regions are named by the kind alone
        parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["regions: europe"]}]})
    assert parse({"concepts": [{"name": "x", "cues": ["x"], "evidence": ["regions"]}]}).concepts[0].evidence == ("regions",)
    assert "section: s" in parse({"sections": {"s": {"title": "s", "query": "s", "items": ["7"]}},
                                  "concepts": [{"name": "x", "cues": ["x"], "evidence": ["section: s"]}]}).concepts[0].evidence


def test_leave_one_company_out_never_chooses_with_the_held_out_company():
    def rows(values):
        return [{"id": i, "scores": {"doc_recall": 1.0, "page_recall": v, "page_precision": 0.0, "mrr": 0.0,
                                     "ndcg10": 0.0}} for i, v in values.items()]
    groups = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    runs = {"plain": rows({"a1": 0.0, "a2": 0.0, "b1": 1.0, "c1": 1.0}),
            "fitted": rows({"a1": 1.0, "a2": 1.0, "b1": 0.5, "c1": 0.5})}
    out = leave_one_group_out(runs, groups)
    # without A's questions "plain" wins (B, C), so A scores 0; B's and C's folds prefer "fitted" (A counts)
    assert out["chosen"] == {"A": "plain", "B": "fitted", "C": "fitted"}
    assert out["metrics"]["page_recall"] == pytest.approx((0 + 0 + 0.5 + 0.5) / 4)
    assert out["spread"]["min"] == 0.0 and out["spread"]["max"] == 0.5


def test_one_gold_set_for_doc_and_page_recall():
    qa = QA("q1", "?", [("PRESENT", 3), ("ABSENT", 7)])
    gold = present_gold(qa, {"PRESENT", "OTHER"})
    assert gold.gold == [("PRESENT", 3)]
    scores = score_question(gold, [{"doc_id": "PRESENT", "source_name": None, "page": 3}], 5)
    assert scores["doc_recall"] == 1.0 and scores["page_recall"] == 1.0  # ABSENT's page no longer counts
    assert present_gold(QA("q2", "?", [("ABSENT", 1)]), {"PRESENT"}).gold == []


def test_plan_is_explained():
    p = plan_of("What is the FY2017 - FY2019 3 year average of capex as a % of revenue for Acme?")
    d = p.as_dict()
    assert d["target_year"] == 2019 and d["years"] == [2017, 2019]
    assert d["evidence"]["statements"] == ["income statement", "cash flow statement"]
    assert any("latest filing" in r for r in d["rules"])
    assert isinstance(QueryAnalysis("x").as_dict(), dict)


def test_pages_aggregate_chunks_and_keep_pinned_pages_first():
    from kernel.search import Hit
    from query.scoring import pages

    class _Catalog:
        docs: dict = {}

    def hit(cid: str, page: int, score: float, pinned: bool = False) -> Hit:
        src = {"doc_id": "D", "page_start": page, "page_end": page, "text": cid}
        return Hit(cid, score, {**src, "_page": page} if pinned else src)

    hits = [hit("pin", 9, 1.1, pinned=True), hit("a", 1, 1.0), hit("b", 2, 0.9), hit("b2", 2, 0.8), hit("b3", 2, 0.7)]
    assert [e.page for e in pages(hits, _Catalog(), "r")] == [9, 1, 2]  # best chunk per page, search order
    covered = pages(hits, _Catalog(), "r", coverage=0.1)
    assert [e.page for e in covered] == [9, 2, 1]  # page 2: 0.9 + 0.1 * 1.5 > 1.0
    assert covered[1].score == pytest.approx(1.05) and covered[1].chunk_id == "b"


def test_passage_votes_are_limited_to_the_best_documents():
    """Document ranking's passage vote searches all the named companies' documents up to ``vote_docs``,
    beyond that the best by plan tier and document search rank: its cost stays a few documents' rows
    however many filings a company has."""
    from query.catalog import DocInfo
    from query.scoring import document_tiers, voters

    plan = plan_of("What was Acme's FY2022 revenue in its 10-K?")
    docs = [DocInfo(doc_id=f"ACME_{y}_10K~{c}", company="Acme", ticker="ACME", form="10-K", fiscal_year=y,
                    fiscal_period="FY", entity="acme") for y in (2020, 2021, 2022)
            for c in range(6)]
    rank = [d.doc_id for d in reversed(docs)]
    tiers = document_tiers(docs, plan)
    chosen = voters(docs, tiers, rank, 4)
    assert chosen == [f"ACME_2022_10K~{c}" for c in (5, 4, 3, 2)]  # the target year first, by search rank
    few = docs[:3]
    assert voters(few, tiers, rank, 4) == sorted(d.doc_id for d in few)  # all of them when they are few


def test_a_date_alone_is_a_year_and_only_an_event_points_at_an_8k():
    balance = plan_of("What was Acme's total debt as of December 31, 2022?")
    assert balance.target_year == 2022 and balance.doc_types == []
    assert plan_of("Who was appointed CFO on March 3, 2023?").doc_types == ["8-K"]
    assert plan_of("What is Acme's FY2024 revenue guidance?").doc_types == ["EARNINGS"]
    assert plan_of("Adjusted Non GAAP EBITDA in FY2023").doc_types == ["EARNINGS"]


def test_paraphrases_reword_each_question_once_and_keep_its_gold(tmp_path):
    import json
    from pathlib import Path

    from query.evaluate import reworded

    path = Path(__file__).resolve().parents[3] / "bench" / "data" / "paraphrases_dev.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == len({r["financebench_id"] for r in rows}) == 69 and all(r["question"].strip() for r in rows)
    qas = [QA("q1", "What is Acme's FY2022 revenue?", [("ACME_2022_10K", 40)])]
    (tmp_path / "p.jsonl").write_text('{"id": "q1", "question": "How much did Acme sell in fiscal 2022?"}\n')
    assert reworded(qas, tmp_path / "p.jsonl") == [QA("q1", "How much did Acme sell in fiscal 2022?", qas[0].gold)]
    (tmp_path / "p.jsonl").write_text('{"id": "q2", "question": "?"}\n')
    with pytest.raises(ValueError, match="q2 is not a question"):
        reworded(qas, tmp_path / "p.jsonl")


def test_a_follow_up_narrows_companies_and_year_and_keeps_the_rest_of_the_question():
    from domain.companies import Entity
    from query.plan import follow_up_plan

    acme, beta = Entity("acme", "Acme Corp", frozenset({"ACME"})), Entity("beta", "Beta Inc", frozenset({"BETA"}))
    parent = make_plan(QueryAnalysis("Acme's and Beta's operating income in 2022 and 2023", [acme, beta],
                                     [2022, 2023], names=["Acme", "Beta"]))
    follow = follow_up_plan(parent, beta, 2023)
    assert follow.analysis.entities == [beta] and follow.analysis.years == [2023]
    assert follow.analysis.names == ["Acme", "Beta"] and "Beta" not in follow.lexical  # who, not what
    assert follow_up_plan(parent, None, None).analysis.years == [2022, 2023]


def test_an_expense_a_note_reports_is_a_figure_its_tagged_facts_pin():
    """Advertising and stock-based compensation, asked by the words analysts use ("spend on advertising",
    "stock-based compensation"): figures (their tagged facts are pinned), read in the financial statements'
    notes; the reviewed synonyms name their concepts where the concepts' own names do not spell the words.
    Advertising revenue stays revenue."""
    from query.facts import synonym_concepts

    concepts = lambda q: [m.concept for m in synonym_concepts(q)]  # noqa: E731
    for asked in ("How much did Acme spend on advertising in 2023?", "What were Acme's advertising costs?",
                  "What stock-based compensation expense did Acme recognize in 2023?"):
        p = plan_of(asked)
        assert "expenses the notes report" in p.concepts and p.figure, asked
    assert concepts("How much did Acme spend on advertising?") == ["us-gaap:AdvertisingExpense",
                                                                   "us-gaap:MarketingAndAdvertisingExpense"]
    assert concepts("Acme's stock compensation in 2023")[0] == "us-gaap:ShareBasedCompensation"
    p = plan_of("How did Acme's advertising revenue grow in 2023?")
    assert "expenses the notes report" not in p.concepts and not any("Advertising" in c for c in concepts(p.core))


def test_a_lenders_and_an_insurers_lines_are_figures_asked():
    """Net interest income, provisions for credit losses, earned premiums: the income statement's lines of a
    lender or an insurer; premiums written and the underwriting ratios: MD&A's tables, on no statement."""
    for question in ("What was Acme's net interest income in the third quarter of 2023?",
                     "How much did Acme record as provisions for credit losses in 2022?",
                     "What were Acme's net earned premiums in 2023?"):
        p = plan_of(question)
        assert p.figure and p.statements == ["income statement"], question
    for question in ("What was Acme's combined ratio in 2023?",
                     "What were the net written premiums of Acme's Business Insurance segment in 2023?"):
        p = plan_of(question)
        assert p.figure and p.statements == [] and "part1item2" in p.items, question


def test_a_qualified_sales_measure_pins_no_income_statement():
    """Organic, systemwide and constant-currency sales are MD&A's measures, printed on no statement: asked,
    they do not read as the income statement's sales (as "comparable sales" does not); the plain line still
    does, and so does a question that also asks the plain line."""
    for q in ["What were McDonald's systemwide sales in 2023?", "KHC organic net sales growth in fiscal 2023",
              "Acme's constant currency revenues in Q2 2023", "What was organic revenue growth at Acme in 2022?"]:
        plan = plan_of(q)
        assert plan.concepts == ["qualified sales"] and plan.statements == [], q
    assert plan_of("What were Acme's net sales in 2023?").concepts == ["revenue and growth"]
    assert "revenue and growth" in plan_of("Acme's net sales and organic sales in 2023").concepts


def test_deferred_revenue_is_the_liability_not_the_revenue_line():
    """Revenue billed before it is earned, asked as analysts say it: the contract liability's concepts, not
    revenue's (the longer term takes its words); revenue asked alone stays the revenue line."""
    from query.facts import synonym_concepts

    concepts = lambda q: [m.concept for m in synonym_concepts(q)]  # noqa: E731
    for asked in ("How much deferred revenue did Acme report at the end of the quarter?",
                  "What were Acme's unearned revenues in 2023?", "Acme's contract liabilities at year end"):
        assert concepts(asked)[0] == "us-gaap:ContractWithCustomerLiability", asked
        assert "us-gaap:Revenues" not in concepts(asked), asked
    assert concepts("What was Acme's revenue in 2023?")[0] == "us-gaap:Revenues"


def test_the_spans_a_question_asks_in_months():
    """A year named with no quarter asks its twelve months; a quarter its three, the first half six, the
    first nine months nine, a span named by its last day its length; no period named, no span."""
    from query.analysis import analyze

    assert analyze("What were 3M's Health Care net sales in 2018?").months == frozenset({12})
    assert analyze("Revenue for the fiscal year ended January 28, 2024").months == frozenset({12})
    assert analyze("Frito-Lay North America's net revenue in the fourth quarter of 2022").months == frozenset({3})
    assert analyze("Pharmaceutical segment sales in the first half of 2023").months == frozenset({6})
    assert analyze("Net sales in the first nine months of 2023").months == frozenset({9})
    assert analyze("Revenue in the three months ended June 30, 2023").months == frozenset({3})
    assert analyze("What were 3M's Health Care net sales?").months == frozenset()


def test_the_parts_compared_are_read_off_their_tables_not_the_whole_statement():
    """"Which of its segments had the highest net income": the segments' tables answer (the note, MD&A's
    segment results), the consolidated income statement prints only the whole; a figure of the whole keeps
    its statement, and a "which" naming no part (a security) is no comparison of parts."""
    compared = plan_of("In 2022 Q2, which of Acme's business segments had the highest net income?")
    assert compared.figure and compared.statements == [] and "segments" in compared.notes
    assert any("which of its parts" in rule for rule in compared.rules)
    region = plan_of("Which region had the highest revenue for Acme during FY2022?")
    assert region.statements == [] and "segments" in region.notes
    whole = plan_of("What was Acme's net income in 2022?")
    assert whole.statements == ["income statement"]
    assert plan_of("Which of Acme's segments is the largest? Use the income statement.").statements == [
        "income statement"]  # a statement named outright still decides


def test_a_filing_of_the_day_or_month_asked_is_named_when_the_question_asks_no_figure():
    """Meta's 8-K of December 19, 2025, asked "What executive change did Meta report in December 2025?": the
    question names the filing by its month and asks what it reports, so it is read at the top, ahead of the
    older 10-K whose Item 11 shares the word "executive"; a figure asked of that day is the balance sheet's."""
    import datetime as dt

    from query.plan import names_filing

    event = plan_of("What executive change did Acme report in December 2025?")
    assert names_filing(event, "8-K", dt.date(2025, 12, 19))
    assert not names_filing(event, "8-K", dt.date(2025, 10, 30))  # another month's filing
    assert names_filing(plan_of("What did Acme report in its 8-K dated December 19, 2025?"), "8-K",
                        dt.date(2025, 12, 19))
    assert not names_filing(plan_of("How much cash did Acme hold at December 31, 2025?"), "8-K",
                            dt.date(2025, 12, 31))


def test_an_8k_of_the_month_an_event_is_asked_of_is_of_the_day_asked():
    """MGM Resorts' 8-K of March 1, 2023, asked "What board change did MGM Resorts report in March 2023?":
    a month named with no day is its last day for a balance, but an event of that month may be of any of its
    days, so the 8-K is D's (tier 0) and the company's other reports are not; a figure asked of the month
    stays the report ending with it, and a day named stays that day."""
    import datetime as dt

    from query.plan import event_in_month

    event = plan_of("What board change did Acme report in March 2023?")
    assert event.analysis.month_only and event_in_month(event, "8-K", dt.date(2023, 3, 1))
    assert document_tier(event, None, "8-K", None, True, dt.date(2023, 3, 1))[0] == 0
    assert document_tier(event, 2023, "10-Q", "Q2", True, dt.date(2023, 6, 30), company_has_day=True)[0] == 1
    assert not event_in_month(event, "8-K", dt.date(2023, 4, 3))  # the next month's filing
    assert not event_in_month(event, "10-Q", dt.date(2023, 3, 1))  # a report's period is no event's day
    assert not event_in_month(plan_of("How much cash did Acme hold in March 2023?"), "8-K", dt.date(2023, 3, 1))
    day = plan_of("What did Acme report on March 1, 2023?")
    assert not day.analysis.month_only and not event_in_month(day, "8-K", dt.date(2023, 3, 2))
