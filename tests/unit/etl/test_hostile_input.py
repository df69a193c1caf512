"""Hostile or careless input never loses a document silently: each class of input gets its exact outcome
(documents kept, text kept, the quarantine reason, the error line and exit code), never a traceback."""

from __future__ import annotations

import json

import pymupdf
import pytest

from etl.convert import ConvertOptions
from etl.convert import run as run_convert
from etl.convert.html_prepare import HtmlError, decode_html, prepare_html, source_chars
from etl.convert.pdf_file import name_collisions
from kernel.storage import LocalLake, read_parquet
from shell.cli import main


def text_pdf(*pages: str, image_pages: int = 0) -> bytes:
    """A PDF whose pages carry the given text, then ``image_pages`` pages that are only a picture."""
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_text((72, 72), text)
    for _ in range(image_pages):
        page = doc.new_page()
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
        pix.clear_with(200)
        page.insert_image(pymupdf.Rect(72, 72, 272, 272), pixmap=pix)
    return doc.tobytes()


def _convert(tmp_path, files: dict[str, bytes]):
    folder = tmp_path / "pdfs"
    folder.mkdir(exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    lake = LocalLake(tmp_path / "lake")
    return lake, run_convert(lake, ConvertOptions(workers=1, pdf_dirs=(folder,)))


def _reasons(lake) -> list[str]:
    return sorted(json.loads(lake.read_bytes(k))["reason"] for k in lake.list("quarantine/convert"))


def _documents(lake) -> list[str]:
    return sorted(read_parquet(lake, k).to_pylist()[0]["source_name"] for k in lake.list("datasets/documents"))


def test_names_that_clean_to_one_storage_name_never_overwrite(tmp_path):
    lake, report = _convert(tmp_path, {"ACME report 2023.pdf": text_pdf("ACME annual report, first file"),
                                       "ACME_report_2023.pdf": text_pdf("ACME annual report, second file")})
    assert (report.converted, report.quarantined) == (1, 1)
    assert _documents(lake) == ["ACME report 2023"]
    (reason,) = _reasons(lake)
    assert "name collision: 'ACME_report_2023.pdf' and 'ACME report 2023' both become the storage name" in reason
    (tmp_path / "pdfs" / "ACME report 2023.pdf").unlink()  # a later run with only the other file: still refused
    _, again = _convert(tmp_path, {})
    assert (again.converted, again.quarantined) == (0, 1) and _documents(lake) == ["ACME report 2023"]


def test_collisions_are_decided_before_any_conversion():
    from pathlib import Path

    refused = name_collisions([Path("a/X 1.pdf"), Path("b/X_1.pdf"), Path("b/Y.pdf")], {})
    assert list(refused) == [Path("b/X_1.pdf")]


def test_upper_case_extension_is_a_pdf_and_html_named_pdf_is_refused(tmp_path):
    lake, report = _convert(tmp_path, {"KO_2023_10K.PDF": text_pdf("The Coca-Cola Company annual report"),
                                       "FAKE_2023_10K.pdf": b"<html><body><p>not a pdf</p></body></html>"})
    assert (report.converted, report.quarantined) == (1, 1)
    assert _documents(lake) == ["KO_2023_10K"]
    assert _reasons(lake) == ["PdfError: not a PDF: the file's bytes start with '<html><body><p>n', not %PDF-"]


def test_pages_without_a_text_layer_are_named_and_an_image_only_pdf_is_quarantined(tmp_path):
    lake, report = _convert(tmp_path, {"SCAN_2023_10K.pdf": text_pdf(image_pages=2),
                                       "MIXED_2023_10K.pdf": text_pdf("Item 7. Revenue grew.", image_pages=1)})
    assert (report.converted, report.quarantined) == (1, 1)
    assert _reasons(lake) == ["PdfError: no text layer on any of its 2 page(s) (scanned pages, need OCR)"]
    (key,) = lake.list("datasets/documents")
    assert read_parquet(lake, key).to_pylist()[0]["warnings"] == [
        "no text layer (scanned page, needs OCR) on page(s) 1"]


def test_a_missing_pdf_dir_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LAKE_ROOT", str(tmp_path / "lake"))
    assert main(["convert", "--pdf-dir", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --pdf-dir {tmp_path / 'nowhere'}: no such directory\n"


def test_nesting_deeper_than_the_parser_keeps_is_refused_with_the_reason():
    deep = b"<html><body><p>Item 1.</p>" + b"<div>" * 2100 + b"deep text" + b"</div>" * 2100 + \
        b"<p>" + b"After the nest. " * 20 + b"</p></body></html>"
    with pytest.raises(HtmlError, match=r"nested deeper than the parser's limit .* holds 6 of the source's 274 characters"):
        prepare_html(deep)
    assert source_chars(deep.decode()) == len("Item1.deeptext") + len("Afterthenest.") * 20


def test_an_invalid_byte_is_replaced_where_it_stands_not_a_codepage_switch():
    raw = "<html><body><p>caf\u00e9 \u2014 \u2612 na\u00efve</p></body></html>".encode()
    bad = raw.replace(b"caf", b"c\xffaf")
    text, encoding, replaced, _ = decode_html(bad)
    assert (encoding, replaced) == ("utf-8", 1)
    assert "c\ufffdaf\u00e9 \u2014 \u2612 na\u00efve" in text
    prepared = prepare_html(bad)
    assert prepared.replaced_bytes == 1 and "\u2014".encode() in prepared.html
    cp1252 = "<html><body><p>\u2019quoted\u2019</p></body></html>".encode("cp1252")  # no UTF-8 sequence at all
    assert decode_html(cp1252)[1:] == ("cp1252", 0, "")


def test_a_utf8_declaration_its_bytes_contradict_is_cp1252_and_says_so():
    page = ("<html><head><meta charset=\"utf-8\"></head><body><p>Soci\u00e9t\u00e9 G\u00e9n\u00e9rale, "
            "\u201cquoted\u201d \u2014 5\u00a0%</p></body></html>")
    text, encoding, replaced, override = decode_html(page.encode("cp1252"))
    assert "Soci\u00e9t\u00e9 G\u00e9n\u00e9rale, \u201cquoted\u201d \u2014" in text and "\ufffd" not in text
    assert (encoding, replaced) == ("cp1252", 0)
    assert override.startswith("declared utf-8 but holds 8 high byte(s) and no valid UTF-8 sequence")
    prepared = prepare_html(page.encode("cp1252"))
    assert prepared.encoding_override == override and "Soci\u00e9t\u00e9".encode() in prepared.html
    # real UTF-8 with one stray byte stays UTF-8 (the byte replaced), with no override
    utf8 = page.encode().replace(b"quoted", b"quo\xffted")
    assert decode_html(utf8)[1:] == ("utf-8", 1, "")
