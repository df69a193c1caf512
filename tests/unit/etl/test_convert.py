"""Conversion stage on the project's own small inputs: sandboxing, encodings, paging and bad input."""

from __future__ import annotations

import datetime as dt
import http.server
import json
import threading
from dataclasses import replace

import pymupdf
import pytest

from domain.rules import fiscal_period_of
from etl.convert import ConvertOptions
from etl.convert import run as run_convert
from etl.convert.cover import facts_from_text
from etl.convert.html_prepare import HtmlError, prepare_html
from etl.convert.pdf_file import facts_from_source_name
from etl.convert.pdf_pages import PdfError, page_pdf
from etl.convert.pdf_render import render_pdf
from kernel import llm
from kernel.layout import record_key
from kernel.settings import load_settings
from kernel.storage import LocalLake, read_parquet
from schemas.filings import FilingRecord
from schemas.table_text import table_rows


@pytest.fixture()
def spy_server():
    """A loopback HTTP server that counts every request it gets (none may arrive)."""
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"SPYCONTENT")

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()


def hostile_html(spy: str, secret_file) -> bytes:
    return f"""<html><head><link rel="stylesheet" href="file://{secret_file}">
<style>@import url("{spy}/import.css"); body {{ background: url('{spy}/bg.png') }}</style></head><body>
<p>Visible text before.</p>
<iframe src="file://{secret_file}" width="600" height="300"></iframe>
<img src="{spy}/x.png"><img src="file://{secret_file}">
<script>document.write('SCRIPTRAN')</script>
<object data="{spy}/obj"></object>
<p style="page-break-before: always">Second page.</p>
</body></html>""".encode()


def pdf_text(pdf: bytes) -> str:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return "".join(page.get_text() for page in doc)


def test_hostile_html_reads_no_local_file_and_makes_no_request(spy_server, tmp_path):
    spy, hits = spy_server
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRETLOCALFILE")
    raw = hostile_html(spy, secret)
    prepared = prepare_html(raw)
    assert b"file://" not in prepared.html and spy.encode() not in prepared.html
    result = render_pdf(prepared.html, str(tmp_path))
    text = pdf_text(result.pdf)
    assert "Visible text before." in text and "Second page." in text
    assert "TOPSECRETLOCALFILE" not in text and "SCRIPTRAN" not in text and "SPYCONTENT" not in text
    # The renderer's sandbox alone (no sanitizing) must also hold: feed it the hostile markup as is.
    raw_result = render_pdf(raw, str(tmp_path))
    raw_text = pdf_text(raw_result.pdf)
    assert "TOPSECRETLOCALFILE" not in raw_text and "SCRIPTRAN" not in raw_text
    assert hits == []
    # Blocked resources make wkhtmltopdf exit 1 while still writing the PDF: a warning, not a failure.
    assert raw_result.pdf.startswith(b"%PDF")


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_no_mojibake(tmp_path, encoding):
    chars = "\u2612 Yes \u2019quoted\u2019 \u2014 dash" if encoding == "utf-8" else "\u2019quoted\u2019 \u2014 dash"
    raw = (f'<html><head><meta charset="{encoding}"></head><body><p>{chars}</p></body></html>').encode(encoding)
    prepared = prepare_html(raw)
    text = pdf_text(render_pdf(prepared.html, str(tmp_path)).pdf)
    for ch in ("\u2019", "\u2014") + (("\u2612",) if encoding == "utf-8" else ()):
        assert ch in text, (ch, text)
    assert "â" not in text


