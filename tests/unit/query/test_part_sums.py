"""Tables of a whole's parts (``query.part_sums.summed_parts``), on passages written as PyMuPDF prints a
filing's table (a label on its line, each figure on lines of their own) and as a table passage prints one
(cells after bars)."""

from query.part_sums import summed_parts

SEGMENTS = ("Summary of Business Segment Data\n(Dollars in millions)\nYears ended December 31,\n2022\n2021\n"
            "Revenues:\nCommercial Airplanes\n$25,867\n$19,493\nDefense, Space & Security\n23,162\n26,540\n"
            "Global Services\n17,611\n16,328\nBoeing Capital\n199\n272\nUnallocated items, eliminations and other\n(231)\n(347)\n"
            "Total revenues\n$66,608\n$62,286\n(Loss)/earnings from operations:\nCommercial Airplanes\n($2,370)\n"
            "($6,475)\nDefense, Space & Security\n(3,544)\n1,544\nSegment operating loss\n(5,914)\n(4,931)\n")


def test_rows_adding_up_to_their_total_row_are_a_table_of_parts():
    found = summed_parts(SEGMENTS)
    assert [(s.parts, s.total, s.label) for s in found] == [(5, 66608.0, "Total revenues")]
    assert SEGMENTS[found[0].first:].startswith("Commercial Airplanes")
    assert "Revenues:" in found[0].caption and "Summary of Business Segment Data" in found[0].caption


def test_a_statement_subtracting_its_lines_and_a_total_not_their_sum_are_none():
    statement = "Net sales\n$ 1,000\nCost of sales\n(600)\nGross profit\n400\nTotal other income\n50\n"
    assert summed_parts(statement) == []
    assert summed_parts("Product A\n100\nProduct B\n200\nTotal net sales\n310\n") == []


def test_a_subtotal_that_adds_up_stands_for_its_rows_and_a_dash_is_zero():
    nested = ("Net sales by reportable segment were as follows, in millions of dollars:\nDisplay\n$ 3,700\nCarrier network\n3,200\nEnterprise network\n1,149\nTotal Optical Communications\n"
              "4,349\nAll other\n—\n12\nTotal net sales\n8,049\n")
    found = summed_parts(nested)
    assert [(s.parts, s.total) for s in found] == [(2, 4349.0), (3, 8049.0)]
    assert nested[found[1].first:].startswith("Display") and "Net sales by reportable segment" in found[1].caption


def test_a_table_passage_with_bars_and_a_footnote_mark_in_a_label():
    table = ("Quarter Ended June 30, | 2023 | 2022\nDigital online channels (1) | $2,930 | $1,672\n"
             "Retail channels | 702 | 39\nOther (2) | 57 | 92\nTotal consolidated net revenues | $3,689 | $1,803\n")
    assert [(s.parts, s.total) for s in summed_parts(table)] == [(3, 3689.0)]


def test_prose_between_rows_ends_the_table():
    broken = "Product A\n100\nWe sell many products in many markets around the whole world today.\nProduct B\n200\nTotal\n300\n"
    assert summed_parts(broken) == []


def test_a_head_repeated_inside_a_table_is_no_row():
    """A table passage the chunking split repeats its head ("Net Revenue | ... / 2023 | 2022"): years, no row."""
    split = ("Net Revenue | Operating Profit / 2023 | 2022 | 2023 | 2022\nFLNA | $24,914 | $23,291 | $6,755 | $6,135\n"
             "Net Revenue | Operating Profit / 2023 | 2022 | 2023 | 2022\nAPAC | 4,803 | 4,787 | 713 | 537\n"
             "Total division | 29,717 | 28,078 | 7,468 | 6,672\n")
    assert [(s.parts, s.total) for s in summed_parts(split)] == [(2, 29717.0)]


def test_neighbouring_chunks_share_their_overlap_once():
    """A table the chunking split runs on into the next chunk, which repeats the last characters of the one
    before (``schemas.chunks.shared_chars``): joined without them, no row is added twice."""
    from schemas.chunks import shared_chars

    first = {"kind": "text", "page_start": 19, "page_end": 20, "char_start": 2547, "char_end": 934,
             "text": "Safety\n11,607\nTransportation and Electronics\n9,602"}
    after = {"kind": "text", "page_start": 20, "page_end": 20, "char_start": 917, "char_end": 1565,
             "text": "Electronics\n9,602\nTotal Company\n21,209"}
    cut = shared_chars(first, after)
    assert cut == 17 and [(s.parts, s.total) for s in summed_parts(f"{first['text']}\n{after['text'][cut:]}")] == [(2, 21209.0)]
    assert shared_chars(first, {**after, "page_start": 21}) == 0 and shared_chars(first, {**after, "kind": "table"}) == 0


