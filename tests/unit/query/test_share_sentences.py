"""A part's share of the whole said in a sentence (query.share_sentences): pure, on literal passages."""

from domain.text import words
from query.share_sentences import amount_sentence_page, asks_share, share_sentence_page

SALES = (tuple(words("net sales")), tuple(words("revenue")))
REVENUES = (tuple(words("operating revenues")),)


def _chunk(text: str, page: int = 5) -> dict:
    return {"text": text, "page_start": page, "page_end": page, "char_start": 0, "char_end": len(text)}


def _part(name: str) -> frozenset[str]:
    return frozenset(words(name))


def test_a_share_asked_is_a_percentage_a_share_or_a_percent_of_a_whole():
    assert asks_share("What percentage of Walmart's fiscal 2018 net sales came from Walmart U.S.?")
    assert asks_share("Which segment contributed the largest share of its revenue?")
    assert asks_share("Are there any product categories that represent more than 20% of Amcor's revenue?")
    assert asks_share("What percent of its sales were to Pro customers?")
    assert not asks_share("What were Meta's diluted earnings per share of Class A common stock?")
    assert not asks_share("How many shares of common stock were outstanding?")
    assert not asks_share("What was Walmart U.S.'s net sales in fiscal 2018?")


def test_the_part_named_and_its_share_of_the_measure_in_one_sentence():
    text = ("Walmart U.S. is our largest segment. Walmart U.S. generated approximately 64% of our net sales in "
            "fiscal 2018, and of our three segments, it has the highest gross profit rate.")
    assert share_sentence_page(_chunk(text), _part("Walmart U.S."), SALES) == 5


def test_shares_of_several_years_then_of_the_measure_over_wrapped_lines():
    text = ("The Company reports the results of its utilities in the Regulated Businesses segment. Operating revenues "
            "for the Regulated Businesses were $3,505 million for 2022,\n$3,384 million for 2021 and $3,255 million for "
            "2020, accounting for 92%, 86% and 86%, respectively, of the Company's total operating revenues for the "
            "same\nperiods.")
    assert share_sentence_page(_chunk(text), _part("Regulated Businesses"), REVENUES) == 5


def test_no_share_when_the_sentence_names_no_part_asked_or_the_percent_is_of_another_measure():
    other = "In fiscal 2022, approximately 25% of our revenue was transacted using one of our branded cards."
    assert share_sentence_page(_chunk(other), _part("International"), SALES) is None
    rate = "The International segment's gross profit rate was 21.5% of its revenue, up from 20.9%."
    assert share_sentence_page(_chunk(rate), _part("International"), (tuple(words("net sales")),)) is None
    profit = "Division profit of the International segment was $1,161 million, or 13.0% of operating income."
    assert share_sentence_page(_chunk(profit), _part("International"), SALES) is None


def test_the_page_is_the_one_the_sentence_stands_on():
    first = "Our Flexibles segment makes flexible packaging.\n"
    second = "In fiscal year 2022, Flexibles accounted for approximately 77% of consolidated net sales."
    chunk = {"text": first + second, "page_start": 6, "page_end": 7, "char_start": 0, "char_end": len(second)}
    assert share_sentence_page(chunk, _part("Flexibles"), SALES) == 7
    assert share_sentence_page(chunk, _part("Rigid Packaging"), SALES) is None


def test_a_parts_amount_said_in_a_sentence_about_it_of_a_year_asked():
    """The part opens the sentence (its first words), which says the metric and an amount of money in words,
    of a year asked or none; not a sentence naming the part later, one with no amount, nor another year's."""
    sold = (tuple(words("sales")),) + SALES
    said = ("Sales of DARZALEX were driven by share gains. Oncology products achieved sales of $17.7 billion in "
            "2023, representing an increase of 10.5% as compared to the prior year.")
    assert amount_sentence_page(_chunk(said), _part("oncology"), sold, frozenset({2023})) == 5
    assert amount_sentence_page(_chunk(said), _part("oncology"), sold, frozenset({2022})) is None
    mdt = "Medical Surgical's net sales for fiscal year 2024 were $8.4 billion, an increase of 5 percent."
    assert amount_sentence_page(_chunk(mdt), _part("medical surgical"), sold) == 5
    later = "Growth in the year was led by strong demand, as the sales of Oncology products reached $17.7 billion."
    assert amount_sentence_page(_chunk(later), _part("oncology"), sold) is None
    growth = "Oncology sales grew 10.5% in 2023, led by DARZALEX."
    assert amount_sentence_page(_chunk(growth), _part("oncology"), sold) is None
    profit = "Oncology operating income was $5.1 billion in 2023."
    assert amount_sentence_page(_chunk(profit), _part("oncology"), sold) is None
