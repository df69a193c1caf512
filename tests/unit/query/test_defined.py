"""A question asking how a company defines a term reads the sentence defining it, not the term's figures."""

from __future__ import annotations

from query.analysis import analyze
from query.defined import definition_at, term
from query.plan import make_plan


def test_the_term_asked_is_what_follows_the_word_of_defining():
    assert term("How does Walmart define eCommerce sales in its fiscal 2024 annual report?") == ("ecommerc", "sale")
    assert term("What does Caterpillar mean by ME&T?") == ("me", "and", "t")
    assert term("What is the definition of free cash flow at Acme?") == ("free", "cash", "flow")
    assert term("How does Acme define the book-to-bill ratio it reports?") == ("book", "to", "bill", "ratio")


def test_a_question_giving_its_own_definition_or_none_asks_no_term():
    assert term("What is Acme's FY2022 current ratio? Current ratio is defined as current assets / liabilities.") == ()
    assert term("What was Acme's free cash flow in 2023?") == ()


def test_a_definition_is_a_sentence_defining_the_term():
    named = term("How does Acme define eCommerce sales?")
    text = "pharmacy fulfillment. We define eCommerce sales as sales initiated by customers digitally"
    assert definition_at(text, named) == text.index("eCommerce")
    assert definition_at("eCommerce sales are defined as sales made online", named) == 0
    gdv = "Key Drivers Gross Dollar Volume (GDV) measures dollar volume of activity on cards"
    assert definition_at(gdv, term("How does Acme define gross dollar volume?")) == gdv.index("Gross")
    assert definition_at("Machinery, Energy & Transportation (ME&T) - We define ME&T as Acme excluding Financial",
                         term("What does Acme mean by ME&T?")) is not None


def test_using_the_term_defines_nothing():
    named = term("How does Acme define eCommerce sales?")
    assert definition_at("eCommerce sales include shipping revenue and are recorded upon delivery", named) is None
    assert definition_at("eCommerce sales grew 23% as we defined our priorities as growth", named) is None
    assert definition_at("Net debt is not defined under U.S. GAAP", term("How does Acme define net debt?")) is None


def test_a_definition_asked_is_no_figure_and_names_no_statement():
    plan = make_plan(analyze("How does Acme define adjusted EBITDA?"))
    assert plan.defines == ("adjust", "ebitda") and not plan.figure and not plan.statements
    figure = make_plan(analyze("What was Acme's adjusted EBITDA in 2023?"))
    assert figure.defines == () and figure.figure