def test_page_breaks_become_pages_even_when_a_page_spills(tmp_path):
    long_page = "".join(f"<p>Line {i} of a very long first page.</p>" for i in range(150))
    raw = (f"<html><body>{long_page}<hr style='page-break-after:always'/><p>PAGE-ONE</p>"
           f"<div style='PAGE-BREAK-BEFORE: ALWAYS'>PAGE-TWO 2023</div></body></html>").encode()
    prepared = prepare_html(raw)
    assert prepared.page_breaks == 2
    paged = page_pdf(render_pdf(prepared.html, str(tmp_path)).pdf, prepared.page_breaks)
    assert paged.rendered_page_count > 3  # the first EDGAR page spilled onto more PDF pages
    assert [p.page for p in paged.pages] == [0, 1, 2] and paged.page_basis == "edgar"
    assert "Line 149" in paged.pages[0].text and len(paged.pages[0].rendered_pages) > 1
    assert paged.pages[1].text.strip() == "PAGE-ONE"
    assert paged.pages[2].text.strip() == "PAGE-TWO 2023"  # marker removed, digits untouched
    with pymupdf.open(stream=paged.pdf, filetype="pdf") as doc:
        assert doc.page_count == 3 and "Line 149" in doc[0].get_text()


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"", "empty"),
        (b"\x00\x01\x02binary\x00junk" * 100, "binary"),
        (b"<html><body><p>cut off in the middle of a sen", "truncated"),
        (b"just some words, no markup at all", "no HTML"),
    ],
)
def test_bad_html_is_rejected_with_a_reason(raw, reason):
    with pytest.raises(HtmlError, match=reason):
        prepare_html(raw)


def test_broken_and_encrypted_pdfs_are_rejected(tmp_path):
    with pytest.raises(PdfError, match="not a readable PDF"):
        page_pdf(b"%PDF-1.7\n garbage")
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    with pytest.raises(PdfError, match="encrypted"):
        page_pdf(data)


def _lake_with_filings(tmp_path, docs: dict[str, bytes]) -> LocalLake:
    lake = LocalLake(tmp_path / "lake")
    for i, (name, raw) in enumerate(docs.items()):
        acc = f"0000000001-24-{i:06d}"
        key = f"raw/edgar/1/{acc.replace('-', '')}/{name}"
        lake.write_bytes(key, raw)
        rec = FilingRecord(accession=acc, cik=1, ticker="TEST", company="Test Co", form="10-K", is_amendment=False,
                           filing_date=dt.date(2024, 2, 1 + i), report_date=dt.date(2023, 12, 31),
                           primary_document=name, primary_key=key, bytes=len(raw), sha256=f"sha{i}",
                           fetched_at=dt.datetime.now(dt.UTC), status="ok")
        lake.write_bytes(record_key(1, acc), rec.model_dump_json().encode())
    return lake


def test_stage_quarantines_bad_documents_and_keeps_going(tmp_path):
    good = (b"<html><body><p>FORM 10-K</p><p>For the fiscal year ended December 31, 2023</p>"
            b"<p style='page-break-before:always'>Item 1. Business</p></body></html>")
    huge = b"<html><body>" + b"<p>" + b"x" * (50 * 1024 * 1024) + b"</p></body></html>"  # a 50 MB filing
    lake = _lake_with_filings(tmp_path, {"good.htm": good, "junk.htm": b"\x00\xff" * 5000,
                                         "cut.htm": b"<html><body><p>half", "huge.htm": huge})
    report = run_convert(lake, ConvertOptions(workers=2))
    assert report.converted == 1 and report.quarantined == 3
    reasons = {k: lake.read_bytes(k).decode() for k in lake.list("quarantine/convert")}
    assert len(reasons) == 3
    joined = " ".join(reasons.values())
    assert "binary" in joined and "truncated" in joined and "MB" in joined
    docs = read_parquet(lake, next(k for k in lake.list("datasets/documents")))
    row = docs.to_pylist()[0]
    assert row["doc_id"] == "TEST_2023_10K" and row["page_count"] == 2 and row["metadata_source"] == "text"
    pages = read_parquet(lake, next(k for k in lake.list("datasets/pages")))
    assert pages.column("page").to_pylist() == [0, 1]
    again = run_convert(lake, ConvertOptions())
    assert again.converted == 0 and again.skipped == 1 and again.quarantined == 3
    (facts_part,) = lake.list("datasets/facts")  # plain HTML: an empty facts part, the document is done
    assert read_parquet(lake, facts_part).num_rows == 0
    lake.delete(facts_part)  # a lake converted before facts existed: the document is converted once more
    assert run_convert(lake, ConvertOptions()).converted == 1 and lake.exists(facts_part)


