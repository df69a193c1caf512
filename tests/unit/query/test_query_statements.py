"""Statement routing (which primary statements a metric question needs, and which chunk is a statement's
own page) and the page a chunk's evidence belongs to."""

from __future__ import annotations

from domain.text import words
from query.analysis import QueryAnalysis
from query.pins import looks_further
from query.plan import make_plan
from query.scoring import evidence_page
from query.statements import best_statement_page, continuation, ratio_rows, statement_page, unstated_rank


def statements_for(question: str) -> list[str]:
    """The statements the plan asks for, without company or year context."""
    return make_plan(QueryAnalysis(question)).statements


TABLE = "\n".join(f"Line item {i}\n{1000 + 37 * i:,}\n{900 + 41 * i:,}" for i in range(12))


def test_questions_name_the_statements_they_need():
    assert statements_for("What is the FY2018 capital expenditure amount (in USD millions) for 3M?") == [
        "cash flow statement"]
    assert statements_for("What is Lockheed Martin's FY2021 net working capital?") == ["balance sheet"]
    assert set(statements_for("What is the FY2017 operating cash flow ratio for Adobe? Operating cash flow ratio "
                              "is defined as: cash from operations / total current liabilities.")) == {
        "balance sheet", "cash flow statement"}
    assert statements_for("Using only the information within the balance sheet, how much total assets?") == [
        "balance sheet"]
    # money spent on property is a purchase (investing cash flows), besides the balance of property it adds to
    assert "cash flow statement" in statements_for("How much did Alphabet spend on property and equipment in 2024?")
    # narrative questions go to the prose, unless a statement is named outright
    assert statements_for("What drove operating margin change as of FY2022 for 3M?") == []
    assert statements_for("Is Boeing's business subject to cyclicality?") == []


def _chunk(text, page_start, page_end, char_start, char_end, kind="text"):
    return {"text": text, "page_start": page_start, "page_end": page_end, "char_start": char_start,
            "char_end": char_end, "kind": kind}


def test_a_statement_page_is_its_title_at_the_top_of_a_page_over_figures():
    tail = "$ 8,459,869\nSee accompanying Notes to Consolidated Financial Statements.\n"
    head = "Table of Contents\n61\nADOBE SYSTEMS INCORPORATED\nCONSOLIDATED STATEMENTS OF CASH FLOWS\n" + TABLE
    chunk = _chunk(tail + "\n" + head, 59, 60, 2223, len(head))
    assert statement_page("cash flow statement", chunk) == 60
    assert evidence_page(chunk) == 60  # most of the chunk is on page 60
    # the index of financial statements lists every title: not a statement page
    index = "INDEX TO CONSOLIDATED FINANCIAL STATEMENTS\nConsolidated Balance Sheets 58\nConsolidated Statements " \
            "of Operations 59\nConsolidated Statements of Cash Flows 61\n" + TABLE
    assert statement_page("cash flow statement", _chunk(index, 55, 55, 0, len(index))) is None
    # a running sentence deep in a page is not a title
    prose = "x" * 400 + " as shown in our consolidated statements of cash flows " + TABLE
    assert statement_page("cash flow statement", _chunk(prose, 70, 70, 300, len(prose))) is None
    # a title over prose is not the statement either
    words = "CONSOLIDATED BALANCE SHEETS\n" + "the company reports its assets and liabilities. " * 20
    assert statement_page("balance sheet", _chunk(words, 10, 10, 0, len(words))) is None
    # a PDF's text setting a title's glyph apart ("Statement of Incom e", "Balance Shee t": 3M's 10-K PDFs)
    split = "3M Company and Subsidiaries\nConsolidated Statement of Incom e\n" + TABLE
    assert statement_page("income statement", _chunk(split, 55, 55, 0, len(split))) == 55
    sheet = "3M Company and Subsidiaries\nConsolidated Balance Shee t\nAt December 31\n" + TABLE
    assert statement_page("balance sheet", _chunk(sheet, 57, 57, 0, len(sheet))) == 57
    # a PDF printing every space as a no-break space (CVS Health's 2018 10-K); a line break is no space
    nbsp = "Page\xa037\nConsolidated\xa0Statements\xa0of\xa0Operations\nIn millions\n" + TABLE
    assert statement_page("income statement", _chunk(nbsp, 301, 301, 0, len(nbsp))) == 301
    broken = "Consolidated Statements of\nOperations\n" + TABLE
    assert statement_page("income statement", _chunk(broken, 40, 40, 0, len(broken))) is None


