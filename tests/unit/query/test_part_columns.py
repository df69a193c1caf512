"""A part's figure in a table whose columns the parts title (``query.part_columns``), on tiny literal inputs."""

from __future__ import annotations

from domain.text import words

# A segment note's disaggregation of net sales as a PDF's text prints it: each cell on a line of its own
QUARTER = ("Net sales by products and services, contract type, customer, and geographic region were as follows:\n"
           "Quarter Ended June 26, 2022\nAeronautics\nMFC\nRMS\nSpace\nTotal\nNet sales\nProducts\n$\n4,804\n$\n"
           "2,363\n$\n12,761\nTotal net sales\n$\n5,862\n$\n2,747\n$\n4,012\n$\n2,825\n$\n15,446\n")


def _cues(question):
    from query.concepts import concept_map

    return concept_map().metric_cues(question, ["revenue and growth"])


def test_the_metrics_row_under_the_parts_column_title_is_the_parts_figure():
    """A table whose column titles name the part ("Space" among the segments, each on a line of its own, or an
    HTML header's cells) prints its figure on the metric's row ("Total net sales", "Segment net sales"): that
    row's page, for the span asked."""
    from query.part_columns import part_column

    question = "What were Lockheed Martin's Space net sales in the first six months of 2022?"
    asked, parts, cues = frozenset(words(question)), frozenset(words("space")), _cues(question)
    both = {"text": QUARTER + "Six Months Ended June 26, 2022\n" + QUARTER.split("2022\n", 1)[1],
            "page_start": 11, "page_end": 11}
    found = part_column(asked, parts, cues, both, frozenset({6}))
    assert found == (11, 1, "Total net sales", True)
    assert part_column(asked, parts, cues, {**both, "text": QUARTER}, frozenset({6})) is None  # the quarter's only
    assert part_column(asked, parts, cues, {**both, "text": QUARTER}, frozenset({3})) == found
    assert part_column(asked, frozenset(words("aeronautics")), cues, {**both, "text": QUARTER}) == found
    segment = QUARTER.replace("Total net sales", "Segment net sales")  # a segment note's label (Corning's)
    assert part_column(asked, parts, cues, {**both, "text": segment}) == (11, 1, "Segment net sales", True)
    html = {"text": "Ford Blue | Ford Model e | Ford Pro | Total / Second Quarter 2022\n"
                    "External revenues | $23,834 | $1,320 | $12,748 | $40,190\n"
                    "Total revenues | $33,536 | $1,370 | $12,748 | $40,190", "page_start": 20, "page_end": 20}
    pro = "What were Ford Pro's revenues in the second quarter of 2022?"
    assert part_column(frozenset(words(pro)), frozenset(words("pro")), _cues(pro), html) == \
        (20, 1, "Total revenues", True)


def test_no_column_title_names_the_part_or_no_row_of_the_metric_follows():
    """Not the part's figure: the part's name as a row's label (the row rules read those), a column of another
    part, titles over another measure's rows only, percents only, or prose between the titles and the row."""
    from query.part_columns import part_column

    question = "What were Lockheed Martin's Space net sales in 2022?"
    asked, parts, cues = frozenset(words(question)), frozenset(words("space")), _cues(question)
    chunk = {"text": QUARTER, "page_start": 11, "page_end": 11}
    rows = {**chunk, "text": "Net sales\nAeronautics\n$\n5,862\nSpace\n2,825\n2,900"}
    other = {**chunk, "text": QUARTER.replace("Space\n", "Other\n")}
    profit = {**chunk, "text": QUARTER.split("Net sales\nProducts")[0] + "Operating profit\n612\n418\n403\n268\n1,701"}
    shares = {**chunk, "text": QUARTER.split("Net sales\nProducts")[0] + "Net sales\n20 %\n28 %\n8 %\n2 %\n16 %"}
    prose = {**chunk, "text": QUARTER.replace("Net sales\nProducts", "The table above shows the net sales of each of"
                                              " our business segments for the quarter.\nProducts")}
    assert all(part_column(asked, parts, cues, c) is None for c in (rows, other, profit, shares, prose))


