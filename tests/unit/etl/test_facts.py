"""Inline XBRL facts (etl.convert.ixbrl): contexts, units, scale and sign, formats, pages, continuations, hidden facts,
table rows; and the fiscal period rule facts are filed under (domain.rules.fact_period)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.rules import (
    asked_period,
    ended_periods,
    fact_period,
    filer_year_shift,
    span_weeks,
    weeks_months,
    weeks_quarters,
)
from etl.convert.html_prepare import prepare_html
from etl.convert.ixbrl import FactValueError, number, scaled

BREAK = '<div style="page-break-after: always"></div>'
DOC = f"""<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><body>
<div style="display:none"><ix:header><ix:hidden>
  <ix:nonNumeric name="dei:DocumentType" contextRef="c1" id="h1">10-K</ix:nonNumeric>
  <ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c1" id="h2">Acme Corp</ix:nonNumeric>
</ix:hidden><ix:resources>
  <xbrli:context id="c1"><xbrli:entity><xbrli:identifier scheme="x">1</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2023-01-01</xbrli:startDate><xbrli:endDate>2023-12-31</xbrli:endDate>
    </xbrli:period></xbrli:context>
  <xbrli:context id="c2"><xbrli:entity><xbrli:identifier scheme="x">1</xbrli:identifier>
    <xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">acme:EuropeMember
    </xbrldi:explicitMember></xbrli:segment></xbrli:entity>
    <xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2023-12-31</xbrli:endDate>
    </xbrli:period></xbrli:context>
  <xbrli:context id="i1"><xbrli:entity><xbrli:identifier scheme="x">1</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:instant>2023-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <xbrli:unit id="eps"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure>
    </xbrli:unitNumerator><xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure>
    </xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</ix:resources></ix:header></div>
<p>Cover page of <span style="-sec-ix-hidden:h2">the registrant</span>.</p>
{BREAK}
<table>
 <tr><td></td><td colspan="3">Year Ended December 31,</td></tr>
 <tr><td></td><td colspan="3">2023</td></tr>
 <tr><td>Gross profit</td><td>$</td><td><ix:nonFraction name="us-gaap:GrossProfit" contextRef="c1" unitRef="usd"
   scale="6" decimals="-6" format="ixt:num-dot-decimal" id="f1">27,234</ix:nonFraction></td><td></td></tr>
 <tr><td>Other expense</td><td>$</td><td>(<ix:nonFraction name="us-gaap:OtherExpenses" contextRef="c1" unitRef="usd"
   scale="6" sign="-" format="ixt:num-dot-decimal">1,050.5</ix:nonFraction>)</td><td></td></tr>
 <tr><td>Diluted net income per share</td><td>$</td><td><ix:nonFraction name="us-gaap:EarningsPerShareDiluted"
   contextRef="c1" unitRef="eps" decimals="2">2.47</ix:nonFraction></td><td></td></tr>
 <tr><td>Europe revenue</td><td></td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="c2" unitRef="usd"
   scale="3" format="ixt:fixed-zero">—</ix:nonFraction></td><td></td></tr>