TABLE_HTML = b"""<html><body><p>Results of operations</p>
<table>
<tr><td></td><td colspan="3">Year Ended December 31,</td></tr>
<tr><td></td><td>2023</td><td></td><td>2022</td></tr>
<tr><td>Net<br>revenues</td><td>$</td><td>45,754</td><td></td><td>$</td><td>43,004</td></tr>
<tr><td>Other income (loss)</td><td></td><td>(262</td><td>)</td><td>2,000</td></tr>
<tr style="page-break-before:always"><td>Gross margin</td><td>59.5</td><td>%</td><td>58.1</td><td>%</td></tr>
</table>
<table><tr><td>Signature</td><td>/s/ Jane Doe</td></tr></table>
</body></html>"""


def test_html_tables_are_rows_with_their_header_on_their_edgar_page(tmp_path):
    prepared = prepare_html(TABLE_HTML)
    assert sorted(prepared.tables) == [0, 1]  # the row after the break sits on EDGAR page 1
    (first,), (second,) = prepared.tables[0], prepared.tables[1]
    header, rows = table_rows(first)
    assert header == "Year Ended December 31, / 2023 | 2022"
    assert rows == ["Net revenues | $45,754 | $43,004", "Other income (loss) | (262) | 2,000"]
    assert table_rows(second) == (header, ["Gross margin | 59.5% | 58.1%"])  # header repeated on the next page
    paged = page_pdf(render_pdf(prepared.html, str(tmp_path)).pdf, prepared.page_breaks)
    assert len(paged.pages) == 2


def test_pdf_table_finder_is_opt_in(tmp_path):
    html = (b"<html><head><style>td,th{border:1px solid #000;padding:4px}</style></head><body>"
            b"<table style='border-collapse:collapse;width:80%'><tr><th>Segment</th><th>2023</th><th>2022</th></tr>"
            b"<tr><td>Americas</td><td>1200</td><td>1100</td></tr>"
            b"<tr><td>Europe</td><td>800</td><td>750</td></tr></table></body></html>")
    pdf = render_pdf(prepare_html(html).html, str(tmp_path)).pdf
    assert page_pdf(pdf).pages[0].tables == []
    (table,) = page_pdf(pdf, find_tables=True).pages[0].tables
    assert table_rows(table) == ("Segment | 2023 | 2022", ["Americas | 1200 | 1100", "Europe | 800 | 750"])


def test_a_pdfs_no_break_and_thin_spaces_are_stored_as_plain_spaces():
    """Some filings print every space as U+00A0 (CVS's 2018 10-K): page text is stored with plain spaces, so a
    pattern's ' ' matches it; line breaks stay."""
    doc = pymupdf.open()
    page, font = doc.new_page(), pymupdf.Font("cjk")  # a font that keeps U+00A0 in the text layer
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 72), "Consolidated\xa0Statements\xa0of\xa0Operations", font=font)
    writer.append((72, 100), "Net\u2009sales\u202fincreased", font=font)
    writer.write_text(page)
    assert "\xa0" in pymupdf.open(stream=doc.tobytes()).load_page(0).get_text()
    assert page_pdf(doc.tobytes()).pages[0].text == "Consolidated Statements of Operations\nNet sales increased"


def test_optional_llm_summary_adds_to_the_deterministic_one(tmp_path, llm_endpoint):
    url, seen, answers = llm_endpoint
    good = (b"<html><body><p>FORM 10-K</p><p>For the fiscal year ended December 31, 2023</p></body></html>")
    settings = load_settings(llm_url=url, llm_model="tiny", llm_api_key="sk-test", cover_summary_llm=True)
    assert "sk-test" not in json.dumps(settings.redacted())
    model = llm.from_settings(settings)
    lake = _lake_with_filings(tmp_path, {"a.htm": good})
    run_convert(lake, ConvertOptions(llm_summary=True), llm=model)
    row = read_parquet(lake, next(iter(lake.list("datasets/documents")))).to_pylist()[0]
    assert row["summary_source"] == "llm:tiny" and row["cover_summary"].endswith("Test Co files its annual report.")
    assert seen[0][0] == "/v1/chat/completions" and seen[0][1] == "Bearer sk-test"
    assert seen[0][2]["model"] == "tiny" and "FORM 10-K" in seen[0][2]["messages"][1]["content"]
    # A failing endpoint leaves the deterministic summary and a warning; the document still converts.
    answers.extend([(400, None)])
    lake2 = _lake_with_filings(tmp_path / "b", {"a.htm": good})
    report = run_convert(lake2, ConvertOptions(llm_summary=True), llm=model)
    row = read_parquet(lake2, next(iter(lake2.list("datasets/documents")))).to_pylist()[0]
    assert report.converted == 1 and row["summary_source"] == "deterministic"
    assert any("LLM summary skipped: LLM endpoint refused the request: HTTP 400" in w for w in row["warnings"])