def test_the_part_pins_read_a_column_where_no_row_names_the_part():
    """The part pins' reading of a passage (``query.part_pins._part_row``): the part's own row first, the
    metric's row under its column title where no row names it, and no column in a passage read without its
    header (``measures``: a long table's later rows, where no title stands)."""
    from query.part_pins import _part_row

    question = "What were Lockheed Martin's Space net sales in 2022?"
    asked, parts, cues = frozenset(words(question)), frozenset(words("space")), _cues(question)
    columns = {"text": QUARTER, "page_start": 11, "page_end": 11}
    rows = {"text": "Net sales\nAeronautics\n$\n5,862\nSpace\n2,825\n2,900", "page_start": 9, "page_end": 9}
    assert _part_row(asked, parts, cues, rows, False, (), frozenset()) == (9, 1, "Space", True)
    assert _part_row(asked, parts, cues, columns, False, (), frozenset()) == (11, 1, "Total net sales", True)
    assert _part_row(asked, parts, cues, columns, False, cues, frozenset()) is None


def test_a_note_of_a_table_for_each_year_gives_the_year_asked():
    """A note printing the segments as columns gives each year a table of its own, one under the other
    ("YEAR ENDED MAY 31, 2023" over 2022's): the metric's row under the year asked, or the first where the
    question names no year; a head naming no year passes any; the head is read on the row's page (the page
    before's footer, "2023 FORM 10-K 83", heads none of its tables)."""
    from query.part_columns import part_column

    question = "What were Converse's revenues in Nike's fiscal 2022?"
    asked, parts, cues = frozenset(words(question)), frozenset(words("converse")), _cues(question)
    block = "YEAR ENDED MAY 31, {}\n(Dollars in millions)\nNORTH\nAMERICA\nCONVERSE\nTOTAL\nRevenues by:\n" \
            "Footwear\n$ 14,897 $ 2,155 $ 35,290\nTOTAL REVENUES\n$ 21,608 $ 2,427 $ 51,217\n"
    notes = block.format(2023) + "(1) Refer to Note 18 for the transition of the CASA territory.\n" + block.format(2022)
    second = notes.index("YEAR ENDED MAY 31, 2022")  # page 87 opens there: the chunk ends that far into it
    chunk = {"text": notes, "page_start": 86, "page_end": 87, "char_end": len(notes) - second}
    assert part_column(asked, parts, cues, chunk, years=frozenset({2022})) == (87, 1, "TOTAL REVENUES", True)
    assert part_column(asked, parts, cues, chunk, years=frozenset({2023})) == (86, 1, "TOTAL REVENUES", True)
    assert part_column(asked, parts, cues, chunk) == (86, 1, "TOTAL REVENUES", True)
    assert part_column(asked, parts, cues, chunk, years=frozenset({2019})) is None
    # the page before's footer names the filing's year, above a table of another year: no head of this page
    footed = "$ 44,436 $ 2,346 $ 46,710\n2023 FORM 10-K 83\n" + block.format(2021)
    footed = {"text": footed, "page_start": 86, "page_end": 87, "char_end": len(block.format(2021))}
    assert part_column(asked, parts, cues, footed, years=frozenset({2023})) is None
    assert part_column(asked, parts, cues, footed, years=frozenset({2021})) == (87, 1, "TOTAL REVENUES", True)
    undated = {"text": block.split("\n", 1)[1], "page_start": 86, "page_end": 86}
    assert part_column(asked, parts, cues, undated, years=frozenset({2019})) == (86, 1, "TOTAL REVENUES", True)


def test_the_years_a_tables_head_prints():
    """A head's four-digit years, none where it prints none."""
    from domain.periods import head_years

    assert head_years(["YEAR ENDED MAY 31, 2022", "(Dollars in millions)"]) == frozenset({2022})
    assert head_years(["Fiscal 2017", "Digital Media"]) == frozenset({2017})
    assert head_years(["June 26,", "2022", "June 27,", "2021"]) == frozenset({2021, 2022})
    assert head_years(["Three months ended", "(in millions)", "Net sales 12,345"]) == frozenset()