def test_the_statement_below_an_index_in_the_same_chunk_with_layout_whitespace_is_found():
    """The index of statements at the head of a chunk does not hide the statement on the next page, and a
    table laid out with blank cells (mostly whitespace) still reads as figures."""
    index = "INDEX TO CONSOLIDATED FINANCIAL STATEMENTS\nConsolidated Balance Sheets 56\nConsolidated Statements " \
            "of Cash Flows 60\n" + "Notes to the statements follow the statements themselves. " * 4
    spaced = "\n \n  \n".join(TABLE.splitlines())
    head = "Table of Contents\n3M Company and Subsidiaries\nConsolidated Balance Sheets\n(Millions)\n" + spaced
    chunk = _chunk(index + "\n" + head, 55, 56, 900, len(head))
    assert statement_page("balance sheet", chunk) == 56


def test_dot_leaders_long_row_labels_and_a_contents_entry():
    """A PDF statement's rows run dot leaders to their figures (filler, not text); a cash flow statement's
    rows carry long labels; neither hides the statement. A contents entry, its page number on the next line
    (3M's "Consolidated Statement of Cash Flows for the years ended ..." then "60"), is no statement."""
    leaders = "ADOBE SYSTEMS INCORPORATED\nCONSOLIDATED BALANCE SHEETS\n(In thousands)\n" + "\n".join(
        f"Line item {i} {'.' * 120} $\n{1000 + 37 * i:,}\n{900 + 41 * i:,}" for i in range(12))
    assert statement_page("balance sheet", _chunk(leaders, 58, 58, 0, len(leaders))) == 58
    long_rows = "Consolidated Statements of Cash Flows\n(In millions)\n" + "\n".join(
        f"Adjustments to reconcile to net cash flows provided by operating activities, item {i}\n"
        f"{600 + i}\n{580 + i}\n{545 + i}" for i in range(10))
    assert statement_page("cash flow statement", _chunk(long_rows, 85, 85, 0, len(long_rows))) == 85
    contents = "Table of Contents\nConsolidated Statement of Cash Flows for the years ended December 31, 2018, " \
               "2017 and 2016\n \n60\n \n" + "\n".join(f"Note {i}. Topic {i}\n \n{60 + 3 * i}" for i in range(1, 20))
    assert statement_page("cash flow statement", _chunk(contents, 2, 2, 0, len(contents))) is None
    # contents as a table: each entry's page number in its row's last cell (American Express's index)
    rows = "Part I. | Financial Information | Page No. / Item 1. | Financial Statements\n" + "\n".join(
        f"Consolidated Statements of Income – {span} Months Ended September 30, 2023 and 2022 | {page}"
        for span, page in (("Three", 35), ("Nine", 36))) + "\n" + "\n".join(
        f"Note {i}. Topic {i}, September 30, 2023 and December 31, 2022 | {40 + i}" for i in range(1, 12))
    assert statement_page("income statement", _chunk(rows, 1, 1, 0, len(rows), kind="table")) is None
    header = "Consolidated Statements of Income | 2023 | 2022\n" + "\n".join(
        f"Line item {i} | {1000 + 37 * i:,} | {900 + 41 * i:,}" for i in range(12))
    assert statement_page("income statement", _chunk(header, 36, 36, 0, len(header), kind="table")) == 36