@pytest.mark.parametrize(
    "period_end, form, fye, expected",
    [
        (dt.date(2019, 3, 31), "10-Q", "1231", (2019, "Q1")),  # calendar year
        (dt.date(2024, 9, 28), "10-K", "0928", (2024, "FY")),  # Apple-style September year
        (dt.date(2023, 12, 30), "10-Q", "0930", (2024, "Q1")),  # first quarter of fiscal 2024
        (dt.date(2023, 10, 1), "10-K", "0928", (2023, "FY")),  # a 53-week year ends a few days late
        (dt.date(2024, 4, 28), "10-Q", "0128", (2025, "Q1")),  # January year end
        (dt.date(2023, 6, 30), "10-Q", None, (2023, "Q2")),  # unknown year end: calendar
        # a 52/53-week year ending just after its nominal end: Johnson & Johnson's fiscal 2022 (January 1, 2023)
        (dt.date(2023, 1, 1), "10-K", "1231", (2022, "FY")),
        (dt.date(2023, 1, 1), "10-Q", "1231", (2022, "Q4")),
        (dt.date(2023, 12, 31), "10-K", "1231", (2023, "FY")),
    ],
)
def test_fiscal_period_from_the_fiscal_year_end(period_end, form, fye, expected):
    assert fiscal_period_of(period_end, form, fye) == expected


def test_text_pushed_off_the_page_by_the_layout_is_kept(tmp_path):
    """Seen in Amazon's 10-K: a negative text-indent moves the "Item 10." cell left of the page."""
    raw = (b"<html><body><p>Before.</p><div style='padding-left:54pt;text-indent:-54pt'>"
           b"<table style='display:inline-table;width:99%'><tr><td style='width:10%'>Item 10.</td>"
           b"<td>Directors, Executive Officers and Corporate Governance</td></tr></table></div>"
           b"<p style='page-break-before:always'>Next page.</p></body></html>")
    prepared = prepare_html(raw)
    paged = page_pdf(render_pdf(prepared.html, str(tmp_path)).pdf, prepared.page_breaks, rendered=True)
    assert "Item 10." in paged.pages[0].text and "Directors" in paged.pages[0].text


def test_facts_from_financebench_style_names():
    ten_q = facts_from_source_name("JPMORGAN_2022Q2_10Q")
    assert (ten_q.company, ten_q.form, ten_q.fiscal_year, ten_q.fiscal_period) == ("JPMORGAN", "10-Q", 2022, "Q2")
    assert facts_from_source_name("3M_2018_10K").fiscal_period == "FY"
    event = facts_from_source_name("PEPSICO_2023_8K_dated-2023-05-30")
    assert event.form == "8-K" and event.period_end == dt.date(2023, 5, 30) and event.fiscal_period is None
    assert facts_from_source_name("FOOTLOCKER_2022_8K_dated_2022-08-19").period_end == dt.date(2022, 8, 19)
    assert facts_from_source_name("AMCOR_2023Q4_EARNINGS").form == "EARNINGS"
    assert facts_from_source_name("annual-report").source == "none"
    # the three name forms a FinanceBench-size corpus held back at publish (no period): ISO dates as ISO,
    # the year from the name or the event date
    undated_year = facts_from_source_name("MCDONALDS_8K_dated-2023-01-06")
    assert (undated_year.company, undated_year.form, undated_year.period_end, undated_year.fiscal_year) == (
        "MCDONALDS", "8-K", dt.date(2023, 1, 6), 2023)
    annual = facts_from_source_name("BESTBUY_2023_annualreport")
    assert (annual.company, annual.form, annual.fiscal_year, annual.fiscal_period) == ("BESTBUY", "10-K", 2023, "FY")
    dated = facts_from_source_name("KRAFTHEINZ_2022_8K_dated-2022-11-02")
    assert (dated.period_end, dated.fiscal_year) == (dt.date(2022, 11, 2), 2022)
    assert facts_from_source_name("JOHNSON_JOHNSON_2023_8K_dated-2023-08-30").company == "JOHNSON JOHNSON"



