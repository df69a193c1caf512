"""Whether the evidence holds the asked period, on literal values: the domain's rule of which documents
report a period, and the one line the answer says when none of a company's evidence does."""

from __future__ import annotations

from domain.periods import period_label, reports_period
from query.api import Evidence
from query.catalog import DocInfo
from query.coverage import period_notes, taken_notes


def _doc(doc_id, form, year, period, entity="ibm", absent=()):
    return DocInfo(doc_id=doc_id, ticker="IBM", company="IBM", form=form, fiscal_year=year, fiscal_period=period,
                   entity=entity, absent_items=list(absent))


def _evidence(doc: DocInfo, basis="match") -> Evidence:
    return Evidence(doc_id=doc.doc_id, source_name=None, company=doc.company, ticker=doc.ticker, form=doc.form,
                    fiscal_year=doc.fiscal_year, fiscal_period=doc.fiscal_period, item="7", item_title="", page=3,
                    chunk_id=f"{doc.doc_id}:1", text="", score=1.0, basis=basis)


def test_which_documents_report_a_period():
    assert reports_period(2023, None, "10-K", 2023, "FY") and reports_period(2023, None, "10-K", 2025, "FY")
    assert not reports_period(2023, None, "10-K", 2026, "FY")  # beyond the comparative columns
    assert not reports_period(2023, None, "10-Q", 2023, "Q2")  # half a year is not the year
    assert reports_period(2023, None, "EARNINGS", 2023, "Q4") and not reports_period(2023, None, "EARNINGS", 2023, "Q3")
    assert reports_period(2022, 4, "10-K", 2022, "FY") and reports_period(2022, 2, "10-Q", 2022, "Q2")
    assert not reports_period(2022, 2, "10-Q", 2022, "Q3")
    assert not reports_period(2023, None, "10-K", 2023, "FY", absent_items=["7", "8"])  # statements elsewhere
    assert period_label("10-Q", 2023, "Q2") == "H1 2023" and period_label("10-Q", 2023, "Q3") == "9M 2023"
    assert period_label("10-K", 2022, "FY") == "FY2022" and period_label("EARNINGS", 2023, "Q1") == "Q1 2023"


def test_the_answer_says_when_the_asked_period_is_missing():
    ten_k = _doc("IBM_2023_10K", "10-K", 2023, "FY", absent=["3", "7", "7A", "8"])
    ten_q = _doc("IBM_2023Q2_10Q", "10-Q", 2023, "Q2")
    docs = {d.doc_id: d for d in (ten_k, ten_q)}
    notes = period_notes(2023, [], [_evidence(ten_k), _evidence(ten_q)], docs, ["ibm"])
    assert notes == ["no FY2023 figures of IBM in the index; closest: H1 2023 (IBM_2023Q2_10Q)"]
    # the year's annual report among the evidence: nothing to say
    whole = _doc("IBM_2022_10K", "10-K", 2022, "FY")
    docs[whole.doc_id] = whole
    assert period_notes(2022, [], [_evidence(whole)], docs, ["ibm"]) == []
    # the index holds it, the evidence does not: said so, naming it
    assert period_notes(2022, [], [_evidence(ten_q)], docs, ["ibm"]) == [
        "no FY2022 figures of IBM among the evidence (the index holds IBM_2022_10K); closest: H1 2023 "
        "(IBM_2023Q2_10Q)"]
    # a fact pinned in a 10-Q is of six months, not the year; no period asked, or no evidence: nothing to say
    assert period_notes(2023, [], [_evidence(ten_q, basis="fact")], docs, ["ibm"]) != []
    assert period_notes(None, [], [_evidence(ten_q)], docs, ["ibm"]) == [] == period_notes(2023, [], [], docs)
    # a quarter asked
    assert period_notes(2023, [3], [_evidence(ten_q)], docs, ["ibm"]) == [
        "no Q3 2023 figures of IBM in the index; closest: H1 2023 (IBM_2023Q2_10Q)"]


def test_a_question_naming_no_period_says_which_filing_answers():
    newest = DocInfo(doc_id="TSLA_2024_10K", ticker="TSLA", form="10-K", fiscal_year=2024, fiscal_period="FY",
                     period_end="2024-12-31", entity="tesla")
    before = DocInfo(doc_id="TSLA_2023_10K", ticker="TSLA", form="10-K", fiscal_year=2023, fiscal_period="FY",
                     period_end="2023-12-31", entity="tesla")
    shown = [Evidence(doc_id="TSLA_2024_10K", source_name=None, company=None, ticker="TSLA", form="10-K",
                      fiscal_year=2024, fiscal_period="FY", item="8", item_title="", page=51, chunk_id="c",
                      text="", score=1.0)]
    notes = taken_notes(None, [], [newest], {"TSLA_2024_10K": before}, shown)
    assert notes == ["no period named: TSLA's newest report answers, TSLA_2024_10K (FY2024, period ended "
                     "2024-12-31); the one before, TSLA_2023_10K, is kept among the candidates"]
    assert taken_notes(None, [], [newest], {"TSLA_2024_10K": None}, shown)[0].endswith(
        "the index holds no earlier 10-K of this company")
    assert taken_notes(2024, [], [newest], {}, shown) == []  # a year named: nothing to say
    assert taken_notes(None, [], [before], {}, shown) == []  # a report the evidence does not show
