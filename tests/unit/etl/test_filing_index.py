"""A filing's list of documents from its EDGAR index page or its full submission (literal inputs)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.rules import exhibit_form, exhibit_patterns, exhibit_selected
from etl.convert.cover import release_period
from etl.crawl.filing_index import (
    FilingDocument,
    complete_index_page,
    complete_submission,
    has_other_documents,
    listed_sizes,
    parse_index_page,
    parse_submission,
    split_submission,
)
from kernel.filing_records import unwrap

PAGE = b"""<html><body><table class="tableFile" summary="Document Format Files">
<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>
<tr><td>1</td><td>8-K</td><td><a href="/x/a8k.htm">a8k.htm</a> &nbsp;<span>iXBRL</span></td><td>8-K</td><td>40631</td></tr>
<tr><td>2</td><td>EX-99.1</td><td><a href="/x/ex991.htm">ex991.htm</a></td><td>EX-99.1</td><td>140647</td></tr>
<tr><td>3</td><td></td><td><a href="/x/g1.jpg">g1.jpg</a></td><td>GRAPHIC</td><td>1264</td></tr>
<tr><td>&nbsp;</td><td>Complete submission text file</td><td><a href="/x/a.txt">a.txt</a></td><td>&nbsp;</td>
<td>412459</td></tr></table>
<table class="tableFile" summary="Old"><tr><td>1</td><td></td><td><a href="/x/"></a></td><td>EX-99</td><td>12</td></tr>
</table></body></html>"""

SUBMISSION = (b"<SEC-DOCUMENT>0000000000-96-000001.txt\n<SEC-HEADER>...</SEC-HEADER>\n"
              b"<DOCUMENT>\n<TYPE>8-K\n<SEQUENCE>1\n<TEXT>\nCover text\n</TEXT>\n</DOCUMENT>\n"
              b"<DOCUMENT>\n<TYPE>EX-99\n<SEQUENCE>2\n<DESCRIPTION>PRESS RELEASE\n<TEXT>\nRevenue grew.\n</TEXT>\n"
              b"</DOCUMENT>\n</SEC-DOCUMENT>\n")


def test_index_page_lists_each_document_with_its_type():
    assert parse_index_page(PAGE) == [
        FilingDocument("1", "8-K", "a8k.htm", "8-K", 40631), FilingDocument("2", "EX-99.1", "ex991.htm", "EX-99.1", 140647),
        FilingDocument("3", "GRAPHIC", "g1.jpg", "", 1264), FilingDocument("1", "EX-99", "", "", 12)]


def test_full_submission_headers_and_documents():
    docs = parse_submission(SUBMISSION)
    assert [(d.sequence, d.type, d.name, d.description) for d in docs] == [
        ("1", "8-K", "", ""), ("2", "EX-99", "", "PRESS RELEASE")]
    blocks = split_submission(SUBMISSION)
    assert blocks["2"].startswith(b"<DOCUMENT>\n<TYPE>EX-99") and blocks["2"].endswith(b"</DOCUMENT>\n")
    assert unwrap(blocks["2"]) == b"Revenue grew.\n" and unwrap(b"<html>bare</html>") == b"<html>bare</html>"


@pytest.mark.parametrize("setting, kind, chosen", [
    ("EX-99*", "EX-99.1", True), ("EX-99*", "ex-99.02", True), ("EX-99*", "EX-10.1", False),
    ("EX-99*", "GRAPHIC", False), ("EX-99.1, EX-10*", "EX-10.1", True), ("none", "EX-99.1", False),
    ("", "EX-99.1", False), ("*", "GRAPHIC", False)])
def test_exhibit_types_choose_documents(setting, kind, chosen):
    assert exhibit_selected(kind, exhibit_patterns(setting)) is chosen


def test_a_bad_exhibit_pattern_is_refused():
    with pytest.raises(ValueError, match="EXHIBIT_TYPES: 'EX 99' is not a document type pattern"):
        exhibit_patterns("EX 99")


@pytest.mark.parametrize("text, filed, fye, period", [
    ("Apple reports first quarter results. Revenue for the fiscal 2024 first quarter ended December 30, 2023. "
     "Outlook for the second quarter of fiscal 2024.", dt.date(2024, 2, 1), "0928", (2024, "Q1")),
    ("reported full-year 2006 earnings ... compared with the fourth quarter of 2005", dt.date(2007, 1, 25), None,
     (2006, "Q4")),
    ("ORACLE ANNOUNCES FISCAL 2022 FOURTH QUARTER AND FULL YEAR", dt.date(2022, 6, 13), "0531", (2022, "Q4")),
    ("Caterpillar reports first-quarter 2022 results", dt.date(2022, 4, 28), None, (2022, "Q1")),
    ("Record Revenue in Q1 FY23", dt.date(2023, 3, 15), "1201", (2023, "Q1")),
    ("A new chief executive officer was named.", dt.date(2023, 3, 15), None, (None, None)),
])
def test_an_earnings_release_names_the_period_it_reports(text, filed, fye, period):
    assert release_period(text, filed, fye) == period


@pytest.mark.parametrize("kind, items, form", [
    ("EX-99.1", ["2.02", "9.01"], "EARNINGS"), ("EX-99.01", ["2.02"], "EARNINGS"), ("EX-99", ["12", "7"], "EARNINGS"),
    ("EX-99.2", ["2.02", "9.01"], "8-K"), ("EX-99.1", ["5.02", "9.01"], "8-K"), ("EX-99.1", [], "8-K")])
def test_the_first_ex99_of_a_results_8k_is_its_earnings_release(kind, items, form):
    assert exhibit_form(kind, items) == form


def _listing(*names: str) -> dict:
    return {"directory": {"item": [{"name": n, "type": "text.gif", "size": "10" if n != "b.txt" else ""}
                                   for n in names]}}


def test_a_directory_of_the_primary_document_alone_needs_no_index_page():
    acc = "0000000000-24-000001"
    assert has_other_documents(_listing("a.htm"), acc, "a.htm") is False
    assert has_other_documents(_listing("a.htm", f"{acc}-index.html", f"{acc}.txt", "R1.htm"), acc, "a.htm") is False
    assert has_other_documents(_listing("a.htm", "ex991.htm"), acc, "a.htm") is True
    assert has_other_documents({"not": "a listing"}, acc, "a.htm") is None
    assert listed_sizes(_listing("a.htm", "b.txt")) == {"a.htm": 10}


def test_a_cut_index_page_or_submission_is_refused():
    complete_index_page(PAGE)
    with pytest.raises(ValueError, match="incomplete filing index page"):
        complete_index_page(PAGE[: len(PAGE) // 2])
    complete_submission(SUBMISSION)
    complete_submission(b"<SEC-DOCUMENT>...</SEC-DOCUMENT>\n-----END PRIVACY-ENHANCED MESSAGE-----\n")
    with pytest.raises(ValueError, match="incomplete full submission"):
        complete_submission(SUBMISSION[: len(SUBMISSION) // 2])


def test_an_exhibit_takes_its_own_period_else_its_release_s_else_the_filing_year():
    from etl.convert.cover import exhibit_period

    filed, release = dt.date(2007, 1, 25), "Southern Company reported full-year 2006 earnings of $1.57 billion"
    table = "Southern Company Kilowatt-Hour Sales 3 Months Ended December 12 Months Ended December"
    assert exhibit_period(table, lambda: release, filed, None, None) == (2006, "Q4", "release")
    assert exhibit_period("Unaudited Summary Data Q3\u201904 Actual", lambda: release, dt.date(2004, 7, 14), "0925",
                          None) == (2004, "Q3", "text")  # its own words first
    assert exhibit_period(table, lambda: None, filed, None, None) == (2007, None, "filing date")  # no release in the 8-K
    # a release naming no period: the quarter before the 8-K's event date
    assert exhibit_period(table, lambda: "Results are attached.", filed, None, dt.date(2007, 1, 24)) == \
        (2006, "Q4", "release")


def test_items_incorporated_from_the_annual_report_and_its_exhibit():
    from domain.rules import exhibit_form, exhibit_label
    from domain.sec_items import incorporated_items

    text = ("PART I\nItem 1. Business\n" + "IBM makes hybrid cloud and AI software. " * 40 +
            "\nItem 7. Management's Discussion and Analysis of Financial Condition and Results of Operations: "
            "Refer to pages 6 through 40 of IBM's 2023 Annual Report to Stockholders, which are incorporated "
            "herein by reference.\nItem 8. Financial Statements and Supplementary Data: Refer to pages 44 "
            "through 121 of IBM's 2023 Annual Report to Stockholders, which are incorporated herein by "
            "reference.\nItem 9. Changes in and Disagreements with Accountants: None.\n")
    assert incorporated_items(text) == ["7", "8"]  # Item 1 has a body of its own; Item 9 points nowhere
    toc = "Item 7. Management's Discussion 22\nItem 8. Financial Statements 44\n"
    assert incorporated_items(toc) == []
    assert exhibit_form("EX-13", [], "10-K") == "10-K" and exhibit_form("EX-13.1", [], "10-K/A") == "10-K"
    assert exhibit_form("EX-13", ["8.01"], "8-K") == "8-K"  # only a 10-K's Exhibit 13 is its annual report
    assert exhibit_label("EX-13", "10-K", "0000051143-24-000012") == \
        "EX-13 (annual report to stockholders) of 10-K 0000051143-24-000012"