def test_a_total_labelled_by_the_measure_alone_and_a_subtotals_parts():
    """Home Depot's product lines add up to a row labelled "Net sales" (``wholes``: the measure's name, as
    stems); Nike's regions add up to "Total NIKE Brand", which with Converse adds up to the whole, whose
    parts are then the regions and Converse (``PartSum.labels``)."""
    lines = "Building Materials | $57,039\nDécor | 50,295\nHardlines | 45,335\nNet sales | $152,669\n"
    assert summed_parts(lines) == []
    assert [(s.parts, s.total) for s in summed_parts(lines, (("net", "sale"),))] == [(3, 152669.0)]
    nested = ("North America\n$ 21,608\nGreater China\n7,248\nTotal NIKE Brand\n28,856\nConverse\n2,427\n"
              "TOTAL NIKE, INC. REVENUES\n31,283\n")
    whole = summed_parts(nested)[-1]
    assert whole.parts == 2 and whole.labels == ("North America", "Greater China", "Converse")


def test_passages_run_on_with_where_each_starts():
    """A passage closing on a table's caption runs on into the table passage after it, and a table passage
    into the table passages after it (``query.sum_pins._joined``); a text passage after those does not."""
    from query.sum_pins import _joined

    caption = {"chunk_id": "a", "kind": "text", "text": "The following table presents net sales by line:"}
    rows = [{"chunk_id": "b", "kind": "table", "text": "Hardlines | 45"},
            {"chunk_id": "c", "kind": "table", "text": "Decor | 50\nNet sales | 95"},
            {"chunk_id": "d", "kind": "text", "text": "Tools | 5"}]
    pieces, text = _joined(caption, rows)
    assert [c["chunk_id"] for c, _ in pieces] == ["a", "b", "c"] and "Tools" not in text
    assert all(text[at:].startswith(c["text"]) for c, at in pieces)


def _table(total: float, labels: tuple[str, ...]):
    from query.part_sums import PartSum

    return PartSum(len(labels), total, "Total", 0, "", labels)


def test_the_tables_chosen_add_up_to_the_whole_in_each_place():
    """One table in MD&A and one in the notes, the larger total first: the total the tables of most pages add
    up to (the revenue), not a lone larger one (employees by region), nor one segment's, tabulated by each of
    its types on one page; products asked, a table of regions comes last (``query.sum_pins.chosen_tables``)."""
    from query.sum_pins import chosen_tables

    segments = ("Aeronautics", "Space", "Missiles")
    tables = [(_table(96163, ("United States", "Asia Pacific")), "MD&A", 36),
              (_table(32136, segments), "MD&A", 20),
              (_table(32136, segments), "notes", 131),
              (_table(26266, ("Products", "Services")), "notes", 84),
              (_table(26266, ("Fixed-price", "Cost-reimbursable")), "notes", 84)]
    assert chosen_tables(tables, products=False) == [1, 2]
    regions = [(_table(383, ("Americas", "Europe", "Greater China")), "MD&A", 16),
               (_table(383, ("iPhone", "Mac", "Services")), "MD&A", 17)]
    assert chosen_tables(regions, products=True) == [1] and chosen_tables(regions, products=False) == [0]
    assert chosen_tables([], products=False) == []


def test_shares_adding_up_to_a_hundred_percent_are_a_table_of_parts():
    """Colgate-Palmolive prints its classes of products' shares of net sales, not their amounts: the shares
    add up to "Total | 100%", in a table passage and as PyMuPDF prints a page ("42" over a line of "%"); a
    row of percents between a table's amounts is no part of the amounts' sum."""
    passage = ("2023 | 2022 | 2021\nOral Care | 42% | 43% | 44%\nPersonal Care | 19% | 19% | 20%\n"
               "Home Care | 17% | 17% | 17%\nPet Nutrition | 22% | 21% | 19%\nTotal | 100% | 100% | 100%")
    page = "2023\n2022\nOral Care\n42 \n%\n43 \n%\nPersonal Care\n19 \n%\nHome Care\n17\n%\nPet Nutrition\n22\n%\nTotal\n100 \n%\n"
    for text in (passage, page):
        found = summed_parts(text)
        assert [(s.parts, s.total, s.shares) for s in found] == [(4, 100.0, True)]
        assert found[0].labels == ("Oral Care", "Personal Care", "Home Care", "Pet Nutrition")
    amounts = "Stores | $7,029\n% of total sales | 78.5%\nDirect | 1,929\nTotal sales | $8,958\n"
    assert [(s.parts, s.total, s.shares) for s in summed_parts(amounts)] == [(2, 8958.0, False)]
    assert summed_parts("Oral Care | 42%\nPersonal Care | 19%\nTotal | 100%") == []  # 61%, no whole


def test_a_table_of_shares_is_chosen_beside_the_amounts_in_its_place():
    """The parts' shares in percent, which the question asks, are pinned beside the amounts' table of the
    same place (Colgate-Palmolive's classes of products, printed in shares only), after it."""
    from query.part_sums import PartSum
    from query.sum_pins import chosen_tables

    shares = PartSum(4, 100.0, "Total", 0, "", ("Oral Care", "Personal Care", "Home Care", "Pet Nutrition"), True)
    tables = [(shares, "notes", 78), (_table(15167, ("North America", "Latin America", "Europe")), "notes", 115)]
    assert chosen_tables(tables, products=True) == [1, 0]