def test_an_html_statement_is_its_title_ending_a_text_chunk_and_its_table_the_next_chunk():
    """A filing's HTML statement: the title ends a text chunk that starts on the page before (its footer, which
    names another statement, is not beside the title), and the table is the next chunk, on the title's page."""
    tail = "See accompanying notes.\nConsolidated Balance Sheets\n76\n"
    head = "Table of Contents\nALPHABET INC.\nCONSOLIDATED STATEMENTS OF CASH FLOWS\n(in millions)"
    title = {**_chunk(tail + "\n" + head, 76, 77, 2100, len(head)), "chunk_id": "A:8:0026"}
    rows = "Year Ended December 31, / 2022 | 2023 | 2024 / Operating activities\n" + "\n".join(
        f"Adjustments to reconcile net income to net cash provided by operating activities {i} | {i},104 | (2{i})"
        for i in range(12))
    table = _chunk(rows, 77, 77, 100, 2100, kind="table")
    assert statement_page("cash flow statement", title) is None  # no figures after it in its own text
    assert statement_page("cash flow statement", title, table) == 77
    assert best_statement_page("cash flow statement", [title], {"A:8:0026": table}) == (77, title)
    assert statement_page("cash flow statement", title, {**table, "page_start": 78}) is None  # another page's
    # the index of the statements as a table, followed by another table: an index, not the statement
    index = _chunk("Item 1. | Financial Statements | 1\nCondensed Consolidated Statements of Operations | 1", 1, 1,
                   71, 170, kind="table")
    assert statement_page("income statement", index, table | {"page_start": 1}) is None


def test_a_table_chunk_whose_header_row_opens_with_the_title_is_the_statement():
    """Texas Instruments' statements are tables whose header row starts with the title, a row longer than a
    heading line; the row is repeated in each chunk of the table."""
    header = "Consolidated Statements of Income | For Years Ended December 31, / (In millions, except per-share " \
             "amounts) | 2023 | 2022 | 2021\n"
    rows = "\n".join(f"Line item {i} | {1000 + 37 * i:,} | {900 + 41 * i:,} | {800 + 43 * i:,}" for i in range(12))
    assert statement_page("income statement", _chunk(header + rows, 24, 24, 0, 1500, kind="table")) == 24
    assert statement_page("income statement", _chunk(header + rows, 24, 24, 0, 1500)) is None  # a long prose line


def test_a_statement_runs_on_to_the_next_page_unless_it_closes_or_another_opens_it():
    assets = _chunk("CONSOLIDATED BALANCE SHEETS\n" + TABLE, 56, 56, 0, 900)
    liabilities = _chunk("Accounts payable\n1,204\n" + TABLE, 57, 57, 0, 900)
    assert continuation("balance sheet", 56, [assets, liabilities]) == liabilities
    closed = _chunk("Total liabilities and stockholders' equity\n9,000\n", 56, 56, 900, 950)
    assert continuation("balance sheet", 56, [assets, closed, liabilities]) is None
    # the income statement opens page 57, from a chunk that starts at the foot of page 56
    head = "MGM RESORTS\nCONSOLIDATED STATEMENTS OF OPERATIONS\n" + TABLE
    income = _chunk("(in thousands)\n" + head, 56, 57, 940, len(head))
    assert continuation("balance sheet", 56, [assets, liabilities, income]) is None


def test_the_statement_outside_mdna_wins_over_an_mdna_table_with_the_same_title():
    page = "Table of Contents\nCONSOLIDATED STATEMENTS OF OPERATIONS\n" + TABLE
    mdna = {**_chunk(page, 36, 36, 0, len(page)), "item": "7"}
    item8 = {**_chunk(page, 69, 69, 0, len(page)), "item": "8"}
    assert best_statement_page("income statement", [mdna, item8]) == (69, item8)
    assert best_statement_page("income statement", [mdna]) == (36, mdna)  # MD&A when nothing else is
    assert best_statement_page("cash flow statement", [mdna, item8]) is None


def test_a_summary_at_mdnas_opening_is_shown_first_as_selected_data_is():
    """A bank's MD&A opens with its "Consolidated financial highlights" ("Selected income statement data"),
    before the statements: asked for the summaries, that page comes first in reading order as a 10-K's
    selected data outside MD&A does; a segment's summary deeper in MD&A does not, and the statement itself
    is still the page when no summary counts."""
    summary = "Consolidated financial highlights\nSelected income statement data\n" + TABLE
    opening = {**_chunk(summary, 2, 2, 0, len(summary)), "item": "part1item2", "seq": 0}
    segment = {**_chunk(summary, 24, 24, 0, len(summary)), "item": "part1item2", "seq": 140}
    page = "Consolidated statements of income\n" + TABLE
    itself = {**_chunk(page, 95, 95, 0, len(page)), "item": "part1item1", "seq": 0}
    assert best_statement_page("income statement", [segment, itself, opening], summaries=True) == (2, opening)
    assert best_statement_page("income statement", [segment, itself], summaries=True) == (95, itself)
    assert best_statement_page("income statement", [segment, itself, opening]) == (95, itself)


