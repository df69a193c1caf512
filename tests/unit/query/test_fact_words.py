"""The words a concept is chosen by when no reviewed term names it: what is measured, not a date or the word
saying a figure is a balance ("commercial paper balance at December 31": no "Balance, December 31" row)."""

from __future__ import annotations

from query.facts import _measure_text, measure_words


def test_a_month_or_balance_is_no_measure():
    assert _measure_text("what was commercial paper balance at december") == "commercial paper"
    assert measure_words("commercial paper balance at the end of june", "") == frozenset({"commerci", "paper"})


def test_a_qualified_measure_needs_its_qualifier_and_its_head():
    from domain.text import words
    from query.facts import qualified

    asked = words("gross profit rate")
    net_income = {"concept": "us-gaap:ProfitLoss", "row_label": "Consolidated net income"}
    gross_ppe = {"concept": "us-gaap:PropertyPlantAndEquipmentGross", "row_label": "Property and equipment, gross"}
    gross_profit = {"concept": "us-gaap:GrossProfit", "row_label": "Gross profit"}
    assert not qualified(net_income, asked) and not qualified(gross_ppe, asked) and qualified(gross_profit, asked)
    assert qualified(net_income, words("net income"))  # no qualifier said: any concept the words found


def test_r_and_d_reaches_the_line_filers_tag_without_acquired_research():
    from query.facts import synonym_concepts

    found = [m.concept for m in synonym_concepts("How much did Acme spend on R&D in 2023?")]
    assert found[0] == "us-gaap:ResearchAndDevelopmentExpense"
    assert "us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost" in found


def test_a_qualifier_qualifies_the_next_word_that_is_no_joining_word():
    from domain.text import words
    from query.facts import qualified

    gross_revenue = {"concept": "acme:RevenueGross", "row_label": "Gross revenue"}
    revenue = {"concept": "us-gaap:Revenues", "row_label": "Revenues"}
    assert qualified(gross_revenue, words("revenue, gross of the discounts")) is False  # "gross" of discounts
    assert qualified(gross_revenue, words("the gross of the revenue")) and not qualified(revenue, words("gross revenue"))
