"""A part of the company a question names, and the table rows and MD&A sections that print its figure
(``query.parts``), on tiny literal inputs."""

from __future__ import annotations


def test_a_part_is_a_name_the_question_writes_with_a_capital():
    """"Theme Parks", "Diabetes", "Google Cloud" are parts; a line item asked in lower case, a sentence's first
    word, the periods and the words that say a part is one without naming it are not; a question typed all in
    lower case says no case, so its other words may all be parts."""
    from domain.periods import PERIOD_WORDS
    from domain.text import words
    from query.parts import named_parts

    periods = PERIOD_WORDS
    assert named_parts("What was the revenue of Theme Parks segment in 2023?", periods) == frozenset(words("theme parks"))
    assert named_parts("Diabetes revenue in Q2 2023. Use the EPS table.", periods) == frozenset()  # first words
    assert named_parts("What was Medtronic's Diabetes revenue in the Second Quarter?", periods | {"medtron"}) == \
        frozenset(words("diabetes"))
    assert named_parts("What was Amazon's free cash flow for the trailing twelve months?", frozenset(words("amazon"))) \
        == frozenset()
    # typed all in lower case: every word may be a part but the asking, joining and ignored ones
    assert named_parts("what was google cloud's operating income in 2023?", periods | frozenset(words("operating income"))) \
        == frozenset(words("google cloud"))
    # the word after an initialism's or a company abbreviation's dot is inside its sentence: a part's lead
    assert words("domestic")[0] in named_parts("What was UPS's U.S. Domestic Package revenue in 2023?", periods)
    assert words("google")[0] in named_parts("What did Alphabet Inc. Google Cloud earn in 2023?", periods)


def test_a_part_said_in_lower_case_as_where_a_whole_came_from():
    """"came from footwear", "came from its domestic streaming segment": the source is the part when no word
    has a capital; not a split asked ("came from each of its segments"), nor a period, nor the company."""
    from domain.periods import PERIOD_WORDS
    from domain.text import words
    from query.parts import named_parts

    nike = PERIOD_WORDS | frozenset(words("nike revenues"))
    assert named_parts("What percentage of NIKE's fiscal 2019 revenues came from footwear?", nike) == \
        frozenset(words("footwear"))
    assert named_parts("What share of its 2016 revenues came from its domestic streaming segment in 2016?",
                       PERIOD_WORDS) == frozenset(words("domestic streaming"))
    assert named_parts("What share of its fiscal 2024 sales came from its largest customer?", PERIOD_WORDS) == \
        frozenset(words("largest customer"))
    assert named_parts("What share of Tesla's 2023 revenues came from each of its segments?", PERIOD_WORDS |
                       frozenset(words("tesla"))) == frozenset()
    assert named_parts("How much of its revenue came from Walmart U.S. in fiscal 2018?", PERIOD_WORDS) == \
        frozenset(words("walmart u.s."))  # a name with capitals is read as ever
    assert named_parts("How much of Meta's revenue came from 2023 onward?", PERIOD_WORDS | {"meta"}) == frozenset()