def test_a_table_passages_caption_is_the_text_before_the_tables_between():
    """An Item's chunks follow the page, and a table the conversion could not place sits at its page's start:
    Colgate-Palmolive's shares of net sales come after four cash-flow tables of the page before, and their
    caption is the text passage before those (``query.pin_policy._nearest_text``, nearest first)."""
    from query.pin_policy import _nearest_text

    cash = {"kind": "table", "text": "Income taxes paid | $937"}
    caption = {"kind": "text", "text": "accounted for the following percentages of worldwide Net sales:"}
    assert _nearest_text([cash, cash, caption, {"kind": "text", "text": "earlier"}]) == caption["text"]
    assert _nearest_text([cash]) == cash["text"] and _nearest_text([cash, cash]) == "" and _nearest_text([]) == ""


def test_a_caption_runs_on_past_the_tables_of_its_pages_start():
    """A table the conversion could not place is set at its page's start: in the Item's order it follows the
    text run of its page, between a caption and the table under it (``schemas.chunks.placed_before``), and
    the caption's passage runs on past it (``query.sum_pins._joined``)."""
    from query.sum_pins import _joined
    from schemas.chunks import placed_before

    caption = {"chunk_id": "a", "kind": "text", "page_start": 78, "page_end": 78, "char_start": 625, "char_end": 1558,
               "text": "accounted for the following percentages of worldwide Net sales:"}
    unplaced = {"chunk_id": "b", "kind": "table", "page_start": 77, "page_end": 77, "char_start": 0,
                "char_end": 2530, "text": "Income taxes paid | $937"}
    shares = {"chunk_id": "c", "kind": "table", "page_start": 78, "page_end": 78, "char_start": 1562,
              "char_end": 1721, "text": "Oral Care | 42%\nPet Nutrition | 58%\nTotal | 100%"}
    assert placed_before(caption, unplaced) and not placed_before(caption, shares)
    assert not placed_before(unplaced, shares)  # a table's run is no caption's
    pieces, text = _joined(caption, [unplaced, unplaced, shares])
    assert [c["chunk_id"] for c, _ in pieces] == ["a", "c"] and "Income taxes" not in text
    assert [(s.parts, s.shares) for s in summed_parts(text)] == [(2, True)]


def test_the_wholes_table_comes_before_products_of_a_lesser_total():
    """Asked for products, General Mills' segments (named by regions, adding up to net sales on two pages)
    stay chosen over its joint ventures' net sales, no regions but a total no other page adds up to; Nike's
    product lines of a total another page adds up to too come before its regions."""
    from query.sum_pins import chosen_tables

    segments = ("North America Retail", "International", "Pet", "North America Foodservice")
    tables = [(_table(18992.8, segments), "MD&A", 20), (_table(18992.8, segments), "notes", 83),
              (_table(2134.3, ("CPW", "HDJ")), "notes", 55)]
    assert chosen_tables(tables, products=True) == [0, 1]
    regions = ("North America", "Greater China", "Asia Pacific")  # Nike: products of a total two pages add up to
    nike = [(_table(48763, regions), "notes", 89), (_table(48763, regions), "MD&A", 35),
            (_table(21608, ("Footwear", "Apparel", "Equipment")), "notes", 86), (_table(21608, regions), "MD&A", 40)]
    assert chosen_tables(nike, products=True) == [1, 2]


def test_a_measures_row_across_the_parts_columns_adding_up_to_the_last():
    """A segment note whose columns are the segments prints the measure's row across them to a
    "Consolidated" column (Walmart's), in a table passage and as PyMuPDF prints a page: the row is a table
    of parts; a row of quarters adding up to the year's column, and a statement's row of years, are none."""
    wholes = (("net", "sale"), ("revenu",))
    passage = ("(Amounts in millions) | Walmart U.S. | Walmart International | Sam's Club | Corporate | Consolidated\n"
               "Fiscal Year Ended January 31, 2024\nNet sales | $441,817 | $114,641 | $86,179 | $— | $642,637\n"
               "Operating income (loss) | 22,154 | 4,909 | 2,192 | (2,243) | 27,012")
    page = "Walmart U.S.\nSam's Club\nConsolidated\nNet sales\n$\n441,817\n$\n114,641\n$\n86,179\n$\n—\n$\n642,637\n"
    for text in (passage, page):
        found = summed_parts(text, wholes)
        assert [(s.parts, s.total, s.label) for s in found] == [(4, 642637.0, "Net sales")]
        assert text[found[0].first:].startswith("Net sales")
    assert summed_parts(passage) == []  # no measure asked
    quarters = "Quarter ended | March 31 | June 30 | September 30 | December 31 | Year\nNet sales | 100 | 110 | 120 | 130 | 460"
    assert summed_parts(quarters, wholes) == []
    third = "Europe | Asia | Consolidated\nThird party | 7,332 | 3,956 | 11,288\nTotal net operating revenues | 7,374 | 4,029 | 11,403"
    assert [(s.parts, s.total) for s in summed_parts(third, wholes)] == [(2, 11403.0)]  # "Third party": no quarter
    assert summed_parts("2023 | 2022 | 2021\nNet sales | 19,457 | 17,967 | 17,421", wholes) == []