def test_a_statement_shown_only_in_mdna_or_nowhere_is_looked_for_further():
    """Pfizer's 2021 income statement's title ends a chunk of the auditor's report, 112th among the matches of
    the statement's words: the first 100 showed only MD&A's "Analysis of the Consolidated Statements of Income"."""
    mdna, notes = (38, {"item": "7"}), (56, {"item": "8"})
    assert looks_further(mdna, 100, 100) and looks_further(None, 100, 100)
    assert not looks_further(notes, 100, 100)
    assert not looks_further(mdna, 60, 100) and not looks_further(None, 60, 100)  # the document has no more


def test_evidence_page_of_single_page_table_and_long_chunks():
    assert evidence_page(_chunk("abc", 4, 4, 10, 13)) == 4
    assert evidence_page(_chunk("header | a | b", 7, 9, 0, 5, kind="table")) == 7
    assert evidence_page(_chunk("a" * 500 + "\n" + "b" * 20, 3, 4, 100, 20)) == 3  # mostly on page 3
    assert evidence_page({"page_start": 2, "_page": 5}) == 5


def test_a_chunk_over_two_pages_also_offers_the_page_holding_the_asked_words():
    """A segment's quarter sentence at one page's foot whose chunk runs on, longer, into the next page's
    six-month paragraph: the chunk is credited to the next page, and its first page, holding the words asked,
    joins the candidates below it (not above a better hit); a page without them does not."""
    from domain.text import terms
    from kernel.search import Hit
    from query.scoring import pages, spill_page, with_spills

    foot = "Segment profit rose and segment margin increased to 27.7% in the quarter."
    head = "Year to date sales rose on higher volumes in air transport and more shipments. " * 3 + \
        "Segment profit rose and segment margin increased to 27.1%."
    chunk = {**_chunk(foot + "\n" + head, 40, 41, 1600, len(head)), "doc_id": "D"}
    asked = terms("What was the Aerospace segment margin in the second quarter?")
    assert evidence_page(chunk, asked) == 41 and spill_page(chunk, asked) == 40
    assert spill_page(chunk, terms("How many employees?")) is None  # no asked words on page 40's part
    dated = {**chunk, "text": "as of June 30, 2023." + "\n" + head}  # a date says nothing of the answer's page
    assert spill_page(dated, terms("What was the segment margin at June 30, 2023?")) is None
    assert spill_page({**chunk, "kind": "table"}, asked) is None
    assert spill_page({**chunk, "_page": 41}, asked) is None  # a pinned page stands for itself

    class _Catalog:
        docs: dict = {}

    other = Hit("o", 0.95, {"doc_id": "D", "page_start": 12, "page_end": 12, "text": "segment note"})
    weak = Hit("w", 0.5, {"doc_id": "D", "page_start": 3, "page_end": 3, "text": "x"})
    hits = [Hit("c", 1.0, chunk), other, weak]
    assert [h.id for h in with_spills(hits, asked, 0.9)] == ["c", "o", "c", "w"]  # 0.9 sits below 0.95
    assert [e.page for e in pages(hits, _Catalog(), "r", asked=asked)] == [41, 12, 40, 3]
    assert [e.page for e in pages(hits, _Catalog(), "r")] == [41, 12, 3]  # no question words: no spill


def test_note_headings_are_found_on_their_page_not_in_sentences():
    import re

    from query.statements import best_heading_page

    title = re.compile(r"income taxes", re.I)
    tail = "the end of the previous note.\n"
    chunk = {"text": tail + "\nNOTE 12. INCOME TAXES\nThe provision for income taxes consists of ...",
             "page_start": 40, "page_end": 41, "char_start": 3000, "char_end": 70, "item": "8"}
    assert best_heading_page(title, [chunk])[0] == 41  # the heading opens page 41
    prose = {"text": "Our effective rate on income taxes rose because of the mix of earnings in many places across "
                     "the world, as discussed in the note on taxes below.", "page_start": 20, "page_end": 20,
             "char_start": 0, "char_end": 140, "item": "7"}
    assert best_heading_page(title, [prose]) is None  # a running sentence, not a heading
    md_and_a = {**chunk, "page_start": 30, "page_end": 31, "item": "7"}
    assert best_heading_page(title, [md_and_a, chunk])[0] == 41  # inside the financial statements first
    # statements and notes inside MD&A's Item (PepsiCo's 10-K): the numbered heading is the note, an earlier
    # page's "Income Taxes" over MD&A's discussion is not
    topic = {"text": "Income Taxes\nOur tax rate rose ...", "page_start": 30, "page_end": 30, "char_start": 0,
             "char_end": 40, "item": "7"}
    assert best_heading_page(title, [topic, {**chunk, "item": "7"}])[0] == 41
    assert best_heading_page(title, [topic])[0] == 30  # with no numbered heading, the unnumbered one


