"""A count asked ("how many ...") is read off the row counting it (a sum's or a number's label, the verb's noun,
the phrase's initials) or the sentence stating it, never a segment's row of amounts, a day or a year."""

from __future__ import annotations

from query.counts import Counted, count_row_page, count_sentence_page, counted


def _chunk(text: str, page: int = 7) -> dict:
    return {"text": text, "page_start": page, "page_end": page, "char_start": 0, "char_end": len(text)}


def test_the_thing_counted_is_the_words_after_how_many_and_the_verb_follows_the_auxiliary():
    stores = counted("How many stores did operate at the end of fiscal 2019?", [])
    assert stores == Counted(("store",), (), "oper", "", "stores", (), True)
    assert not counted("How many restaurants were open worldwide?", []).acted  # a state, not an action
    assert not counted("How many stores did and each have at the end of fiscal 2023?", []).acted  # a possession
    assert counted("How many vehicles did produce in 2024?", []).verb == "produc"
    airplanes = counted("How many commercial airplanes did deliver in 2023?", ["deliveries"])
    assert airplanes.what == ("commerci", "airplan") and airplanes.nouns == ("deliveri",)
    assert airplanes.searched() == ["commercial airplanes", "deliveries"]
    units = counted("How many restricted stock units did grant in fiscal 2024?", [])
    assert units.initials == "rsu" and units.searched() == ["restricted stock units RSUs"]
    assert counted("How much did spend on research and development in 2023?", []) is None
    assert counted("Over how many years do stock options vest?", []) is None  # a span of time
    assert counted("How many of the risks that it names in its 10-K did it say were new?", []) is None  # a clause


def test_a_row_counts_by_a_sum_s_word_the_verb_s_noun_or_the_initials():
    stores = counted("How many stores did operate?", [])
    assert count_row_page(_chunk("Store development\nTotal stores (end of year) | 9,674 | 9,939 | 9,962"), stores) == 7
    assert count_row_page(_chunk("Number of stores\nDomestic (9)\n1,026\n1,298\nInternational\n212"), stores) == 7
    airplanes = counted("How many commercial airplanes did deliver in 2023?", ["deliveries"])
    assert count_row_page(_chunk("Cumulative deliveries\n8,528\n1,573\nDeliveries\n396\n(9)\n1"), airplanes) == 7
    assert count_row_page(_chunk("Deliveries during the second quarter of 2023 | 103 | (3) | 8"), airplanes) == 7
    units = counted("How many restricted stock units did grant?", [])
    assert count_row_page(_chunk("RSUs granted | 91,674 | $ 150.70"), units) == 7


def test_a_segment_s_row_of_amounts_or_a_sentence_s_line_is_no_count_s_row():
    airplanes = counted("How many commercial airplanes did deliver in 2023?", ["deliveries"])
    assert count_row_page(_chunk("Commercial Airplanes | 57 | 293"), airplanes) is None  # a segment's row
    assert count_row_page(_chunk("late deliveries,\nincluding a suspension of 787 deliveries from May 2021 to August "
                                 "2022"), airplanes) is None
    stores = counted("How many stores did operate?", [])
    assert count_row_page(_chunk("Total stores | $ 1,200 | $ 1,100"), stores) is None  # amounts
    assert count_row_page(_chunk("Total Domestic segment stores | 1,298 | 1,026"), stores) is None  # a part's
    paid = counted("How many paid streaming memberships did have at the end of 2016?", [])
    assert count_row_page(_chunk("Total memberships at end of period (1) | 49,431 | 44,738"), paid) is None  # wider
    assert count_row_page(_chunk("Total paid streaming memberships | 93,796 | 74,762"), paid) == 7


def test_a_sentence_states_the_count_before_the_thing_counted():
    stores = counted("How many stores did operate?", [])
    assert count_sentence_page(_chunk("At the end of fiscal 2023, we operated 2,335 stores located in the U.S."),
                               stores) == 7
    restaurants = counted("How many restaurants were open worldwide?", [])
    assert count_sentence_page(_chunk("Of the 41,822 McDonald's restaurants at year-end 2023, 95% were franchised."),
                               restaurants) == 7
    airplanes = counted("How many commercial airplanes did deliver in 2023?", ["deliveries"])
    assert count_sentence_page(_chunk("As of December 31, 2023, our airplane financing commitments totaled $17.0 "
                                      "billion."), airplanes) is None  # a day, then a year
    assert count_sentence_page(_chunk("revenues of $25 airplanes"), airplanes) is None  # an amount
    assert count_sentence_page(_chunk("12% of airplanes"), airplanes) is None  # a share


def test_no_count_through_a_joining_word_or_of_a_day():
    units = counted("How many retail units did operate at July 31, 2023?", [])
    assert count_sentence_page(_chunk("a fiscal year ending January 31 for the United States (U.S.)"), units) is None
    assert count_sentence_page(_chunk("ended July 31 retail units"), units) is None  # a day's number
    assert count_sentence_page(_chunk("operated 10,482 retail units"), units) == 7


def test_an_action_asked_is_the_count_stated_after_its_verb():
    opened = counted("How many restaurants did open in 2023?", [])
    overview = _chunk("Of the 41,822 McDonald's restaurants at year-end 2023, 95% were franchised.")
    development = _chunk("In 2023, the Company opened 2,067 restaurants and closed 520 restaurants.")
    assert count_sentence_page(overview, opened) == 7 and count_sentence_page(overview, opened, acted=True) is None
    assert count_sentence_page(development, opened, acted=True) == 7