@pytest.mark.parametrize("cover", [
    "FORM 8-K\nDate of Report: June 3, 2024\nItem 2.02",  # was 2024-03-01: 'ne 3, 2024' after a greedy skip
    "FORM 8-K\nDate of Report (Date of earliest event reported): June 3, 2024\n",
    "FORM 8-K\nDate of Report (Date of earliest event reported)\nJune 3, 2024\n"])
def test_an_8k_cover_gives_its_event_date(cover):
    assert facts_from_text([cover]).period_end == dt.date(2024, 6, 3)


@pytest.mark.parametrize(("cover", "end"), [
    ("FORM 10-Q\nFor the quarterly period ended September 30, 2022\n", dt.date(2022, 9, 30)),
    # a PDF cover's columns interleave: the file number's label between the words and the date (JPMorgan)
    ("FORM 10-Q\nFor the quarterly period ended\nCommission file\nSeptember 30, 2022\nnumber 1-5805\n",
     dt.date(2022, 9, 30)),
    ("FORM 10-K\nFor the fiscal year ended\nDecember 31, 2021\n", dt.date(2021, 12, 31)),
    # no date on the next lines: none taken from further on
    ("FORM 10-Q\nFor the quarterly period ended\nCommission file number 1-5805\nJune 3, 2024\n", None),
])
def test_a_reports_cover_gives_its_period_end(cover, end):
    assert facts_from_text([cover]).period_end == end


@pytest.mark.parametrize("above, company", [
    ("FOOT LOCKER, INC.", "FOOT LOCKER, INC."),
    ("Commission File No. 1-10299", None),  # the name is a logo: the file name's company is the better guess
    ("Commission File Number: 1-10299", None),
])
def test_a_cover_text_names_the_company_only_with_a_name(above, company):
    cover = ("FORM 10-K\nFor the fiscal year ended January 29, 2022\nFor the transition period from to\n"
             f"{above}\n(Exact name of registrant as specified in its charter)\nNew York\n")
    assert facts_from_text([cover]).company == company


DEEP_TABLES = (b"<html><body><p>Item 1.</p>" + b"<table><tr><td>" * 86 + b"x" + b"</td></tr></table>" * 86
               + b"<p>END</p></body></html>")
DEEP_DIVS = b"<html><body><p>Item 1.</p>" + b"<div>" * 300 + b"x" + b"</div>" * 300 + b"<p>END</p></body></html>"
UNCLOSED_EMBED = b'<html><body><p>Item 1.</p><embed src="x"><p>AFTER</p></body></html>'


@pytest.mark.parametrize("raw, last", [(DEEP_TABLES, b"END"), (DEEP_DIVS, b"END"), (UNCLOSED_EMBED, b"AFTER")])
def test_deep_nesting_and_unclosed_embeds_lose_no_content(raw, last):
    """The parser used to stop at 256 levels and drop the rest; an unclosed <embed> took the rest of the
    document with it when the sanitizer removed it."""
    prepared = prepare_html(raw)
    assert last in prepared.html and b"Item 1." in prepared.html and b"<embed" not in prepared.html
    assert prepared.visible_chars == len(b"Item1.") + len(b"x" if raw != UNCLOSED_EMBED else b"") + len(last)


