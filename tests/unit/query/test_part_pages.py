"""A question naming a part of a company ("Why did UPS's International Package revenue decline?") is explained on
that part's own MD&A pages: the page headed by the part's name (its table, its "Revenue Change Drivers") or a
sentence whose metric names the part, ahead of the whole's "revenues increased"."""

from __future__ import annotations

from domain.statements import driver_labels, part_heads
from domain.text import words
from query.facts import part_named
from query.scoring import explaining_first, page_head
from query.statements import ratio_rows

MDNA = "Table of Contents\nMANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND\nRESULTS OF OPERATIONS\n"
SEGMENT = f"{MDNA}International Package\nThree Months Ended\nJune 30,\n2023\n2022\nRevenue\n4,415\n5,073\n"
WHOLE = f"{MDNA}Consolidated results. Revenues decreased 11% in the quarter primarily due to lower volume across the network."
OTHER = f"{MDNA}Purchased Transportation\nInternational Package expense decreased $123 million for the second quarter due to lower fuel costs."
PART = frozenset(words("International Package"))


def test_the_part_a_question_names_is_its_capitalised_words_that_ask_nothing():
    assert part_named("Why did International Package revenue decline in the second quarter of 2023?") == \
        "International Package"
    assert part_named("Why did revenues decline in the second quarter of 2023?") == ""  # the whole's
    assert part_named("What drove the drop in Supply Chain Solutions revenue in Q2 2023?") == "Supply Chain Solutions"


def test_a_part_heads_a_page_from_a_short_line_above_its_first_figure():
    assert part_heads(SEGMENT, PART)
    assert not part_heads(SEGMENT, frozenset())  # no part named: no page is its
    assert not part_heads(OTHER, PART)  # named in a sentence, not as the page's heading
    below = f"{MDNA}Average Daily Package Volume\n1,554\nInternational Package\n"
    assert not part_heads(below, PART)  # a table's row under a figure heads nothing


def test_a_page_head_is_read_off_the_passage_opening_it_or_running_on_to_it():
    opening = {"text": "International Package\nRevenue", "page_start": 52, "page_end": 52, "char_start": 0}
    run_on = {"text": "million.\n51\nInternational Package", "page_start": 51, "page_end": 52, "char_start": 900,
              "char_end": 21}
    inside = {"text": "Revenue decreased", "page_start": 52, "page_end": 52, "char_start": 400}
    assert page_head(opening, 52) == opening["text"]
    assert page_head(run_on, 52) == "International Package" and page_head(run_on, 51) == ""
    assert page_head(inside, 52) == ""


def test_a_total_opening_the_sentence_is_no_part_of_its_metric():
    assert driver_labels("Total revenue in Supply Chain Solutions decreased for both the second quarter and year "
                         "to date. This was driven by declines in our Forwarding business.") == \
        ["revenue in supply chain solutions"]


def test_the_part_asked_is_explained_on_its_own_pages_first():
    texts = {45: WHOLE, 59: OTHER, 52: SEGMENT}
    question = "Why did International Package revenue decline in the second quarter of 2023?"
    assert explaining_first(texts, question) == [45, 59, 52]  # no part: the whole's sentence fits best
    assert explaining_first(texts, question, part=PART, headed=frozenset({52})) == [52, 45, 59]
    said = {**texts, 53: f"{MDNA}Revenue\nTotal revenue in International Package decreased 13% for the quarter, "
                         "driven by lower volume."}
    assert explaining_first(said, question, part=PART, headed=frozenset({52}))[:2] == [53, 52]


def test_a_sentence_near_the_top_heads_nothing():
    deliveries = "Table of Contents\nCommercial airplane deliveries, including intercompany deliveries, were as follows:\n737"
    assert not part_heads(deliveries, frozenset(words("Commercial Airplanes")))


def test_a_ratio_printed_outranks_a_page_headed_by_the_part():
    """Apple's "Products and Services Performance" page (net sales) is headed by the part, its gross margin
    page prints the ratio asked: the ratio's page first, the headed page before the rest."""
    texts = {20: "Research and development expense rose.",
             17: "Products and Services Performance\nNet sales by category",
             18: "Gross margin\nGross margin percentage\n70.5 %\n71.5 %\n36.6 %"}
    question = "Why did Services gross margin percentage decrease in the third quarter?"
    rows = ratio_rows([("gross", "margin")], question)
    services = frozenset(words("Services"))
    assert explaining_first(texts, question, rows) == [18, 20, 17]
    assert explaining_first(texts, question, rows, services, frozenset({17})) == [18, 17, 20]


def test_a_change_stated_in_dollars_and_percent_or_as_flat_is_explained():
    """Caterpillar's "an increase of $602 million, or 20 percent" and Nike's "were flat": the segment's own
    sentence, which names it, explains the change asked."""
    assert driver_labels("Resource Industries’ total sales were $3.563 billion in the second quarter of 2023, an "
                         "increase of $602 million, or 20 percent, compared with $2.961 billion in the second quarter "
                         "of 2022. The increase was primarily due to favorable price realization.") == \
        ["resource industries’ total sales"]
    assert driver_labels("EMEA revenues were flat on a currency-neutral basis, primarily due to lower revenues in "
                         "Women's and Kids'.") == ["emea revenues"]