def test_a_note_opened_low_on_its_page_is_placed_there():
    """Where its heading stands on the page decides whether the pins take the next page too."""
    import re

    from query.statements import heading_position

    title = re.compile(r"legal proceedings", re.I)
    text = "The end of the note before it, in prose.\n" * 20 + "Note 21 \u2013 Legal Proceedings\nVarious claims."
    chunk = {"text": text, "page_start": 111, "page_end": 111, "char_start": 0, "char_end": len(text), "item": "8"}
    assert heading_position(title, chunk) == (111, text.index("Note 21"), True)
    top = {**chunk, "text": "Note 21 \u2013 Legal Proceedings\nVarious claims."}
    assert heading_position(title, top) == (111, 0, True)
    unnumbered = {**chunk, "text": "Legal Proceedings\nVarious claims."}
    assert heading_position(title, unnumbered) == (111, 0, False)


def test_a_metric_is_read_off_the_row_it_heads_not_a_sentence_naming_it():
    """A PDF's table prints a row's label on a line and its cells on that line or the lines after it."""
    from domain.text import words
    from query.concepts import concept_map
    from query.statements import row_page

    rate = concept_map().metric("How much has the effective tax rate changed between FY2021 and FY2022?",
                                ["income taxes"])
    assert rate == words("effective tax rate")  # the longest cue said ("tax rate" is one too)
    cells_below = {"text": "Provision for income taxes\n$\n(411)\n(491)\nEffective tax rate\n \n23%\n20%\nNet income",
                   "page_start": 23, "page_end": 23}
    cells_beside = {"text": "Effective tax rate (1) 21.6 % 24.6 % 27.0 %", "page_start": 43, "page_end": 43}
    assert row_page(rate, cells_below) == 23 and row_page(rate, cells_beside) == 43
    prose = {"text": "Our effective tax rate was 23% in 2022 and 20% in 2021.", "page_start": 5, "page_end": 5}
    one_cell = {"text": "Effective tax rate\n23%\nNet income\n1,316\n1,906", "page_start": 6, "page_end": 6}
    assert row_page(rate, prose) is None and row_page(rate, one_cell) is None
    assert concept_map().metric("How many employees?", ["employees"]) is None  # not a figure concept
    total = {"text": "Sales of services\n12,000\nTotal revenues\n66,608\n62,286", "page_start": 54, "page_end": 54}
    assert row_page(words("revenue"), total) == 54  # the total's row prints the metric too


def test_a_share_asked_is_read_off_a_row_of_percentages():
    """MD&A's results table prints gross margin as an amount and a percent of revenue; the income statement
    prints the amount only, so it is no page for "gross margin percentage". A non-GAAP reconciliation's
    row is no GAAP figure's page."""
    from domain.text import words
    from query.statements import non_gaap, row_page

    margin = words("gross margin")
    mdna = {"text": "Gross margin | 21,711 | 40.0% | 26,866 | 42.6%", "page_start": 38, "page_end": 38}
    statement = {"text": "Gross margin | 21,711 | 26,866 | 43,815", "page_start": 75, "page_end": 75}
    below = {"text": "Gross margin percentage\n44.5%\n43.3%\nOperating expenses", "page_start": 18, "page_end": 18}
    assert row_page(margin, mdna, percent=True) == 38 and row_page(margin, statement, percent=True) is None
    assert row_page(margin, statement) == 75 and row_page(margin, below, percent=True) == 18
    assert non_gaap("Non-GAAP gross margin percentage") and non_gaap("Adjusted EBITDA")
    assert non_gaap("Non\u2011GAAP gross margin") and non_gaap("non\u2013gaap") and non_gaap("NONGAAP")
    assert not non_gaap("unadjusted EBITDA margin") and not non_gaap("Adjustments to reconcile net income")


