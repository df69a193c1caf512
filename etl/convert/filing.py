"""A crawled filing's primary document as a document: rendered, paged, described by its cover, its
Items incorporated from an annual report the corpus does not hold recorded."""

from __future__ import annotations

import hashlib
import time

from domain.rules import (
    ANNUAL,
    ANNUAL_REPORT_EXHIBIT,
    base_form,
    fiscal_period_of,
)
from domain.sec_items import incorporated_items
from etl.convert.cover import (
    cover_summary,
    document_id,
    facts_from_ixbrl,
    facts_from_text,
)
from etl.convert.exhibit import text_exhibit_html
from etl.convert.html_prepare import HtmlError, decode_html, prepare_html
from etl.convert.options import ConvertOptions
from etl.convert.records import Converted
from etl.convert.rendering import html_warnings, render_paged, with_llm_summary
from kernel.clock import utc_now
from kernel.filing_records import unwrap
from kernel.layout import (
    filing_part,
    pdf_key,
)
from kernel.llm import TextModel
from kernel.storage import Lake
from schemas.documents import DocumentRecord
from schemas.filings import FilingRecord


def convert_filing(lake: Lake, rec: FilingRecord, options: ConvertOptions,
                   summarizer: TextModel | None = None) -> Converted:
    """Render, page and describe one crawled filing, with its iXBRL facts (raises HtmlError/RenderError/PdfError)."""
    raw = lake.read_bytes(rec.primary_key)
    if rec.primary_document.lower().endswith(".txt"):  # plain text (a filing from before HTML): paged as text
        raw = text_exhibit_html(decode_html(unwrap(raw))[0])
    cap = options.max_html_bytes
    if len(raw) > cap:
        raise HtmlError(f"primary document is {len(raw) / 1e6:.1f} MB, over the {cap / 1e6:.1f} MB cap "
                        "(CONVERT_MAX_HTML_MB)")
    started = time.perf_counter()
    prepared = prepare_html(raw, rec.fiscal_year_end)
    rendered, paged, render_s = render_paged(prepared, options, started)
    extract_s = time.perf_counter() - started - render_s
    cover = facts_from_ixbrl(prepared.source_text) or facts_from_text([p.text for p in paged.pages[:2]])
    form = base_form(rec.form)
    fiscal_year, fiscal_period = cover.fiscal_year, cover.fiscal_period
    period_end = cover.period_end or rec.report_date
    if (cover.source != "ixbrl" or fiscal_year is None or fiscal_period is None) and period_end and \
            form in ("10-K", "10-Q"):  # the company's own fiscal year end beats a calendar guess
        fiscal_year, fiscal_period = fiscal_period_of(period_end, form, rec.fiscal_year_end)
    ticker = rec.ticker
    company = rec.company or cover.company or ticker
    doc_id = document_id(ticker, form, fiscal_year, fiscal_period, period_end, rec.filing_date, rec.is_amendment)
    warnings = html_warnings(prepared, rendered, paged)
    if paged.missing_markers:
        warnings.append(f"{len(paged.missing_markers)} page-break marker(s) did not render")
    if cover.form and cover.form != form:
        warnings.append(f"cover says form {cover.form}, EDGAR says {rec.form}")
    absent = absent_items(rec, form, "\n".join(p.text for p in paged.pages), warnings)
    first = paged.pages[0].text if paged.pages else ""
    summary = cover_summary(company, ticker, form, fiscal_year, fiscal_period, period_end, cover, first)
    summary, summary_source = with_llm_summary(summarizer, summary, first, warnings)
    return Converted(DocumentRecord(
        doc_id=doc_id, doc_name=doc_id, accession=rec.accession, source_kind="html", cik=rec.cik, ticker=ticker, company=company,
        form=form, is_amendment=rec.is_amendment, fiscal_year=fiscal_year, fiscal_period=fiscal_period,
        period_end=period_end, filing_date=rec.filing_date, filing_items=list(rec.items), absent_items=absent,
        trading_symbols=cover.trading_symbols,
        exchanges=cover.exchanges, shares_outstanding=cover.shares_outstanding, filer_category=cover.filer_category,
        metadata_source=cover.source, page_count=len(paged.pages), page_basis=paged.page_basis,
        rendered_page_count=paged.rendered_page_count,
        cover_summary=summary, summary_source=summary_source, pdf_key=pdf_key(filing_part(rec.cik, rec.accession)),
        source_key=rec.primary_key,
        source_sha256=rec.sha256 or hashlib.sha256(raw).hexdigest(), warnings=warnings,
        render_seconds=round(render_s, 3), extract_seconds=round(extract_s, 3), processed_at=utc_now(),
    ), paged, prepared.facts, prepared.facts_seconds)


def absent_items(rec: FilingRecord, form: str, text: str, warnings: list[str]) -> list[str]:
    """A 10-K's Items incorporated by reference from its Annual Report to Stockholders (Exhibit 13) when
    the crawl holds no such exhibit of the filing (``EXHIBIT_TYPES`` without ``EX-13*``, or a failed fetch):
    their text is not in the corpus, which the document's warnings and record say."""
    if form != ANNUAL:
        return []
    items = incorporated_items(text)
    held = any(e.status == "ok" and e.type.upper().startswith(ANNUAL_REPORT_EXHIBIT) for e in rec.exhibits)
    if not items or held:
        return []
    warnings.append(f"Items {', '.join(items)} are incorporated by reference from the Annual Report to "
                    f"Stockholders ({ANNUAL_REPORT_EXHIBIT}), which the corpus does not hold: their text is absent")
    return items
