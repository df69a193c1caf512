"""Which page order answers a question, by its kind: literal plans and the table's checks."""

from __future__ import annotations

import pytest

from query.analysis import Entity, QueryAnalysis
from query.page_order import KINDS, PageOrderError, page_order, page_orders, parse_table, question_kind
from query.plan import make_plan

KO, PEP = Entity("cocacola", "Coca-Cola"), Entity("pepsico", "PepsiCo")


def kind(question: str, entities=(KO,), years=(), quarters=()) -> str:
    return question_kind(make_plan(QueryAnalysis(question, list(entities), list(years), list(quarters))))


def test_the_kind_of_a_question_comes_from_its_plan():
    assert kind("Compare revenue in 2023", entities=(KO, PEP), years=[2023]) == "companies"
    assert kind("What drove revenue growth in 2023?", years=[2023]) == "narrative"
    assert kind("How many employees are there?") == "no_period"
    assert kind("Revenue in Q2 2023", years=[2023], quarters=[2]) == "quarter"
    assert kind("Show the dividends for 2021, 2022 and 2023", years=[2021, 2022, 2023]) == "years"
    assert kind("What was the total revenue in 2023?", years=[2023]) == "figure"
    assert kind("Which legal proceedings were disclosed in 2023?", years=[2023]) == "other"


def test_the_table_names_every_kind_once_with_a_known_order():
    table = page_orders()
    assert set(table) == set(KINDS) and set(table.values()) <= {"learned", "rules"}
    with pytest.raises(PageOrderError, match="missing: other"):
        parse_table({k: "rules" for k in KINDS if k != "other"})
    with pytest.raises(PageOrderError, match="unknown: trend"):
        parse_table({**{k: "rules" for k in KINDS}, "trend": "rules"})
    with pytest.raises(PageOrderError, match="figure: 'model' is not one of learned, rules"):
        parse_table({**{k: "rules" for k in KINDS}, "figure": "model"})


def test_the_ranker_option_overrides_the_table():
    plan = make_plan(QueryAnalysis("Compare revenue in 2023", [KO, PEP], [2023]))
    assert page_order(plan, "rules") == "rules" and page_order(plan, "learned-all") == "learned"
    assert page_order(plan, "learned") == page_orders()["companies"]
