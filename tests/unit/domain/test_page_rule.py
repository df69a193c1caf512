"""One rule of what heads a page and what a figures page is: the training labels (``indexing.ranker_pairs``)
and the query pins (``query.statements``) apply the same one, so a page one side calls a statement's or a
note's, the other does too."""

from __future__ import annotations

import pytest

from domain.statements import HEADING_LINE, HEADING_WINDOW, is_figures, is_heading, notes
from indexing.ranker_pairs import headings
from query.statements import best_heading_page, statement_page

FIGURES = "\n".join(f"Line item {i}\n{i * 1234:,}\n{i * 987:,}" for i in range(1, 30))


def _chunk(text: str, page: int = 7) -> dict:
    return {"text": text, "page_start": page, "page_end": page, "char_start": 0, "char_end": len(text)}


def _note_pinned_on(title, text: str) -> int | None:
    """The page the note pins take for a chunk of ``text`` on page 7 (``query.statements.best_heading_page``)."""
    found = best_heading_page(title, [_chunk(text)])
    return found[0] if found else None


def test_the_rule_on_literals():
    assert is_figures("1,234 5,678 9,012") and not is_figures("Revenue grew because of pricing in 2023.")
    assert is_heading("Income Taxes", 0) and is_heading("Income Taxes", HEADING_WINDOW)
    assert not is_heading("Income Taxes", HEADING_WINDOW + 1)
    assert not is_heading("x" * (HEADING_LINE + 1), 0)


@pytest.mark.parametrize("title, statement, heads", [
    ("CONSOLIDATED STATEMENTS OF INCOME", "income statement", True),
    ("Selected income statement data", "income statement", False),  # JPMorgan's financial highlights
    ("Selected Income Statement Information", "income statement", False),  # Pfizer's segment note
    ("Statement of Operations data:", "income statement", False),  # selected financial data
    ("Balance sheet data", "balance sheet", False),
    ("Cash flow statement information", "cash flow statement", False),
    ("Table 15: GMNS Selected Income Statement and Other Data", "income statement", False),  # American Express
    # MD&A's discussion of a statement's changes, reprinting its main lines
    ("CONSOLIDATED BALANCE SHEETS AND CASH FLOWS ANALYSIS", "balance sheet", False),  # JPMorgan's 10-Qs
    ("Consolidated balance sheets analysis", "balance sheet", False), ("Balance Sheet Review", "balance sheet", False),
    ("Consolidated Statements of Income and Comprehensive Income", "income statement", True),
])
def test_a_summary_of_a_statements_lines_is_not_the_statement(title, statement, heads):
    """Neither side reads a summary of some of a statement's lines as the statement; the pins may still take
    one as the page printing the figures (``summaries``), after which they look for the statement itself."""
    text = f"{title}\n{FIGURES}"
    pinned = statement_page(statement, _chunk(text)) == 7
    labelled = ("statement", statement) in headings(text)
    assert pinned == labelled == heads
    assert statement_page(statement, _chunk(text), summaries=True) == 7


