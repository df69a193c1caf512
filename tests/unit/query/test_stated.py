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