def test_echo_page_finds_the_amount_printed_again_under_the_questions_label():
    from query.statements import echo_page

    asked = frozenset(words("What were Abbott's total net sales for 2023?"))
    summary = {"text": "Results of operations\nNet sales | $ 40,109 | $ 43,653", "page_start": 28, "page_end": 28}
    segments = {"text": "Other | 14 | 11\nTotal | $40,109 | $43,653", "page_start": 74, "page_end": 74}
    assert echo_page({"40,109"}, asked, summary) == 28
    assert echo_page({"40,109"}, asked, segments) == 74  # "Total" alone: the sum of the parts
    whole = {"text": "Eliminations | (253)\nConsolidated Operating Revenues | $ 40,109", "page_start": 23, "page_end": 23}
    assert echo_page({"40,109"}, frozenset(words("Abbott's total operating revenues")), whole) == 23


def test_echo_page_ignores_other_labels_short_figures_percents_and_prose():
    from query.statements import echo_page

    asked = frozenset(words("How much did Visa's payments volume grow in fiscal 2024?"))
    equity = {"text": "Cash dividends declared | (4,217) | (3,751)", "page_start": 59, "page_end": 59}
    assert echo_page({"4,217"}, asked, equity) is None  # a fact the question did not mean
    sales = frozenset(words("What were the net sales?"))
    assert echo_page({"40"}, sales, {"text": "Net sales | 40", "page_start": 1, "page_end": 1}) is None
    assert echo_page({"400"}, sales, {"text": "Total | 400", "page_start": 1, "page_end": 1}) is None  # the whole's alone
    assert echo_page({"19,457"}, sales, {"text": "Net sales | 19,457%", "page_start": 1, "page_end": 1}) is None
    prose = {"text": "Worldwide Net sales were $19,457 in 2023, up 8.5%", "page_start": 31, "page_end": 31}
    assert echo_page({"19,457"}, sales, prose) is None  # a sentence is no table's row
    assert echo_page({"19,457"}, sales, {"text": "| 19,457 | 17,967", "page_start": 1, "page_end": 1}) is None


def test_echo_page_takes_a_three_digit_figure_on_a_row_of_the_questions_own_label():
    """A segment's figure is often three digits ("Operating Profit $ 883" in UPS International Package's MD&A
    section): on a row labelled by the question's words it is the amount asked; under "Total" alone, or with
    fewer digits, it may be any row's."""
    from query.statements import echo_page

    asked = frozenset(words("What operating profit did the International Package segment report?"))
    section = {"text": "Operating Profit (in millions):\nOperating Profit | $ 883 | $ 1,193", "page_start": 52,
               "page_end": 52}
    assert echo_page({"883"}, asked, section) == 52
    assert echo_page({"883"}, asked, {"text": "Total | 883", "page_start": 9, "page_end": 9}) is None
    assert echo_page({"883"}, asked, {"text": "Interest expense | 883", "page_start": 9, "page_end": 9}) is None


def test_echo_page_reads_a_label_past_its_joining_words_and_net():
    """"Net cash provided by operating activities | 576" (MD&A's cash flow summary) is the amount "how much cash
    did its operating activities provide" asks: "net" and "by" say no more than the question; the investing
    row, whose words the question does not say, is not, nor a three-digit figure under words that say nothing."""
    from query.statements import echo_page

    asked = frozenset(words("How much cash did Honeywell's operating activities provide in the first half?"))
    summary = {"text": "Net cash provided by operating activities | 576 | 825", "page_start": 45, "page_end": 45}
    assert echo_page({"576"}, asked, summary) == 45
    investing = {"text": "Net cash used for investing activities | 576", "page_start": 45, "page_end": 45}
    assert echo_page({"576"}, asked, investing) is None
    # "net" alone is no label of its own: a three-digit figure under it may be any row's
    assert echo_page({"576"}, asked, {"text": "Net | 576", "page_start": 9, "page_end": 9}) is None