def test_a_parts_figure_is_read_off_the_row_its_name_labels():
    """MD&A's table of segments prints a row labelled by the part (its label all the question's words), in a
    table naming the metric by one of its cues; a row of another part, the metric's own row, prose, a row
    with one figure and a table of another measure are not it."""
    from domain.text import words
    from query.concepts import concept_map
    from query.parts import part_row

    question = "What was the revenue of Comcast's Theme Parks segment in 2023?"
    cues = concept_map().metric_cues(question, ["revenue and growth"])
    assert words("net sales") in cues and words("revenue") in cues
    asked, parts = frozenset(words(question)), frozenset(words("theme parks"))
    table = {"text": "Year ended December 31 (in millions) | 2023 | 2022 / Revenue\nMedia | $25,355 | $26,719\n"
                     "Theme Parks | 8,947 | 7,541\nEliminations | (2,800) | (3,442)", "page_start": 43, "page_end": 43}
    assert part_row(asked, parts, cues, table) == (43, 2, "Theme Parks", True)
    sales = {"text": "Net Sales\nDiabetes\n2,488\n2,262\nTotal", "page_start": 34, "page_end": 34}
    diabetes = "What was the revenue of Medtronic's Diabetes segment in fiscal 2024?"
    assert part_row(frozenset(words(diabetes)), frozenset(words("diabetes")), cues, sales) == (34, 1, "Diabetes", True)
    other_measure = {**table, "text": table["text"].replace("Revenue", "Comparable sales")}
    prose = {"text": "Revenue at Theme Parks grew 18.6% to $8,947 million in 2023.", "page_start": 48, "page_end": 48}
    one_cell = {"text": "Revenue\nTheme Parks | 8,947", "page_start": 9, "page_end": 9}
    metric_row = {"text": "Revenue | $8,947 | $7,541", "page_start": 48, "page_end": 48}
    assert all(part_row(asked, parts, cues, c) is None for c in (other_measure, prose, one_cell, metric_row))
    direct = "What were NIKE Direct revenues in fiscal 2021?"  # the label may say the metric its own way
    brand = {"text": "Revenues\nSales to Wholesale Customers | 25,898 | 23,156\nSales through NIKE Direct | 16,370 | 12,382",
             "page_start": 33, "page_end": 33}
    assert part_row(frozenset(words(direct)), frozenset(words("direct")), cues, brand) == \
        (33, 1, "Sales through NIKE Direct", True)
    pfizer = "What were Pfizer's Paxlovid revenues in the second quarter of 2023?"  # an indication under the name
    products = {"text": "Revenues\nPaxlovid\nCOVID-19 in certain high-risk patients\n143\n8,115\nEliquis\n1,762",
                "page_start": 38, "page_end": 38}
    assert part_row(frozenset(words(pfizer)), frozenset(words("paxlovid")), cues, products) == (38, 1, "Paxlovid", True)
    # a label opening with the part and closing with the metric may say of what kind between; not one closing
    # with another measure
    comirnaty = "What were Pfizer's Comirnaty revenues in Q2 2023?"
    kinds = {"text": "Revenues\nComirnaty direct sales and alliance revenues\n1,488\n8,848", "page_start": 38,
             "page_end": 38}
    spent = {**kinds, "text": "Revenues\nComirnaty direct sales and alliance payments\n1,488\n8,848"}
    asked_c, part_c = frozenset(words(comirnaty)), frozenset(words("comirnaty"))
    assert part_row(asked_c, part_c, cues, kinds) == (38, 1, "Comirnaty direct sales and alliance revenues", True)
    assert part_row(asked_c, part_c, cues, spent) is None
    # a long table's later passage, far below the header naming the measure: given every measure's cues, a row
    # labelled by the part's name alone counts in a passage naming none, its cells amounts (not a patent table's
    # years); not a label saying more, nor a passage naming another measure (a table of operating income)
    xarelto = "What were Johnson & Johnson's Xarelto sales in fiscal 2022?"
    asked_x, part_x = frozenset(words(xarelto)), frozenset(words("xarelto"))
    later = {"text": "     Worldwide\n3,887\n4,119\n     XARELTO\n     U.S.\n2,473\n2,438\n2,345", "page_start": 83,
             "page_end": 83}
    years = {**later, "text": "Patent expiration\nXarelto\n2025\n2028\n2025"}
    more = {**later, "text": "XARELTO U.S. litigation accrual\n2,473\n2,438"}
    assert part_row(asked_x, part_x, cues, later) is None
    measures = concept_map().measure_cues()
    other = {**later, "text": "Operating income\n" + later["text"]}
    changes = {**later, "text": "     XARELTO\n(1)\n—\n4 %\n(2)"}
    assert part_row(asked_x, part_x, cues, later, measures=measures) == (83, 1, "XARELTO", True)
    assert all(part_row(asked_x, part_x, cues, c, measures=measures) is None for c in (years, more, other, changes))
    headed = {**later, "text": "Revenues\n" + later["text"]}  # the question's own words found it
    assert part_row(asked_x, part_x, cues, headed) == (83, 1, "XARELTO", True)
    assert part_row(asked_x, part_x, cues, headed, measures=measures) is None
    # a label listing one product's names between slashes (a brand and its generic name, its names by market)
    # is the part's row when one of the names is the part; not when no name is the part alone (headless)
    slashed = {"text": "Revenues\n     ZYTIGA /abiraterone acetate\n2,297 \n2,470 \n(7.0)", "page_start": 29,
               "page_end": 29}
    assert part_row(frozenset(words("What were Zytiga sales in 2021?")), frozenset(words("zytiga")), cues, slashed) \
        == (29, 1, "ZYTIGA /abiraterone acetate", True)
    invega = frozenset(words("invega sustenna"))
    markets = {"text": "       INVEGA SUSTENNA / XEPLION / INVEGA\nTRINZA / TREVICTA\n     U.S.\n2,550 \n2,314 \n2,107",
               "page_start": 84, "page_end": 84}
    assert part_row(frozenset(words("Invega Sustenna sales 2021")), invega, cues, markets, measures=measures) == \
        (84, 2, "INVEGA SUSTENNA / XEPLION / INVEGA", True)
    combined = {**markets, "text": "INVEGA SUSTENNA and XEPLION / TREVICTA\n2,550 \n2,314"}
    assert part_row(frozenset(words("Invega Sustenna sales 2021")), invega, cues, combined, measures=measures) is None
    # a slash pairing a sign's two words is one line item's label, not names ("costs/(credits)" for Ford Credit)
    signed = {**slashed, "text": "Revenues\nAmortization of prior service costs/(credits)\n(3)\n(5)"}
    assert part_row(frozenset(words("Ford Credit revenues")), frozenset(words("credit")), cues, signed) is None
    # of a passage's rows, the one naming most of the part: a segment note prints a division's row above the
    # segment's total, whose label adds only a part's total words; not a count's total ("stores")
    te = "What were 3M's Transportation and Electronics segment net sales in 2022?"
    divisions = {"text": "Net Sales\nElectronics\n3,359\n3,673\nTotal Transportation and Electronics Business Segment"
                         "\n8,902\n9,262", "page_start": 59, "page_end": 59}
    assert part_row(frozenset(words(te)), frozenset(words("transportation electronics")), cues, divisions) == \
        (59, 2, "Total Transportation and Electronics Business Segment", True)
    stores = {**divisions, "text": "Revenue\nTotal Domestic segment stores\n1,000\n1,026"}
    assert part_row(frozenset(words("Best Buy's Domestic segment revenue")), frozenset(words("domestic")), cues,
                    stores) is None
    # only a measure long tables list part by part (sales) is read off such rows: not a count's, a percent's
    assert concept_map().lists_parts(["revenue and growth"])
    assert not concept_map().lists_parts(["comparable sales"]) and not concept_map().lists_parts(["margins"])
    # a metric's word the question writes with a capital is no part: the metric's own row is not a part's
    capex = "What was 3M's Capital Expenditure in 2018?"
    capex_cues = concept_map().metric_cues(capex, ["capital spending"])
    segment_note = {"text": "Capital Expenditures\n1,577\n1,373", "page_start": 125, "page_end": 125}
    assert part_row(frozenset(words(capex)), frozenset(words("expenditure")), capex_cues, segment_note) is None
    # a question typed in lower case: the row must write the part as a name, not a line item's sentence case
    typed = "free cash flow of theme parks 2023"
    named_row = {"text": "Revenue\nTheme Parks | 8,947 | 7,541", "page_start": 43, "page_end": 43}
    line_item = {"text": "Revenue\nFree cash flow | 8,947 | 7,541", "page_start": 44, "page_end": 44}
    parts_typed = frozenset(words("free theme parks"))
    assert part_row(frozenset(words(typed)), parts_typed, cues, named_row, titled=True) == (43, 2, "Theme Parks", True)
    assert part_row(frozenset(words(typed)), parts_typed, cues, line_item, titled=True) is None
    assert part_row(frozenset(words(typed)), parts_typed, cues, line_item) == (44, 1, "Free cash flow", True)



