"""The regions' table a question comparing regions is answered by (``query.region_pins.listed_regions``), on
passages written as PyMuPDF prints a filing's table: a label on its line, each figure on lines of their own."""

from query.region_pins import listed_regions, region_names

BREAKDOWN = ("The breakdown of Revenues is as follows:\n(Dollars in millions)\nFISCAL 2022 FISCAL 2021\n% CHANGE\n"
             "North America\n$\n18,353  $\n17,179\n7 %\nEurope, Middle East & Africa\n12,479\n11,456\n9 %\n"
             "Greater China\n7,547\n8,290\n-9 %\nGlobal Brand Divisions\n102\n25\n308 %\n")


def test_a_table_of_regions_is_read_row_by_row():
    found, at = listed_regions(BREAKDOWN)
    assert found == {("north", "america"), ("europ",), ("greater", "china")}
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
    assert len(listed_regions(shares)[0]) == 1


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