def test_echo_page_reads_a_cost_label_by_its_items_words():
    """"Research and development expenses | 2,648" (MD&A's table) is the amount "spend on research and
    development" asks, and "Medical costs" the medical care ratio's numerator: a cost's words label the item's
    row, the item's words name it. A row of costs alone ("Costs and expenses") names no item of the question's,
    nor does another item's cost."""
    from query.statements import echo_page

    asked = frozenset(words("How much did Acme spend on research and development in the second quarter?"))
    table = {"text": "Research and development expenses | 2,648 | 2,815", "page_start": 44, "page_end": 44}
    assert echo_page({"2,648"}, asked, table) == 44
    assert echo_page({"2,648"}, asked, {"text": "Selling expenses | 2,648", "page_start": 9, "page_end": 9}) is None
    assert echo_page({"2,648"}, asked, {"text": "Costs and expenses | 2,648", "page_start": 9, "page_end": 9}) is None
    ratio = frozenset(words("What was Acme's medical care ratio in 2023?"))
    assert echo_page({"241,894"}, ratio, {"text": "Medical costs | 241,894", "page_start": 27, "page_end": 27}) == 27


def test_a_tables_head_is_the_lines_above_its_rows_and_names_their_span():
    """A table's head: the column titles above its rows, a PDF's text putting each on a line of its own, up to
    the prose before it or another table's rows; the spans it names, in months ("Three months ended" three,
    "Quarters Ended / Six Months Ended" three and six); none where the passage opens inside the table."""
    from domain.periods import head_months
    from query.statements import table_head

    lines = ["Sales rose 3% in 2018 on higher volumes of the segment's products in every region it serves.",
             "Fourth-quarter sales by segment:", " ", "Three months ended", "December 31, 2018", "2018", "2017",
             "(Dollars in millions)", "Industrial", "$ 2,952", "2,961", "Health Care", "1,520", "1,484"]
    assert table_head(lines, 11) == lines[1:2] + lines[3:8]
    assert head_months(table_head(lines, 11)) == frozenset({3})
    assert table_head(lines[8:], 3) == []  # the passage opens on the table's rows
    previous = ["Safety", "1,569", "1,565", "Net Sales", "Health Care", "6,021"]  # another table's rows above
    assert table_head(previous, 4) == ["Net Sales"]
    ended = ["costs rose in the", "fourth quarter of 2019.", "(In millions)", "2020", "2019", "Health Care", "6,021"]
    assert table_head(ended, 5) == ["(In millions)"] and head_months(table_head(ended, 5)) == frozenset()
    titled = ["YEAR ENDED MAY 31, 2023", "CONVERSE", "TOTAL", "NIKE, INC.", "Revenues by:", "Footwear", "$ 2,155"]
    assert table_head(titled, 5) == titled[:5]  # a column's company name ends no sentence
    # an HTML table's header prints its cells on one line: each cell is a title, however many the line holds
    header = ["Nine Months Ended | % Change Better (Worse) / (in millions) | July 1, 2023 | July 2, 2022 / Revenues",
              "Subscription fees | $13,382 | $11,374 | 18 %", "Total revenues | 16,346 | 14,651 | 12 %"]
    assert table_head(header, 2) == header[:1] and head_months(table_head(header, 2)) == frozenset({9})
    assert head_months(["Quarters Ended", "Six Months Ended"]) == frozenset({3, 6})
    assert head_months(["SECOND QUARTER", "SIX MONTHS"]) == frozenset({3, 6})
    assert head_months(["Q2", "% Change"]) == frozenset({3})
    assert head_months(["Year Ended December 31,"]) == head_months(["Full Year"]) == frozenset({12})
    assert head_months(["36 Weeks Ended"]) == frozenset({9}) and head_months(["YTD"]) == frozenset({6, 9})