def test_a_parts_row_is_pinned_once_in_mdna_and_once_in_the_notes():
    """A 10-K prints a product's sales in MD&A's table and again in the note's table of products: of the rows
    found, the one naming most of the part in each place, MD&A's first, then the first page. A row in the
    business or risk factors Items is pinned only where neither place prints one (as a release's table)."""
    from kernel.search import Hit
    from query.part_pins import MDNA, rows_per_place, unpinned
    from query.parts import PartRow

    def row(item: str | None, page: int, named: int = 1, amount: bool = True) -> tuple:
        return PartRow(page, named, "ZYTIGA", amount), Hit(f"c{item}-{page}", 1.0, {"item": item, "page_start": page})

    rows = [row("8", 84), row("7", 29), row("8", 83, 2), row("7", 31), row("1A", 12), row("8", 120)]
    assert [found[0] for found, _ in rows_per_place(rows)] == [29, 83]
    assert [found[0] for found, _ in rows_per_place(rows[:1] + rows[4:5])] == [84]
    assert [found[0] for found, _ in rows_per_place([row("1A", 12), row(None, 9)])] == [9]
    assert rows_per_place([]) == []
    # a row of amounts before an earlier page's row of the parts' percent changes
    assert [found.page for found, _ in rows_per_place([row("7", 20, amount=False), row("7", 21)])] == [21]
    # once MD&A's row is pinned, the whole document's search reads the notes only, not Item 1A's table again
    hits = [hit for _, hit in rows]
    assert [h.source["page_start"] for h in unpinned(hits, {MDNA})] == [84, 83, 120]
    assert len(unpinned(hits, set())) == len(hits)


