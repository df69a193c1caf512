"""Conversion stage on the project's own small inputs: sandboxing, encodings, paging and bad input."""

from __future__ import annotations

import datetime as dt
import http.server
import threading

import pymupdf
import pytest

from etl.convert import ConvertOptions, run_convert
from etl.crawler import record_key
from etl.html_prepare import HtmlError, prepare_html
from etl.pdf_pages import PdfError, page_pdf
from etl.pdf_render import render_pdf
from schemas.filings import FilingRecord
from secplat.storage import LocalLake, read_parquet


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
    huge = b"<html><body>" + b"<p>" + b"x" * (41 * 1024 * 1024) + b"</p></body></html>"
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