@pytest.mark.parametrize("css", [
    '<style>@import"http://evil.invalid/a.css";</style>',
    '<style>@import/**/"http://evil.invalid/b.css";</style>',
    '<style>p { background: u\\72l(http://evil.invalid/c.png) }</style>',
    '<p style="background: u\\72l(http://evil.invalid/d.png)">x</p>',
    "<p style=\"background-image: -webkit-image-set('http://evil.invalid/e.png' 1x)\">x</p>",
    '<p style="b\\61ckground:url(//evil.invalid/f.png)">x</p>',
    '<style>p { font-family: "x"; src: "https://evil.invalid/g.woff" }</style>',
])
def test_css_that_could_fetch_anything_is_removed(css):
    html = prepare_html(f"<html><head>{css}</head><body><p>Item 1.</p>{css}</body></html>".encode()).html
    assert b"evil" not in html and b"Item 1." in html


def test_inline_data_urls_in_css_are_kept():
    css = '<style>p { background: url("data:image/png;base64,AAAA") } q { background: url(data:,x) }</style>'
    html = prepare_html(f"<html><head>{css}</head><body><p>Item 1.</p></body></html>".encode()).html
    assert html.count(b"data:") == 2


def test_conversion_that_loses_content_warns_or_quarantines(tmp_path):
    """The page text is checked against the HTML's visible characters: text that never reaches the page
    (here hidden with visibility:hidden) gives a warning in the run report, and beyond half of the document
    a quarantine record with the reason."""
    body = "<p>Item 1. Business. " + "Revenue grew. " * 200 + "</p>"
    some = f"<html><body>{body}<p style='visibility:hidden'>{'Hidden text. ' * 60}</p></body></html>"
    most = f"<html><body>{body}<p style='visibility:hidden'>{'Hidden text. ' * 900}</p></body></html>"
    lake = _lake_with_filings(tmp_path, {"some.htm": some.encode(), "most.htm": most.encode()})
    report = run_convert(lake, ConvertOptions(workers=2))
    assert report.converted == 1 and report.quarantined == 1
    assert len(report.content_warnings) == 1 and "visible characters" in report.content_warnings[0]
    (reason,) = [lake.read_bytes(k).decode() for k in lake.list("quarantine/convert")]
    assert "content lost: page text holds" in reason


def test_a_redo_that_changes_a_document_moves_its_revision_and_one_that_does_not_keeps_it(tmp_path, monkeypatch):
    """``convert --redo`` after a converter fix: a document whose record or page text comes out different
    goes one revision up (segment, index and publish key on it and redo the document), an unchanged one keeps
    its revision, so the release costs only what the fix changed."""
    folder = tmp_path / "pdfs"
    folder.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "FORM 10-K\nFor the fiscal year ended January 29, 2022\n"
                                        "Commission File No. 1-10299\n(Exact name of registrant as specified)")
    (folder / "FOOTLOCKER_2022_10K.pdf").write_bytes(doc.tobytes())
    lake = LocalLake(tmp_path / "lake")

    def converted(**options) -> tuple:
        report = run_convert(lake, ConvertOptions(pdf_dirs=(folder,), **options))
        row = read_parquet(lake, next(iter(lake.list("datasets/documents")))).to_pylist()[0]
        return report.converted, row["company"], row["revision"], report.revised

    assert converted() == (1, "FOOTLOCKER", 0, [])
    assert converted() == (0, "FOOTLOCKER", 0, [])  # unchanged source: skipped
    assert converted(redo=True) == (1, "FOOTLOCKER", 0, [])  # converted again, the same: nothing to redo
    from etl.convert import pdf_file

    read = pdf_file.facts_from_text
    monkeypatch.setattr(pdf_file, "facts_from_text", lambda texts: replace(read(texts), company="Foot Locker, Inc."))
    done, company, revision, revised = converted(redo=True)
    assert (done, company, revision) == (1, "Foot Locker, Inc.", 1) and revised[0].startswith("FOOTLOCKER_2022_10K:")
    assert converted(redo=True)[1:3] == ("Foot Locker, Inc.", 1)