def test_a_parts_section_is_headed_by_its_name_closing_a_text_chunk():
    """MD&A's section on a segment opens with its name on a line of its own ("AEROSPACE", "Theme Parks Segment
    Results of Operations") at a text chunk's end, its table next; a sentence, a line with figures, a heading
    of another part or one far above the chunk's end are not it, nor a table chunk."""
    from domain.text import words
    from query.parts import part_heading

    aerospace = frozenset(words("aerospace"))
    assert part_heading(aerospace, {"text": "found in Note L.\n29\nAEROSPACE"}) == "AEROSPACE"
    assert part_heading(aerospace, {"text": "AEROSPACE\nNet Sales\n549755814952\n549755814953"}) == "AEROSPACE"
    parks = frozenset(words("theme parks"))
    assert part_heading(parks, {"text": "Other expenses.\nTable of Contents\nTheme Parks Segment Results of Operations"}) \
        == "Theme Parks Segment Results of Operations"
    assert part_heading(aerospace, {"text": "Aerospace revenue rose on higher deliveries."}) is None
    assert part_heading(aerospace, {"text": "Aerospace 1,953 1,867"}) is None
    # a table's row label over its figures, cut near the chunk's end, heads no section; a page number after
    # a heading is no row
    assert part_heading(aerospace, {"text": "Marine\n3.3\n0.3\nAerospace\n \n4.8\n —\n(2.4)"}) is None
    assert part_heading(aerospace, {"text": "results.\nAerospace\n22"}) == "Aerospace"
    assert part_heading(aerospace, {"text": "MARINE SYSTEMS"}) is None
    assert part_heading(aerospace, {"text": "AEROSPACE\nOne.\nTwo.\nThree.\nFour."}) is None
    assert part_heading(aerospace, {"text": "AEROSPACE", "kind": "table"}) is None


def test_a_parts_title_over_its_table_inside_one_chunk_gives_the_rows_after_it():
    """Best Buy's MD&A: "Domestic Segment Performance Summary" over the segment's rows in one chunk, then the
    International segment's table with the same rows: the title of the part asked, and only rows after it."""
    from domain.text import words
    from query.parts import part_title
    from query.statements import row_page

    domestic = frozenset(words("Domestic"))
    text = ("Comparable sales growth\n9.9%\n8.8%\nDomestic Segment Performance Summary\n2019\n2018\n"
            "Comparable sales growth (1)\n4.8%\n5.6%\nInternational Segment Performance Summary")
    chunk = {"text": text, "page_start": 30, "page_end": 30, "char_start": 0, "char_end": len(text)}
    title, after = part_title(domestic, chunk)
    assert title == "Domestic Segment Performance Summary" and text[after:].startswith("2019")
    sales = tuple(words("comparable sales"))
    assert row_page(sales, chunk) == 30 and row_page(sales, chunk, after=after) == 30
    assert row_page(sales, {**chunk, "text": text[:after]}, after=after) is None
    assert part_title(domestic, {"text": "Capital expenditures\nDomestic\n$\n770"}) is None  # a row's label
    assert part_title(domestic, {"text": "Domestic Segment Performance Summary", "kind": "table"}) is None
    assert part_title(frozenset(words("International")), chunk)[0] == "International Segment Performance Summary"


