"""The regions' table a question comparing regions is answered by (``query.region_pins.listed_regions``), on
passages written as PyMuPDF prints a filing's table: a label on its line, each figure on lines of their own."""

from domain.text import words
from query.region_pins import _first_region_page, listed_regions, named_regions, region_names

BREAKDOWN = ("The breakdown of Revenues is as follows:\n(Dollars in millions)\nFISCAL 2022 FISCAL 2021\n% CHANGE\n"
             "North America\n$\n18,353  $\n17,179\n7 %\nEurope, Middle East & Africa\n12,479\n11,456\n9 %\n"
             "Greater China\n7,547\n8,290\n-9 %\nGlobal Brand Divisions\n102\n25\n308 %\n")


def test_a_table_of_regions_is_read_row_by_row():
    found, at = listed_regions(BREAKDOWN)
    assert found == {("north", "america"), ("europ", "middl", "east", "and", "africa"), ("greater", "china")}
    assert BREAKDOWN[at:].startswith("North America")


def test_one_regions_own_table_lists_no_regions():
    """A region's section prints its products' rows under the region's name: one region, no list of them."""
    own = "NORTH AMERICA\n(Dollars in millions)\nFISCAL 2022 FISCAL 2021\nRevenues by:\nFootwear\n$ 12,228\n$ 11,644\n" \
          "Apparel\n5,492\n5,028\nEquipment\n633\n507\n"
    assert len(listed_regions(own)[0]) <= 1


def test_sentences_stating_each_regions_change_list_them():
    said = ("In 2022, sales by companies in Europe experienced a decline of 0.6% as compared to the prior year. "
            "Sales by companies in the Western Hemisphere, excluding the U.S., achieved growth of 6.5% as compared "
            "to the prior year. Sales by companies in the Asia-Pacific, Africa region experienced a decline of "
            "2.8%.")
    found, at = listed_regions(said)
    assert len(found) == 3 and at == 0
    # a sentence listing the shares of sales by region is one statement, not a list of regions' figures
    shares = "Approximately 25% of sales were in Europe, 6% in the Western Hemisphere and 18% in Asia-Pacific."
    assert listed_regions(shares) == (frozenset(), -1)
    # two regions compared in prose are no list: a table's two rows are
    assert listed_regions(said.rsplit(" Sales by companies in the Asia", 1)[0]) == (frozenset(), -1)


def test_a_quarters_table_is_not_the_years():
    quarter = "Three months ended December 31, 2018\nUnited States\n2,100\n2,000\nAsia Pacific\n1,000\n900\n" \
              "Latin America\n400\n380\n"
    assert len(listed_regions(quarter)[0]) == 3
    assert listed_regions(quarter, months=frozenset({12})) == (frozenset(), -1)
    assert len(listed_regions(quarter, months=frozenset({3}))[0]) == 3


def test_the_table_listing_most_regions_counts_not_the_passage():
    """A note's table of regions and its table of countries below are two lists: the longer one stands."""
    text = ("Net revenues by geographic region:\nAmericas\n$ 4,434\n$ 3,341\nEMEA\n2,680\n2,239\nAsia Pacific\n972\n909\n"
            "Total consolidated net revenues\n8,086\n6,489\n"
            "The Company's net revenues in the U.S. and U.K. were as follows:\nFor the Years Ended December 31,\n"
            "U.S.\n$ 3,500\n$ 3,000\nU.K.\n700\n600\n")
    found, at = listed_regions(text)
    assert found == {("america",), ("emea",), ("asia", "pacif")}
    assert text[at:].startswith("Americas")


def test_region_names_read_longest_first():
    names = region_names()
    assert names.index(("north", "america")) < names.index(("america",))
    assert ("u", "s") in names and ("emea",) in names


def test_a_table_of_percent_changes_by_region_is_one_list():
    """Coca-Cola's table of the factors in each segment's change: percents, dashes, one row per region."""
    text = ("The following table illustrates the impact of key factors on net operating revenues for each of our "
            "operating segments:\nPercent Change 2017 vs. 2016\nVolume\nCurrency\nTotal\nConsolidated\n—%\n(1)%\n"
            "(15)%\nEurope, Middle East & Africa\n2%\n(2)%\n1%\nLatin America\n(3)\n—\n5\nNorth America\n—\n2\n4\n"
            "Asia Pacific\n1\n(4)\n(2)\n")
    assert len(listed_regions(text, years=frozenset({2017}))[0]) == 4


def test_regions_named_as_a_tables_columns_are_its_list():
    """3M prints its business segments as rows and its geographic areas as the columns."""
    text = ("Year 2018 sales results by geographic area/business segment:\nUnited States\nAsia Pacific\n"
            "Europe, Middle East & Africa\nLatin America/Canada\nWorldwide\nNet sales (millions)\n$ 12,840\n"
            "$ 10,254\n$ 7,228\nIndustrial\n3.2 %\n5.1 %\n2.0 %\n")
    assert len(listed_regions(text, measures=(("sale",),))[0]) == 4