_KILLED_REDO = """
import sys
from etl.convert import ConvertOptions, run, stage
from kernel.storage import LocalLake
from tests.unit.etl.test_convert import mend_page_text

stage.convert_pdf_file = mend_page_text(stage.convert_pdf_file)
run(LocalLake(sys.argv[1]), ConvertOptions(pdf_dirs=(sys.argv[2],), redo=True, workers=1))
"""  # ``convert --redo`` with the fix below, in a process SECPLAT_KILL_AT kills


def mend_page_text(convert):
    """A converter fix that changes page text only ("anvils" becomes "rockets")."""

    def mended(*args, **kwargs):
        done = convert(*args, **kwargs)
        done.paged.pages[0].text = done.paged.pages[0].text.replace("anvils", "rockets")
        return done

    return mended


@pytest.mark.parametrize("point", ["convert:facts removed", "convert:record written", "convert:pages written"])
def test_a_redo_killed_between_its_writes_reaches_the_chunks_on_the_next_run(tmp_path, monkeypatch, point):
    """A reconversion that changes only page text, SIGKILLed at each of its write points: until the next
    convert run segment leaves the document (its conversion did not finish); that run converts it again
    without ``--redo`` and moves its revision, so segment makes its chunks from the new page text. The order
    of the writes decides it: compared against pages a killed run had already replaced, the change used to be
    lost (the chunks kept the old text for good)."""
    import os
    import subprocess
    import sys

    from etl.convert import stage
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel import faults
    from kernel.models import token_counter

    folder = tmp_path / "pdfs"
    folder.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "FORM 10-K\nAcme Corp\nItem 1. Business\nWe make anvils.")
    (folder / "ACME_2022_10K.pdf").write_bytes(doc.tobytes())
    lake = LocalLake(tmp_path / "lake")
    options = SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2")

    def chunk_text() -> str:
        return " ".join(t for k in lake.list("datasets/chunks") for t in read_parquet(lake, k).column("text").to_pylist())

    run_convert(lake, ConvertOptions(pdf_dirs=(folder,)))
    assert run_segment(lake, options).segmented == 1 and "anvils" in chunk_text()
    killed = subprocess.run([sys.executable, "-c", _KILLED_REDO, str(tmp_path / "lake"), str(folder)],
                            env={**os.environ, faults.KILL_AT: point}, capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr  # the point was reached, the process killed there
    monkeypatch.setattr(stage, "convert_pdf_file", mend_page_text(stage.convert_pdf_file))
    unfinished = run_segment(lake, options)
    assert unfinished.segmented == 0 and unfinished.unfinished[0].startswith("ACME_2022_10K: its conversion")
    assert run_convert(lake, ConvertOptions(pdf_dirs=(folder,))).converted == 1  # no --redo: converted again
    (row,) = read_parquet(lake, next(iter(lake.list("datasets/documents")))).to_pylist()
    assert row["revision"] >= 1  # moved by the killed run (its record written) or by this one
    assert run_segment(lake, options).segmented == 1 and "rockets" in chunk_text()
    assert run_convert(lake, ConvertOptions(pdf_dirs=(folder,))).skipped == 1


def test_a_redo_whose_facts_alone_come_out_different_moves_its_revision(tmp_path, monkeypatch):
    """A converter fix that changes only a document's facts (a period's label) reaches the facts index too:
    the document goes one revision up, as for a record or page text; a redo that changes nothing keeps it."""
    from etl.convert import ixbrl
    from tests.unit.etl.test_facts import DOC

    lake = _lake_with_filings(tmp_path, {"facts.htm": DOC.encode()})

    def revision(**options) -> int:
        run_convert(lake, ConvertOptions(**options))
        return read_parquet(lake, next(iter(lake.list("datasets/documents")))).to_pylist()[0]["revision"]

    assert revision() == 0 and revision(redo=True) == 0
    monkeypatch.setattr(ixbrl, "fact_period", lambda start, end, fye: (end.year, "9M"))
    assert revision(redo=True) == 1
    (facts_part,) = lake.list("datasets/facts")
    assert set(read_parquet(lake, facts_part).column("fiscal_period").to_pylist()) == {"9M"}