@pytest.mark.parametrize("lead", [0, HEADING_WINDOW - 40, HEADING_WINDOW + 40])
def test_both_sides_agree_on_a_statement_page(lead):
    text = "Prose of the page.\n" * (lead // 19) + "CONSOLIDATED BALANCE SHEETS\n" + FIGURES
    labelled = ("statement", "balance sheet") in headings(text)
    pinned = statement_page("balance sheet", _chunk(text)) == 7
    assert labelled == pinned == (len("Prose of the page.\n") * (lead // 19) <= HEADING_WINDOW)


@pytest.mark.parametrize(("line", "heads"), [
    ("Income Taxes", True), ("Note 12 \u2014 Income Taxes", True), ("7. INCOME TAXES", True),
    ("Income Taxes" + "." * (HEADING_LINE - 5), False),  # too long for a heading line
    ("Income Taxes 87", False),  # a table of contents' line
    ("Our effective tax rate was lower because of discrete items.", False),  # a running sentence
    ("Income taxes have in the past and may in the future cause us to:", False),  # a sentence the title opens
    ("Income taxes (continued)", True), ("Provision for income taxes", True),  # sentence case
])
def test_both_sides_agree_on_a_note_heading(line, heads):
    title = notes()["income taxes"].title
    text = f"{line}\nThe year's provision reflects the items below.\n"
    labelled = ("note", "income taxes") in headings(text)
    pinned = _note_pinned_on(title, text) == 7
    assert labelled == pinned == heads


@pytest.mark.parametrize(("heading", "heads"), [
    ("4.\nIncome Taxes", True),  # the number on its own line above the title (EDGAR HTML)
    ("Note 4 \u2014 Income Taxes", True), ("NOTE 4. INCOME TAXES", True),
    ("Income Taxes", False),  # unnumbered and low on the page: a sub-heading of something else
    ("Note 4 - Income Taxes\n112", False),  # an index of the financial statements: its page on the next line
])
def test_a_numbered_note_heading_heads_its_note_anywhere_on_the_page(heading, heads):
    """A filing's HTML runs its notes on: a note opens mid-page, after the end of the one before."""
    text = "The end of the note before, in prose of the page.\n" * 20 + f"{heading}\nThe provision was lower.\n"
    labelled = ("note", "income taxes") in headings(text)
    pinned = _note_pinned_on(notes()["income taxes"].title, text) == 7
    assert labelled == pinned == heads


def test_an_mdna_section_opens_where_its_heading_fills_a_line_anywhere_on_the_page():
    """MD&A runs its sections on: Intel's "Liquidity and Capital Resources" opens 2,300 characters into
    its page. A contents line ("... Resources" then "42") and a running sentence are no heading, and the
    pin looks only in the section's Items."""
    from domain.statements import section_heads, sections
    from query.statements import best_section_page, section_page

    title = sections()["liquidity and capital resources"].title
    assert section_heads(title, "Liquidity and Capital Resources", "We believe we have sufficient funding.")
    assert section_heads(title, "LIQUIDITY AND CAPITAL RESOURCES:", "")
    assert not section_heads(title, "Liquidity and Capital Resources", "42")
    assert not section_heads(title, "Our liquidity and capital resources are strong.", "")
    section = sections()["liquidity and capital resources"]
    body = "Provision for taxes.\n" * 110 + "Liquidity and Capital Resources\nWe believe we have sufficient funding."
    assert section_page(section, {**_chunk(body, 43), "item": "7"}) == 43
    assert section_page(section, {**_chunk(body, 43), "item": "8"}) is None
    numbered = sections()["subsequent events"]  # a note's number on the line above: the heading is the next line's
    assert section_page(numbered, {**_chunk("The note before.\n" * 80 + "NOTE 15\nSUBSEQUENT EVENT\nOn July 1", 65),
                                    "item": "8"}) == 65
    run_in = sections()["human capital"]  # Smucker's: no line of the title alone, its paragraph runs on after it
    page = "Environmental Matters: We continue to evaluate.\n" * 70 + \
        "Human Capital Management: Our values are rooted in our Basic Beliefs. With almost 9,000 full-time employees"
    assert section_page(run_in, {**_chunk(page, 6), "item": "1"}) is None  # no line of the title alone
    assert best_section_page(run_in, [{**_chunk(page, 6), "item": "1"}])[0] == 6  # ... so the run-in heading
    strategy = "Our strategy.\n" * 80 + "People. Our success is driven by the skills of our people.\n"  # Mastercard p7
    human = "Risk factors.\n" * 80 + "Human Capital\nAs of December 31, 2023, we employed approximately 33,400 persons."
    assert best_section_page(run_in, [{**_chunk(strategy, 7), "item": "1"}, {**_chunk(human, 17), "item": "1"}])[0] == 17
    contents = "Results of Operations\n37\nLiquidity and Capital Resources\n42\n"
    assert best_section_page(section, [{**_chunk(contents, 1), "item": "7"}, {**_chunk(body, 43), "item": "7"}])[0] == 43


@pytest.mark.parametrize(("name", "line", "heads"), [
    ("liquidity and capital resources", "FINANCIAL POSITION, LIQUIDITY AND CAPITAL RESOURCES", True),
    ("liquidity and capital resources", "Capital Resources and Liquidity", True),
    ("liquidity and capital resources", "Liquidity and Financial Condition", True),
    ("liquidity and capital resources", "Financial Condition", True),
    ("liquidity and capital resources", "Liquidity risk management", False),
    ("critical accounting estimates", "APPLICATION OF CRITICAL ACCOUNTING POLICIES AND ESTIMATES", True),
    ("critical accounting estimates", "Critical Accounting Policies and Use of Estimates", True),
    ("critical accounting estimates", "Critical audit matters", False),
    ("human capital", "Human Capital Management", True), ("human capital", "Culture and Workforce", True),
    ("human capital", "Employee benefit plans", False),
    ("human capital", "Human Capital Management and Resources", True),
    ("human capital", "Employees and human capital management", True),
    ("human capital", "CORPORATE RESPONSIBILITY AND HUMAN CAPITAL MANAGEMENT", True),
    ("human capital", "Talent and Culture", True), ("human capital", "Talent acquisition costs", False),
    ("market risk", "ITEM 7A. QUANTITATIVE AND QUALITATIVE DISCLOSURES ABOUT MARKET RISK", True),
    ("market risk", "FINANCING AND MARKET RISK", True),
    ("market risk", "Managing Foreign Currency, Interest Rate, Commodity Price and Credit Risk Exposure", True),
    ("market risk", "Market risk is the risk of loss", False),
    ("interest rate risk", "Interest Rate Risk Management", True), ("interest rate risk", "Interest Rate Risk", True),
    ("interest rate risk", "Interest rates", False),  # a heading of results (rates earned), not of the risk
    ("currency risk", "Foreign Currency Exchange Rate Risk", True), ("currency risk", "Foreign Exchange Risk", True),
    ("currency risk", "Foreign Exchange", False),  # MD&A's effect of exchange rates on results
    ("commodity price risk", "Commodity Price Risk", True), ("commodity price risk", "Commodities", False),
    ("commodity price risk", "Commodity Prices", True),  # Item 7A's subsection, named by what moves
    ("currency risk", "FOREIGN CURRENCY EXPOSURES AND HEDGING PRACTICES", True),
    ("critical accounting estimates", "SIGNIFICANT ACCOUNTING ESTIMATES", True),
    ("critical accounting estimates", "Summary of Significant Accounting Policies", False),  # a note's title
    ("properties", "ITEM 2. PROPERTIES", True), ("properties", "Properties", True),
    ("properties", "Properties held for sale", False),
    ("holders of record", "Item 5. - Market for Registrant's Equity, Related Stockholder Matters and Issuer", True),
    ("holders of record", "Holders of Record", True), ("holders of record", "Holders", True),
    ("holders of record", "Dividends paid to holders of record in March", False),
    ("competition", "COMPETITION", True), ("competition", "COMPETITION AND SEASONALITY", True),
    ("competition", "Competitive Environment", True), ("competition", "Competition in the semiconductor market", False),
    ("seasonality", "Seasonality", True), ("seasonality", "Seasonal Factors", True),
    ("seasonality", "COMPETITION AND SEASONALITY", True), ("seasonality", "Seasonal & Outdoor Living", False),
    ("subsequent events", "Note 23 – Subsequent Events", True), ("subsequent events", "19. Subsequent Events:", True),
    ("subsequent events", "SUBSEQUENT EVENT", True), ("subsequent events", "NOTE 15 SUBSEQUENT EVENT", True),
    ("subsequent events", "Subsequent events or circumstances may change these statements", False),
    ("dividends", "Dividends", True), ("dividends", "DIVIDEND POLICY", True), ("dividends", "Cash Dividends", True),
    ("dividends", "Dividends paid to shareholders increased in 2022", False),
])
def test_a_section_heading_as_filers_word_it(name, line, heads):
    from domain.statements import section_heads, sections

    assert section_heads(sections()[name].title, line, "The text of the section follows.") == heads


def test_a_title_word_among_a_charts_labels_heads_no_section():
    """A strategy graphic's words ("our core", "People", "Brand") are labels, not the human capital heading;
    "Our People" over a paragraph on the workforce is, as is a heading over a short subheading when the text
    after it says the topic."""
    from domain.statements import among_labels

    topic = "employees human capital workforce full-time"
    chart = "Brand\nDiversify\ninto new customers\nand geographies\nData\nTechnology"
    assert among_labels("our core", "Brand", chart, topic)
    heading = "As of December 31, 2023, we employed approximately 33,400 persons globally. Our employee base is"
    assert not among_labels("ITEM 1. BUSINESS", heading.split(".")[0], heading, topic)
    assert not among_labels("PART I", "Overview", "Overview\nOur employees are our greatest asset", topic)


@pytest.mark.parametrize(("name", "line", "runs"), [
    ("human capital", "Human Capital Management: Our values and principles are rooted in our Basic Beliefs", True),
    ("human capital", "People. Our success is driven by the skills of our people.", True),
    ("human capital", "Human capital: we believe", False),  # no capital after the stop: not a paragraph's start
    ("seasonality", "Seasonal Aspects of Operations. Walmart U.S.'s business is seasonal to a certain extent", True),
    ("interest rate risk", "Interest Rate Risk. We have financial instruments that are subject to it", True),
    ("competition", "Competition: We are the branded market leader in coffee", True),
    ("liquidity and capital resources", "liquidity. The impact of any such disruption is hard to predict.", False),
    ("critical accounting estimates", "Critical Accounting Estimates \u2013 Pension Plans\u201d on pages 47 - 48", False),
    ("human capital", "Human Capital Management", False),  # a line of its own: section_heads' case
])
def test_a_run_in_heading_opens_its_paragraph(name, line, runs):
    """A run-in heading: the title in title case or capitals, a colon or a full stop, its paragraph on the line."""
    from domain.statements import runs_in, sections

    assert runs_in(sections()[name].title, line) == runs