def test_a_table_of_another_measure_by_region_is_not_the_one_asked():
    """Nike's breakdown of EBIT lists the regions its breakdown of revenues does: a revenue question reads the
    latter only."""
    ebit = BREAKDOWN.replace("The breakdown of Revenues is as follows:", "The breakdown of earnings before interest "
                             "and taxes is as follows, by our operating segments and Converse:")
    revenue = (("revenu",),)
    assert len(listed_regions(BREAKDOWN, measures=revenue)[0]) == 3
    assert listed_regions(ebit, measures=revenue) == (frozenset(), -1)


def test_the_regions_a_business_names_are_read_from_its_first_regions_page():
    """Where a company operates: the regions Item 1's passage names (PepsiCo's divisions, each a region), and
    the page of its first line naming one: a passage running on to the next page is pinned where they start."""
    passage = {"text": "Our products are enjoyed by consumers in more than 200 countries.\nOur Operations\n"
                       "1) Frito-Lay North America, in the United States and Canada;\n2) Latin America;\n"
                       "3) Europe;\n4) Africa, Middle East and South Asia;\n5) Asia Pacific, Australia and New Zealand",
               "page_start": 3, "page_end": 4, "char_start": 0, "char_end": 182}
    assert {("latin", "america"), ("europ",), ("canada",)} <= set(named_regions(tuple(words(passage["text"]))))
    assert _first_region_page(passage) == 4
    assert _first_region_page({**passage, "char_end": 10}) == 3
    assert _first_region_page({"text": "We sell software.", "page_start": 7, "page_end": 7}) == 7


def test_an_html_tables_rows_of_many_cells_are_rows_not_prose():
    """An HTML table prints each row's cells on one line: a row of five figures says more than a head's words
    and is still a row (Apple's net sales by reportable segment)."""
    html = ("2024 | Change | 2023 | Change | 2022\nAmericas | $167,045 | 3% | $162,560 | (4)% | $169,658\n"
            "Europe | 101,328 | 7% | 94,294 | (1)% | 95,118\nGreater China | 66,952 | (8)% | 72,559 | (2)% | 74,200\n"
            "Japan | 25,052 | 3% | 24,257 | (7)% | 25,977\nTotal net sales | $391,035 | 2% | $383,285 | (3)% | $394,328")
    found, at = listed_regions(html, years=frozenset({2024}), measures=(("net", "sale"),))
    assert found == {("america",), ("europ",), ("greater", "china"), ("japan",)}
    assert html[at:].startswith("Americas")


def test_a_change_asked_is_answered_by_a_list_printing_changes():
    """Alphabet prints its revenues by geography twice: as shares of the whole, then with the "% Change from
    Prior Period". Asked which region grew most, the second answers; asked which had the highest revenues,
    neither is preferred for a change."""
    from query.region_pins import change_answered

    shares = "Year Ended December 31, | 2023 | 2024\nUnited States | 47 % | 49 %\nEMEA | 30 % | 29 %"
    changes = "2024 % Change from Prior Period | As Reported\nUnited States | $ 170,447 | 17 %\nEMEA | 102,127 | 12 %"
    for asked in ("Which geographic region grew Alphabet's revenues the most in 2024?",
                  "Which region had the slowest revenue growth at Medtronic?", "Which region saw revenues fall?",
                  "Which of Kraft Heinz's geographic segments saw net sales decline in 2023?"):
        assert change_answered(asked, changes) and not change_answered(asked, shares), asked
    assert change_answered("Which segment had the highest revenue growth?", "2023 | 2022 | Inc/ (Dec)\nU.S. | 823.1 | 17 %")
    assert not change_answered("Which of Apple's regions had the highest net sales in 2025?", changes)
    assert not change_answered("Which region grew most?", "Growthcorp Europe | 12 | 14")  # a name, no change


def test_segments_named_for_their_regions_are_the_regions_listed():
    """Johnson Controls names its segments for their regions ("Building Solutions North America"): a short
    label closing with a region's name is that region's row; a label with more words after the region is
    not."""
    table = ("(in millions) | 2024 | 2023 | Change\nBuilding Solutions North America | $ 11,348 | $ 10,330 | 10 %\n"
             "Building Solutions Asia Pacific | 2,237 | 2,746 | (19)%\nGlobal Products | 5,071 | 5,159 | (2)%")
    found, at = listed_regions(table)
    assert found == {("north", "america"), ("asia", "pacif")} and table[at:].startswith("Building Solutions North")
    assert listed_regions(table.replace("North America |", "North America Service Centers |")
                          .replace("Asia Pacific |", "Asia Pacific Service Centers |")) == (frozenset(), -1)