def test_a_ratio_asked_is_read_off_its_rows_as_filings_label_them():
    """A margin's row is printed with or without its profit's word ("Operating income margin", "Gross profit
    margin"), whichever the question says (its metric's cue may be the profit: "operating income"), or as its
    profit's rate or share of sales ("Gross profit rate", "Operating income as a percentage of net sales"); a
    rate's as said; a metric of amounts has no ratio row (its row of percents is its growth)."""
    operating = ratio_rows([("oper", "margin")], "What drove operating margin change?")
    assert operating[:2] == (("oper", "margin"), ("oper", "incom", "margin"))
    assert {("oper", "profit", "margin"), ("oper", "incom", "as", "a", "percentag", "of"),
            ("oper", "incom", "as", "a", "percent", "of"), ("oper", "profit", "rate")} <= set(operating)
    assert ("gross", "profit", "rate") in ratio_rows([("gross", "margin")], "Why did gross margin fall?")
    assert set(ratio_rows([("oper", "incom")], "Why did the operating income margin fall?")) == set(operating)
    assert ratio_rows([("oper", "incom")], "Why did operating income fall?") == ()
    assert ratio_rows([("effect", "tax", "rate")], "Why did the effective tax rate fall?") == (("effect", "tax", "rate"),)
    assert ratio_rows([("net", "sale")], "Why did net sales grow?") == ()
    # the profit's rate said is its margin, in every printed form ("Gross profit as a percentage of net sales")
    gross = set(ratio_rows([("gross", "profit")], "What gross profit rate did Acme report?"))
    assert {("gross", "margin"), ("gross", "profit", "rate"), ("gross", "profit", "as", "a", "percentag", "of")} <= gross
    assert ratio_rows([("incom", "tax")], "What was Acme's income tax rate?") == ()  # a tax's rate is no margin


def test_a_margin_mdna_never_states_is_read_off_the_income_statement():
    """A card issuer's MD&A says neither "gross margin" nor "gross profit": the statement first. A chip maker's
    explains its gross profit, an online retailer's its operating income, without the margin: the statement
    after the page explaining the profit. A margin stated in any of its forms takes none."""
    gross = ratio_rows([("gross", "margin")], "gross margin")
    operating = ratio_rows([("oper", "margin")], "operating margin")
    card_issuer = ["Total revenues net of interest expense increased 25 percent.", "Card Member rewards grew."]
    assert unstated_rank(gross, card_issuer) == 0
    assert unstated_rank(gross, ["Gross profit decreased due to lower revenue."]) == 1
    assert unstated_rank(operating, ["Operating income (loss) by segment is as follows.", "AWS grew."]) == 1
    assert unstated_rank(gross, ["Gross profit margin was 62.9% of revenue."]) is None
    assert unstated_rank(gross, ["Our gross profit rate decreased 40 basis points."]) is None
    assert unstated_rank(operating, ["Operating income as a percentage of net sales 4.0 % 4.3 %"]) is None
    assert unstated_rank(ratio_rows([("effect", "tax", "rate")], ""), card_issuer) is None  # not a margin
    assert unstated_rank((), card_issuer) is None


def test_the_months_a_head_names_with_a_day():
    """A head naming three months or more with their days is a year's quarters as columns; "Fiscal Year Ended
    January 31, 2024" names one; a month without its day ("May") none."""
    from domain.periods import head_month_days

    assert head_month_days("Quarter ended | March 31 | June 30 | Sept. 30 | December 31") == frozenset({3, 6, 9, 12})
    assert head_month_days("Fiscal Year Ended January 31, 2024") == frozenset({1})
    assert head_month_days("Sales in May rose") == frozenset()


def test_a_line_with_words_is_a_label_head_or_prose_not_cells():
    """Two letters in a row make a word; a line of figures, signs, a currency's letter or a quarter's "Q2" has
    none."""
    from query.statements import has_words

    assert has_words("Total revenues") and has_words("Three months ended")
    assert not has_words("$ 1,234 (5) %") and not has_words("Q2 2023") and not has_words("")


def test_a_chunks_page_break_places_its_characters_and_its_pages_head():
    """One formula says where a chunk over two pages runs on to the next (``page_break``): the character
    positions read by ``page_position`` and the next page's head read by ``scoring.page_head`` agree."""
    from query.scoring import page_head
    from query.statements import page_break, page_position

    chunk = {"text": "tail of p3\nhead of p4", "page_start": 3, "page_end": 4, "char_start": 120, "char_end": 10}
    assert page_break(chunk) == 11
    assert page_position(chunk, 0) == (3, 120) and page_position(chunk, 11) == (4, 0)
    assert page_head(chunk, 4) == "head of p4" and page_head(chunk, 3) == ""
    one = {"text": "all on p7", "page_start": 7, "page_end": 7, "char_start": 0, "char_end": 9}
    assert page_break(one) is None and page_position(one, 5) == (7, 5) and page_head(one, 7) == "all on p7"
