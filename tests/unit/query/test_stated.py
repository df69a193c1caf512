"""A measure no concept names is read where MD&A sums up the period: a statement opening with the measure's
words that gives its figure at once, not a paragraph that only discusses it."""

from __future__ import annotations

from query.analysis import analyze
from query.pins import unplaced_figure
from query.plan import make_plan
from query.stated import measure, stated_page, statement_at


def _plan(question: str):
    return make_plan(analyze(question))


def test_the_measure_is_the_question_less_its_asking_period_and_joining_words():
    assert measure("What catastrophe losses did report for the third quarter of 2023?") == ("catastroph", "loss")
    assert measure("How big were systemwide sales in FY23?") == ("systemwid", "sale")
    assert measure("What did the 10-Q say about the labor contract talks with the union?") == ()  # a sentence


def test_a_statement_opens_with_the_measure_and_gives_its_figure():
    named = measure("What catastrophe losses did report in the quarter?")
    bullets = "Net income of $404 million\n•\nCatastrophe losses of $850 million ($669 million after-tax)\n•"
    assert statement_at(bullets, named) == bullets.index("Catastrophe")
    rise = measure("What were systemwide sales in 2023?")
    assert statement_at("• Systemwide sales increased 10% (10% in constant currencies) to $129.5 billion.", rise) is not None


def test_a_discussion_of_the_measure_states_no_figure():
    named = measure("What catastrophe losses did report in the quarter?")
    assert statement_at("Catastrophe losses in the first nine months of 2023 included the third quarter events "
                        "described above, and $1.52 billion of losses.", named) is None
    assert statement_at("Catastrophe losses were higher than expected in the quarter because of the storms "
                        "that struck the central states and the wildfires, which cost $3 million.", named) is None
    assert statement_at("Higher catastrophe losses of $850 million drove the decline.", named) is not None  # one lead
    assert statement_at("The increase in catastrophe losses of $850 million drove the decline.", named) is None


def test_the_statement_s_page_is_the_one_it_starts_on():
    chunk = {"text": "Overview of the quarter\nCatastrophe losses of $850 million", "page_start": 30,
             "page_end": 31, "char_start": 900, "char_end": 36}
    assert stated_page(chunk, measure("What catastrophe losses did report?")) == 31
    assert stated_page({**chunk, "text": "Overview of the quarter only"}, measure("What catastrophe losses?")) is None


def test_only_a_figure_no_statement_note_section_or_driver_is_named_for_is_read_so():
    assert unplaced_figure(_plan("What catastrophe losses did Travelers report for the third quarter of 2023?"))
    assert unplaced_figure(_plan("What were Acme's systemwide sales in 2023?"))  # a concept naming MD&A alone
    assert not unplaced_figure(_plan("What was Acme's net income in 2023?"))  # the income statement
    assert not unplaced_figure(_plan("What drove the change in Acme's catastrophe losses in 2023?"))


def test_an_amount_said_in_words_is_read_at_the_precision_prose_rounds_it():
    """"$5.5 billion" says 5,487 million (to within 0.05 billion), beside the measure's word; a round "$5
    billion" names too many figures to say one; the same amount beside other words is another figure."""
    from query.stated import said_amount_at, spoken_amounts

    text = ("Dividends\nWe paid $5.5 billion and $5.4 billion in cash dividends during the six months ended "
            "June 30, 2023 and 2022, respectively. Capital expenditures were $5,488 million.")
    dividends = frozenset({"dividend"})
    assert said_amount_at(text, [(5_487e6, dividends)]) == text.index("$5.5")
    assert said_amount_at(text, [(5_392e6, dividends)]) == text.index("$5.4")
    assert said_amount_at(text, [(5_600e6, dividends)]) is None  # rounds to 5.6
    assert said_amount_at(text, [(5_488e6, frozenset({"tax"}))]) is None  # no word of its measure beside it
    assert [a for _, a, _ in spoken_amounts("about $5 billion, or $1,014 million")] == [1_014e6]
    notes = ("we had a total of $9.7 billion in notes due by 2060. As each series of senior notes matures, "
             "unless redeemed or repurchased, we must repay")  # the next sentence's word is no measure of it
    assert said_amount_at(notes, [(9_746e6, frozenset({"repurchas"}))]) is None


def test_a_sentence_opening_with_an_amount_is_its_own():
    """A sentence ends at a stop before a figure as before a capital (``domain.text.sentence_spans``): the
    next sentence's amount is not said by the dividends of the one before."""
    from query.stated import said_amount_at

    text = "We paid cash dividends in each quarter of 2022. $9.7 billion of notes matured in the year."
    assert said_amount_at(text, [(9_746e6, frozenset({"dividend"}))]) is None
    assert said_amount_at(text, [(9_746e6, frozenset({"note"}))]) == text.index("$9.7")
