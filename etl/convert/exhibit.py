"""A filing's exhibit as a document of its own: an 8-K's EX-99 (earnings or press release) or a 10-K's
EX-13 (annual report to stockholders), with the period its words (or its 8-K's release) name."""

from __future__ import annotations

import hashlib
import html as htmllib
import re
import time

from domain.rules import (
    ANNUAL,
    EARNINGS,
    base_form,
    exhibit_form,
    fiscal_period_of,
)
from etl.convert.cover import (
    document_id,
    earnings_period,
    exhibit_id,
    exhibit_period,
)
from etl.convert.html_prepare import HtmlError, decode_html, prepare_html
from etl.convert.options import ConvertOptions
from etl.convert.records import Converted
from etl.convert.rendering import html_warnings, render_paged, with_llm_summary
from kernel.clock import utc_now
from kernel.filing_records import unwrap
from kernel.layout import (
    exhibit_part,
    pdf_key,
)
from kernel.llm import TextModel
from kernel.storage import Lake
from schemas.documents import DocumentRecord
from schemas.filings import ExhibitFile, FilingRecord

IMAGES_ONLY_CHARS = 200  # an exhibit with images and less text than this is page images, not a text release


_PAGE_MARK_RE = re.compile(r"\f|^\s*<PAGE>\s*$", re.M | re.I)


_TAG_RE = re.compile(r"<[^>]*>")


def text_exhibit_html(text: str) -> bytes:
    """A plain-text exhibit as HTML the renderer pages as the filer did: one ``<pre>`` per page, a page
    break at each form feed or ``<PAGE>`` line."""
    from html import escape

    pages = [p for p in _PAGE_MARK_RE.split(text) if p.strip()] or [text]
    body = "".join(f'<pre style="white-space:pre-wrap;font:10pt monospace{";page-break-before:always" if i else ""}">'
                   f"{escape(p)}</pre>" for i, p in enumerate(pages))
    return f"<html><head><meta charset=\"utf-8\"></head><body>{body}</body></html>".encode()


def convert_exhibit(lake: Lake, rec: FilingRecord, exhibit: ExhibitFile, options: ConvertOptions,
                    summarizer: TextModel | None = None) -> Converted:
    """An exhibit of a crawled filing (an 8-K's EX-99 release) as a document of its own: the SGML wrapper
    removed, HTML rendered like any filing (plain text paged as text), linked to its filing by accession,
    with the 8-K's Items and its exhibit type. An earnings release (``domain.rules.exhibit_form``) takes the
    fiscal period its own first page names; a 10-K's Exhibit 13 is its annual report to stockholders, a 10-K
    document of the 10-K's fiscal year (``IBM_2023_10K_EX13``); other exhibits are press releases, of the
    period their words (or their 8-K's release) name."""
    raw = unwrap(lake.read_bytes(exhibit.key))
    text_doc = exhibit.name.lower().endswith(".txt")
    html_bytes = text_exhibit_html(decode_html(raw)[0]) if text_doc else raw
    started = time.perf_counter()
    prepared = prepare_html(html_bytes, rec.fiscal_year_end)
    if prepared.visible_chars < IMAGES_ONLY_CHARS and b"<img" in html_bytes.lower():
        raise HtmlError(f"no text layer (images only): {prepared.visible_chars} characters of text around page "
                        "images; not indexed empty")
    rendered, paged, render_s = render_paged(prepared, options, started)
    first = paged.pages[0].text if paged.pages else ""
    form = exhibit_form(exhibit.type, rec.items, rec.form)
    ticker, company = rec.ticker, rec.company or rec.ticker
    own = " ".join(p.text for p in paged.pages[:2])
    if form == EARNINGS:
        fiscal_year, fiscal_period = earnings_period(own, rec.filing_date, rec.fiscal_year_end, rec.report_date)
        doc_id, kind = document_id(ticker, form, fiscal_year, fiscal_period, None, rec.filing_date), "earnings release"
    elif form == ANNUAL:  # the 10-K's annual report to stockholders: the 10-K's fiscal year
        fiscal_year, fiscal_period = fiscal_period_of(rec.report_date, ANNUAL, rec.fiscal_year_end) \
            if rec.report_date else (None, None)
        doc_id = exhibit_id(document_id(ticker, ANNUAL, fiscal_year, fiscal_period, rec.report_date, rec.filing_date,
                                        rec.is_amendment), exhibit.type)
        kind = "annual report to stockholders"
    else:
        fiscal_year, fiscal_period, _ = exhibit_period(own, lambda: release_text(lake, rec), rec.filing_date,
                                                       rec.fiscal_year_end, rec.report_date)
        cover_id = document_id(ticker, "8-K", None, None, rec.report_date, rec.filing_date)
        doc_id, kind = exhibit_id(cover_id, exhibit.type), "press release"
    headline = " ".join(first.split())[:300]
    period = f" for fiscal {fiscal_period or ''} {fiscal_year or ''}".replace("  ", " ") if form != "8-K" else ""
    items = f", Items {', '.join(rec.items) or 'not listed'}" if base_form(rec.form) == "8-K" else ""
    summary = (f"{company} ({ticker}) {exhibit.type} ({kind}){period} of {base_form(rec.form)} {rec.accession} "
               f"filed {rec.filing_date}{items}. {headline}")
    warnings = html_warnings(prepared, rendered, paged)
    summary, summary_source = with_llm_summary(summarizer, summary, first, warnings)
    return Converted(DocumentRecord(
        doc_id=doc_id, doc_name=doc_id, accession=rec.accession, source_name=exhibit.name, source_kind="html",
        cik=rec.cik, ticker=ticker, company=company, form=form, fiscal_year=fiscal_year,
        fiscal_period=fiscal_period, period_end=rec.report_date, filing_date=rec.filing_date,
        filing_items=list(rec.items), exhibit_type=exhibit.type, exhibit_document=exhibit.name,
        exhibit_description=exhibit.description.split(" | ")[0] or None, metadata_source="text",
        page_count=len(paged.pages), page_basis=paged.page_basis, rendered_page_count=paged.rendered_page_count,
        cover_summary=summary, summary_source=summary_source,
        pdf_key=pdf_key(exhibit_part(rec.cik, rec.accession, exhibit.name)), source_key=exhibit.key,
        source_sha256=exhibit.sha256 or hashlib.sha256(raw).hexdigest(), warnings=warnings,
        render_seconds=round(render_s, 3), extract_seconds=0.0, processed_at=utc_now(),
    ), paged, [], 0.0)


def release_text(lake: Lake, rec: FilingRecord, chars: int = 8000) -> str | None:
    """The words of the earnings release an 8-K carries (``domain.rules.exhibit_form``), from its stored
    document (no rendering: its period is all that is read); None when the 8-K has none or it is unreadable."""
    earnings = next((e for e in rec.exhibits if e.status == "ok" and e.key
                     and exhibit_form(e.type, rec.items) == EARNINGS), None)
    if earnings is None:
        return None
    try:
        text = decode_html(unwrap(lake.read_bytes(earnings.key))).text
    except (FileNotFoundError, HtmlError):
        return None
    return " ".join(htmllib.unescape(_TAG_RE.sub(" ", text)).split())[:chars]