</table>
<p><ix:nonNumeric name="us-gaap:DebtPolicyTextBlock" contextRef="c1" continuedAt="k1">Debt is carried at cost;
 we had <ix:nonFraction name="us-gaap:DebtInstrumentCount" contextRef="i1" unitRef="usd"
 format="ixt-sec:numwordsen">three</ix:nonFraction> notes</ix:nonNumeric></p>
{BREAK}
<p><ix:continuation id="k1">outstanding at year end.</ix:continuation></p>
<p><ix:nonFraction name="us-gaap:Bad" contextRef="c1" unitRef="usd" format="ixt:num-dot-decimal">12.3.4</ix:nonFraction></p>
</body></html>"""


@pytest.fixture(scope="module")
def facts():
    return {f.concept: f for f in prepare_html(DOC.encode(), "1231").facts}


def test_numeric_facts_carry_value_period_unit_and_place(facts):
    gp = facts["us-gaap:GrossProfit"]
    assert (gp.value, gp.display, gp.scale, gp.unit, gp.decimals) == (27_234e6, "27,234", 6, "USD", "-6")
    assert (gp.period_type, gp.period_start, gp.period_end) == ("duration", dt.date(2023, 1, 1), dt.date(2023, 12, 31))
    assert (gp.fiscal_year, gp.fiscal_period, gp.page, gp.dimensions) == (2023, "FY", 1, [])
    assert gp.row_label == "Gross profit" and gp.column_header == "Year Ended December 31, / 2023"
    assert facts["us-gaap:OtherExpenses"].value == -1_050.5e6 and facts["us-gaap:OtherExpenses"].negated
    assert facts["us-gaap:EarningsPerShareDiluted"].unit == "USD/shares"
    europe = facts["us-gaap:Revenues"]
    assert europe.value == 0 and europe.fiscal_period == "Q4"
    assert europe.dimensions == ["us-gaap:StatementBusinessSegmentsAxis=acme:EuropeMember"]


def test_text_facts_follow_continuations_and_nested_facts_stand_alone(facts):
    block = facts["us-gaap:DebtPolicyTextBlock"]
    assert block.kind == "text" and block.value is None
    assert block.display == "Debt is carried at cost; we had three notes outstanding at year end."
    assert (block.page, block.end_page) == (1, 2)
    nested = facts["us-gaap:DebtInstrumentCount"]
    assert (nested.value, nested.period_type, nested.fiscal_period, nested.page) == (3, "instant", "FY", 1)


def test_hidden_facts_take_the_page_that_shows_them(facts):
    assert facts["dei:EntityRegistrantName"].hidden and facts["dei:EntityRegistrantName"].page == 0
    assert facts["dei:DocumentType"].page == 0  # shown nowhere: the iXBRL header's page


def test_a_display_that_does_not_read_has_no_value_and_says_why(facts):
    bad = facts["us-gaap:Bad"]
    assert bad.value is None and "does not read as ixt:num-dot-decimal" in bad.problem


def test_plain_html_has_no_facts():
    assert prepare_html(b"<html><body><p>No XBRL here.</p></body></html>").facts == []


@pytest.mark.parametrize("display, fmt, expected", [
    ("1,234.5", "ixt:num-dot-decimal", "1234.5"), ("1.234,5", "ixt:num-comma-decimal", "1234.5"),
    ("—", "ixt:fixed-zero", "0"), ("twenty-one", "ixt-sec:numwordsen", "21"), ("none", "ixt-sec:numwordsen", "0"),
    ("five million", "ixt-sec:numwordsen", "5000000"), ("42", None, "42"),
])
def test_formats(display, fmt, expected):
    assert str(number(display, fmt)) == expected


@pytest.mark.parametrize("display, fmt", [("$1,234", "ixt:num-dot-decimal"), ("1,2345", "ixt:num-dot-decimal"),
                                          ("lots", "ixt-sec:numwordsen"), ("P1Y", "ixt-sec:duryear")])
def test_unreadable_displays_raise(display, fmt):
    with pytest.raises(FactValueError):
        number(display, fmt)


def test_scale_and_sign():
    assert scaled(number("27,234", None), 6, False) == 27_234_000_000
    assert scaled(number("0.5", None), -2, True) == -0.005


@pytest.mark.parametrize("start, end, fye, expected", [
    (dt.date(2023, 1, 1), dt.date(2023, 12, 31), "1231", (2023, "FY")),
    (dt.date(2023, 7, 2), dt.date(2023, 9, 30), "1231", (2023, "Q3")),
    (dt.date(2023, 1, 1), dt.date(2023, 6, 30), "1231", (2023, "H1")),
    (dt.date(2023, 1, 1), dt.date(2023, 9, 30), "1231", (2023, "9M")),
    (None, dt.date(2023, 12, 31), "1231", (2023, "FY")),
    (None, dt.date(2023, 7, 1), "0930", (2023, "Q3")),  # a September fiscal year: July is its Q3's end
    (dt.date(2022, 9, 25), dt.date(2023, 9, 30), "0930", (2023, "FY")),  # 53-week year
    (None, dt.date(2024, 1, 28), "0128", (2024, "FY")),
    # Johnson & Johnson's fiscal 2022 (52 weeks to January 1, 2023), its balance on that day, and fiscal 2023
    (dt.date(2022, 1, 3), dt.date(2023, 1, 1), "1231", (2022, "FY")),
    (None, dt.date(2023, 1, 1), "1231", (2022, "FY")),
    (dt.date(2023, 1, 2), dt.date(2023, 12, 31), "1231", (2023, "FY")),
    # periods counted in weeks (a December fiscal year ending on its last Saturday): PepsiCo's 12 weeks to
    # September 9 its Q3, its 24 and 36 weeks to date H1 and 9M, a 16-week first quarter Q1
    (dt.date(2023, 6, 18), dt.date(2023, 9, 9), "1230", (2023, "Q3")),
    (dt.date(2023, 1, 1), dt.date(2023, 6, 17), "1230", (2023, "H1")),
    (dt.date(2023, 1, 1), dt.date(2023, 9, 9), "1230", (2023, "9M")),
    (dt.date(2023, 1, 1), dt.date(2023, 4, 22), "1230", (2023, "Q1")),
    (dt.date(2023, 1, 1), dt.date(2023, 8, 31), "1231", (2023, "8M")),  # eight months: no quarters' weeks
    (dt.date(2023, 1, 1), dt.date(2023, 4, 30), "1231", (2023, "4M")),  # four months, no whole weeks: no quarter
    (dt.date(2018, 10, 25), dt.date(2019, 2, 11), "1231", (2019, "4M")),  # odd days near a quarter: none
])
def test_fact_period(start, end, fye, expected):
    assert fact_period(start, end, fye) == expected


def test_asked_period_is_the_label_of_the_facts_it_asks():
    """What a question's quarter asks, in fact_period's labels: one owner of "H1" and "9M" for both."""
    assert (asked_period(2, False), asked_period(2, True), asked_period(3, True)) == ("Q2", "H1", "9M")
    assert asked_period(1, True) == "Q1" and asked_period(4, False) == "Q4"
    assert asked_period(4, True) is None  # the second half: the annual report answers it
    assert fact_period(dt.date(2023, 1, 1), dt.date(2023, 6, 30), "1231")[1] == asked_period(2, True)
    assert ended_periods(6) == ("H1",) and ended_periods(9) == ("9M",) and ended_periods(12) == ()
    assert fact_period(dt.date(2023, 4, 2), dt.date(2023, 7, 1), "0930")[1] in ended_periods(3)
    assert fact_period(dt.date(2023, 1, 1), dt.date(2023, 9, 9), "1230")[1] in ended_periods(weeks_months(36))


@pytest.mark.parametrize("weeks, quarters", [(12, 1), (13, 1), (16, 1), (17, 1), (24, 2), (28, 2), (36, 3), (40, 3),
                                             (52, 4), (53, 4), (8, None), (20, None), (32, None)])
def test_weeks_quarters(weeks, quarters):
    assert weeks_quarters(weeks) == quarters


def test_span_weeks_counts_whole_weeks_only():
    assert span_weeks(dt.date(2023, 1, 1), dt.date(2023, 9, 9)) == 36  # Sunday to Saturday, both days counted
    assert span_weeks(dt.date(2023, 1, 1), dt.date(2023, 4, 30)) is None

@pytest.mark.parametrize("focus, ruled, shift", [
    ("2023", 2024, -1),  # Home Depot: the year ending 2024-01-28 is its fiscal 2023
    ("2024", 2024, 0),  # Walmart: the same year is its fiscal 2024
    (" 2025 ", 2024, 1),
    ("2020", 2024, 0),  # a focus years off is a filer's typo, not a convention
    ("FY23", 2024, 0), (None, 2024, 0), ("2023", None, 0),
])
def test_filer_year_shift(focus, ruled, shift):
    assert filer_year_shift(focus, ruled) == shift