def test_a_parts_table_found_without_its_heading_is_its_section_when_the_chunk_before_closes_with_it():
    """The search finds a segment's results table but not the passage its heading closes (a passage on another
    segment's programs): the table is the part's section when the chunk before it, read by id, ends with the
    part's heading; another part's heading, or a table printing no row of the metric, is not."""
    from domain.text import words
    from query.concepts import concept_map
    from query.part_pins import table_after_heading

    cues = concept_map().metric_cues("What was Acme Global Services' operating margin?", ["margins"])
    parts = frozenset(words("global services"))

    def chunk(seq: int, kind: str, text: str) -> dict:
        return {"chunk_id": f"ACME_10Q:part1item2:{seq:04d}", "doc_id": "ACME_10Q", "item": "part1item2",
                "seq": seq, "kind": kind, "text": text, "page_start": 46, "page_end": 46}

    table = chunk(54, "table", "Revenues | $4,746 | $4,298\nEarnings from operations | $856 | $728\n"
                  "Operating margins | 18.0% | 16.9%")
    heading = chunk(53, "text", "losses in future periods.\n44\nTable of Contents\nGlobal Services\nResults of Operations")
    found = table_after_heading(parts, cues, [table], {heading["chunk_id"]: heading})
    assert found == ((table, 46), "Global Services")
    other = chunk(53, "text", "losses in future periods.\nDefense, Space & Security")
    assert table_after_heading(parts, cues, [table], {other["chunk_id"]: other}) is None
    backlog = chunk(54, "table", "Contractual backlog | $18,455 | $17,900\nUnobligated backlog | $1,200 | $900")
    assert table_after_heading(parts, cues, [backlog], {heading["chunk_id"]: heading}) is None
    assert table_after_heading(parts, cues, [table], {}) is None
    # the section's table for another span than the question asks (a 10-Q's nine months' section) is not it
    nine = chunk(54, "table", "Nine Months Ended\n" + table["text"])
    assert table_after_heading(parts, cues, [nine], {heading["chunk_id"]: heading}, frozenset({9}))
    assert table_after_heading(parts, cues, [nine], {heading["chunk_id"]: heading}, frozenset({3})) is None
    assert table_after_heading(parts, cues, [table], {heading["chunk_id"]: heading}, frozenset({3}))


def test_a_parts_row_is_of_the_period_asked_and_prints_an_amount():
    """A 10-K's MD&A prints the fourth quarter's table of segments before the year's, a release its quarter's
    before the six months': a row whose table's head prints only another span than the question's is not
    read; one whose head names no span, or the span asked among others, is. Of a passage's rows, one printing
    an amount before one printing the parts' percent changes."""
    from domain.text import words
    from query.concepts import concept_map
    from query.parts import part_row

    question = "What were 3M's Health Care segment net sales in 2018?"
    cues = concept_map().metric_cues(question, ["revenue and growth"])
    asked, parts = frozenset(words(question)), frozenset(words("health care"))
    fourth = {"text": "Fourth-quarter 2018 sales by business segment:\n \nThree months ended\n \nDecember 31, 2018\n"
                      "Net Sales\nIndustrial\n$ 2,952\n2,961\nHealth Care\n1,520\n1,484", "page_start": 20,
              "page_end": 20}
    year = {**fourth, "text": fourth["text"].split("Net Sales")[1], "page_start": 21, "page_end": 21}
    assert part_row(asked, parts, cues, fourth, months=frozenset({12})) is None
    assert part_row(asked, parts, cues, fourth, months=frozenset({3})) == (20, 2, "Health Care", True)
    assert part_row(asked, parts, cues, fourth) == (20, 2, "Health Care", True)  # no span asked
    assert part_row(asked, parts, cues, {**year, "text": "Net Sales" + year["text"]}, months=frozenset({12})) == \
        (21, 2, "Health Care", True)  # a head naming no span: any
    # a passage opening inside the table: its head is the chunk before's
    rows_on = {**fourth, "text": "Health Care\n1,520\n1,484"}
    assert part_row(asked, parts, cues, {**rows_on, "text": "Net Sales\n" + rows_on["text"]},
                    months=frozenset({12}), before=fourth["text"].split("Net Sales")[0]) is None
    assert part_row(asked, parts, cues, {**rows_on, "text": "Net Sales\n" + rows_on["text"]}, months=frozenset({12}))
    both = {**fourth, "text": fourth["text"].replace("Three months ended", "Quarters Ended\nSix Months Ended")}
    assert part_row(asked, parts, cues, both, months=frozenset({6})) == (20, 2, "Health Care", True)
    changes = {"text": "Net Sales\nSales change analysis\nHealth Care\n4.8\n(2.4)\n2.4\nTotal Company\n$ 32,765\n"
                       "Health Care\n6,021\n5,853", "page_start": 20, "page_end": 20}
    assert part_row(asked, parts, cues, changes) == (20, 2, "Health Care", True)
    assert part_row(asked, parts, cues, {**changes, "text": changes["text"].rsplit("Total", 1)[0]}) == \
        (20, 2, "Health Care", False)
