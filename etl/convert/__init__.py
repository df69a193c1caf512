"""The conversion stage: raw filings (and PDFs that arrive as PDFs) to paged PDFs, pages and documents.

Per document it writes, atomically and in this order (keys from ``kernel.layout``)::

    pdf/<key>.pdf                          the paged PDF (page i = EDGAR page i)
    datasets/pages/<part>.parquet          PageRecord rows
    datasets/facts/<part>.parquet          FactRecord rows: the inline XBRL facts with their pages (etl.convert.ixbrl)
    datasets/documents/<part>.parquet      one DocumentRecord (written last: it marks the document done)

A document whose ``documents`` part holds the same source sha256 (and that has its ``facts`` part: a lake converted
before facts existed gets them on the next run) is skipped, so reruns are idempotent and
incremental. A document that fails gets ``quarantine/convert/<key>.json`` with the reason; the run goes on.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html as htmllib
import logging
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyarrow as pa

from domain.rules import (
    ANNUAL,
    ANNUAL_REPORT_EXHIBIT,
    EARNINGS,
    base_form,
    exhibit_form,
    fiscal_period_of,
)
from domain.sec_items import incorporated_items
from etl import conservation as conserved
from etl.convert.cover import (
    CoverFacts,
    cover_summary,
    document_id,
    earnings_period,
    exhibit_id,
    exhibit_period,
    facts_from_ixbrl,
    facts_from_text,
)
from etl.convert.html_prepare import HtmlError, PreparedHtml, decode_html, prepare_html
from etl.convert.identity import Identity, amendment_links, assign_ids
from etl.convert.ixbrl import Fact
from etl.convert.pdf_pages import PagedPdf, PdfError, page_pdf
from etl.convert.pdf_render import RenderError, RenderResult, render_pdf
from etl.crawl.crawler import read_records, utc_now
from etl.crawl.filing_index import unwrap
from kernel.layout import (
    dataset_key,
    dataset_parts,
    exhibit_part,
    external_part,
    filing_part,
    part_name,
    pdf_key,
)
from kernel.llm import LlmError, TextModel
from kernel.quarantine import quarantine, release
from kernel.reports import DETAIL, StageReport
from kernel.run_policy import check_batch, in_batch
from kernel.settings import ConfigError, Settings
from kernel.storage import Lake, read_parquet, write_parquet
from schemas.base import to_table
from schemas.documents import DocumentRecord, PageRecord
from schemas.facts import FactRecord
from schemas.filings import ExhibitFile, FilingRecord

log = logging.getLogger(__name__)

STAGE = "convert"
SUMMARY_SYSTEM = ("You summarize the cover page of an SEC filing for a search index. Answer with one or two "
                  "factual sentences naming the company, form, period and business; no speculation.")


@dataclass
class ConvertOptions:
    timeout_s: float = 180.0
    memory_mb: int = 4096
    workers: int = 2
    max_html_bytes: int = 40 * 1024 * 1024  # larger primary documents are quarantined, not rendered
    find_tables: bool = False  # PyMuPDF's table finder for PDFs that arrive as PDFs
    llm_summary: bool = False  # the LLM (passed to run) adds a sentence to the deterministic cover summary
    pdf_dirs: tuple[Path, ...] = ()  # folders of PDFs that arrive as PDFs (converted besides the crawled filings)
    progress: Callable[[Iterable, str, int], Iterable] | None = None
    batch: tuple[int, int] | None = None  # (index, count): only the companies of that batch (domain.rules)

    @classmethod
    def from_settings(cls, settings: Settings, pdf_dirs: Iterable[str | Path] = (), progress=None,
                      batch: tuple[int, int] | None = None) -> ConvertOptions:
        return cls(timeout_s=settings.convert_timeout, memory_mb=settings.convert_memory_mb,
                   workers=settings.convert_workers, max_html_bytes=int(settings.convert_max_html_mb * 1024 * 1024),
                   find_tables=settings.pdf_find_tables,
                   llm_summary=settings.cover_summary_llm,
                   pdf_dirs=check_pdf_dirs(pdf_dirs), progress=progress, batch=check_batch(batch))


def check_pdf_dirs(dirs: Iterable[str | Path]) -> tuple[Path, ...]:
    """Folders of PDFs to convert; one that does not exist is a usage error (ConfigError), never "0 converted"."""
    out = tuple(Path(d) for d in dirs)
    for d in out:
        if not d.is_dir():
            raise ConfigError(f"--pdf-dir {d}: {'not a directory' if d.exists() else 'no such directory'}")
    return out


@dataclass
class ConvertReport(StageReport):
    stage = "convert"
    converted: int = 0
    skipped: int = 0
    quarantined: int = 0
    warnings: int = 0
    content_warnings: list[str] = field(default_factory=list)  # "<doc_id>: ..." where text may be missing
    shared_names: list[str] = field(default_factory=list)  # filings whose LOFin name another filing holds
    # doc_id, pages, render, extract, iXBRL facts seconds; the run report carries their statistics (details())
    timings: list[tuple[str, int, float, float, float]] = field(default_factory=list, metadata=DETAIL)
    facts: int = 0  # iXBRL facts extracted
    fact_problems: list[str] = field(default_factory=list)  # "<doc_id>: n numeric fact(s) without a value"

    def summary(self) -> str:
        return (f"{self.converted} converted, {self.skipped} unchanged, {self.quarantined} quarantined, "
                f"{self.warnings} with warnings")

    def details(self) -> dict:
        return {"timings": self.stats()}

    def stats(self) -> dict:
        """Median/p95 seconds per document for rendering and extraction, and pages per second of each."""
        if not self.timings:
            return {}
        pages = sum(t[1] for t in self.timings)
        render, extract = sorted(t[2] for t in self.timings), sorted(t[3] for t in self.timings)
        facts = sum(t[4] for t in self.timings)

        def pct(values: list[float], q: float) -> float:
            return round(values[min(len(values) - 1, round(q * (len(values) - 1)))], 3)

        return {"documents": len(self.timings), "pages": pages,
                "render_s": {"median": pct(render, 0.5), "p95": pct(render, 0.95), "total": round(sum(render), 1)},
                "extract_s": {"median": pct(extract, 0.5), "p95": pct(extract, 0.95), "total": round(sum(extract), 1)},
                "pages_per_s_render": round(pages / sum(render), 1) if sum(render) else None,
                "pages_per_s_extract": round(pages / sum(extract), 1) if sum(extract) else None,
                "facts_s": {"total": round(facts, 1),  # iXBRL extraction, part of render_s (same parse)
                            "share": round(facts / (sum(render) + sum(extract) - facts), 3) if sum(render) else None}}


def _converted(lake: Lake) -> dict[str, tuple[Identity, str]]:
    """Every document already in the lake: part -> (its identity, its source sha256). Read once per run:
    it decides what is unchanged and which ids are taken."""
    out = {}
    for part in dataset_parts(lake, "documents"):
        rows = read_parquet(lake, dataset_key("documents", part)).to_pylist()
        if len(rows) == 1:
            out[part] = (_identity(part, rows[0]), rows[0]["source_sha256"])
    return out


def _identity(part: str, doc: dict) -> Identity:
    key = doc.get("accession") or doc.get("source_name") or doc["doc_id"]
    if doc.get("exhibit_document"):  # an exhibit shares its filing's accession: its file name tells them apart
        key = f"{key}/{doc['exhibit_document']}"
    return Identity(part, doc["doc_id"], doc.get("doc_name") or doc["doc_id"], key, doc.get("filing_date"),
                    bool(doc.get("is_amendment")), doc.get("amends"))


def settle_identity(lake: Lake, before: dict[str, Identity], converted: dict[str, DocumentRecord]) -> list[str]:
    """Give the documents converted in this run their final ids (``etl.convert.identity``) and link every
    amendment to what it amends, rewriting the parts whose id or link changed (each part atomically).
    Returns one line per document whose name another filing holds."""
    new = {part: _identity(part, doc.model_dump()) for part, doc in converted.items()}
    ids = assign_ids(before, new)
    shared = []
    for part, doc_id in ids.items():
        if doc_id != converted[part].doc_id:
            shared.append(f"{converted[part].doc_name} is also another filing's name: this one is {doc_id}")
            _set_columns(lake, "pages", part, doc_id=doc_id)
            _set_columns(lake, "facts", part, doc_id=doc_id)
            _set_columns(lake, "documents", part, doc_id=doc_id)
    current = {**before, **{p: replace(i, doc_id=ids[p]) for p, i in new.items()}}
    for part, amends in amendment_links(current).items():
        if current[part].amends != amends:
            _set_columns(lake, "documents", part, amends=amends)
    return shared


def _set_columns(lake: Lake, dataset: str, part: str, **values) -> None:
    """Rewrite one part with some columns set to one value each (write-then-rename, like every part)."""
    key = dataset_key(dataset, part)
    table = read_parquet(lake, key)
    for name, value in values.items():
        at = table.schema.get_field_index(name)  # -1: a part written before the column existed
        column = pa.array([value] * table.num_rows, table.schema.field(at).type if at >= 0 else pa.string())
        table = table.set_column(at, name, column) if at >= 0 else table.append_column(name, column)
    write_parquet(lake, key, table)


@dataclass
class Converted:
    """One converted document: its record, its pages and its iXBRL facts (none for PDFs)."""

    doc: DocumentRecord
    paged: PagedPdf
    facts: list[Fact] = field(default_factory=list)
    facts_seconds: float = 0.0  # the iXBRL extraction's share of render_seconds


def _write_outputs(lake: Lake, key: str, paged: PagedPdf, doc: DocumentRecord, facts: list[Fact]) -> None:
    name = part_name(key)
    lake.write_bytes(doc.pdf_key, paged.pdf)
    write_parquet(lake, dataset_key("facts", name),
                  to_table(FactRecord, [FactRecord(doc_id=doc.doc_id, **vars(f)) for f in facts]))
    pages = [PageRecord(doc_id=doc.doc_id, page=p.page, text=p.text, char_count=len(p.text),
                        rendered_pages=p.rendered_pages, tables=p.tables) for p in paged.pages]
    write_parquet(lake, dataset_key("pages", name), to_table(PageRecord, pages))
    write_parquet(lake, dataset_key("documents", name), to_table(DocumentRecord, [doc]))
    release(lake, STAGE, key)


def render_paged(prepared: PreparedHtml, options: ConvertOptions, started: float) -> tuple[RenderResult, PagedPdf,
                                                                                          float]:
    """Render prepared HTML in the sandbox and cut it into EDGAR pages, each with its HTML tables; the
    seconds since ``started`` (preparation included)."""
    with tempfile.TemporaryDirectory(prefix="secplat-render-") as workdir:
        rendered = render_pdf(prepared.html, workdir, timeout=options.timeout_s, memory_mb=options.memory_mb)
    render_s = time.perf_counter() - started
    paged = page_pdf(rendered.pdf, prepared.page_breaks, rendered=True)
    if paged.page_basis == "edgar":
        for p in paged.pages:
            p.tables = prepared.tables.get(p.page, [])
    return rendered, paged, render_s


def html_warnings(prepared: PreparedHtml, rendered: RenderResult, paged: PagedPdf) -> list[str]:
    """What a rendered HTML document's record warns of: blocked resources, text the pages lost (the
    conservation check), bytes that were invalid in its encoding."""
    kept = conservation(prepared.visible_chars, paged)
    warnings = list(rendered.warnings) + ([kept] if kept else [])
    if prepared.replaced_bytes:
        warnings.append(f"{prepared.replaced_bytes} byte(s) invalid in {prepared.encoding}, each replaced by U+FFFD "
                        "where it stood")
    if prepared.encoding_override:
        warnings.append(f"encoding: {prepared.encoding_override}")
    return warnings


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
    summary, summary_source = _with_llm_summary(summarizer, summary, first, warnings)
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
        fiscal_year, fiscal_period, _ = exhibit_period(own, release_text(lake, rec), rec.filing_date,
                                                       rec.fiscal_year_end, rec.report_date)
        cover_id = document_id(ticker, "8-K", None, None, rec.report_date, rec.filing_date)
        doc_id, kind = exhibit_id(cover_id, exhibit.type), "press release"
    headline = " ".join(first.split())[:300]
    period = f" for fiscal {fiscal_period or ''} {fiscal_year or ''}".replace("  ", " ") if form != "8-K" else ""
    items = f", Items {', '.join(rec.items) or 'not listed'}" if base_form(rec.form) == "8-K" else ""
    summary = (f"{company} ({ticker}) {exhibit.type} ({kind}){period} of {base_form(rec.form)} {rec.accession} "
               f"filed {rec.filing_date}{items}. {headline}")
    warnings = html_warnings(prepared, rendered, paged)
    summary, summary_source = _with_llm_summary(summarizer, summary, first, warnings)
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


def conservation(visible_chars: int, paged: PagedPdf) -> str | None:
    """What was read (the HTML's visible characters) against what was extracted (the page text)."""
    return conserved.check(sum(conserved.visible(p.text) for p in paged.pages), visible_chars,
                           "page text holds {kept} of the HTML's {read} visible characters")


def _with_llm_summary(model: TextModel | None, summary: str, cover_text: str,
                      warnings: list[str]) -> tuple[str, str]:
    """The deterministic summary, plus the LLM's sentence when one is configured (never instead of it)."""
    if model is None:
        return summary, "deterministic"
    try:
        extra = model.complete(SUMMARY_SYSTEM, f"{summary}\n\nCover page:\n{cover_text[:6000]}", max_tokens=160)
    except LlmError as exc:
        warnings.append(f"LLM summary skipped: {exc}")
        return summary, "deterministic"
    return f"{summary}\n{extra}", f"llm:{model.name}"


_FB_NAME_RE = re.compile(r"^(?P<company>.+?)(?:_(?P<year>\d{4})(?P<q>Q[1-4])?)?_(?P<kind>10K|10Q|8K|EARNINGS|annualreport)",
                         re.I)
_DATED_RE = re.compile(r"_dated[-_](\d{4}-\d{2}-\d{2})", re.I)


def facts_from_source_name(name: str) -> CoverFacts:
    """What a FinanceBench-style file name says: ``3M_2018_10K``, ``JPMORGAN_2022Q2_10Q``,
    ``PEPSICO_2023_8K_dated-2023-05-30``, ``MCDONALDS_8K_dated-2023-01-06`` (no year: the event date's),
    ``AMD_2022_annualreport`` (the annual report to shareholders: a 10-K's fiscal year). Dates are ISO."""
    m = _FB_NAME_RE.match(name)
    if not m:
        return CoverFacts(source="none")
    kind = m.group("kind").upper()
    form = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "ANNUALREPORT": "10-K"}.get(kind, kind)
    period = m.group("q").upper() if m.group("q") else ("FY" if form == "10-K" else None)
    dated = _DATED_RE.search(name)  # an 8-K's event date: ``PEPSICO_2023_8K_dated-2023-05-30``
    try:
        event = dt.date.fromisoformat(dated.group(1)) if dated else None
    except ValueError:
        event = None
    year = int(m.group("year")) if m.group("year") else (event.year if event else None)
    return CoverFacts(company=m.group("company").replace("_", " "), form=form, fiscal_year=year,
                      fiscal_period=period, period_end=event, source="name")


def convert_pdf_file(path: Path, data: bytes, sha: str, options: ConvertOptions,
                     summarizer: TextModel | None = None) -> Converted:
    """A PDF that arrives as a PDF: pages as they are (no iXBRL facts); its file name is kept as ``source_name``.
    Bytes that are not a PDF, and a PDF without any text layer, are refused (PdfError: quarantined)."""
    if b"%PDF-" not in data[:1024]:
        start = data[:16].decode("ascii", "replace").strip()
        raise PdfError(f"not a PDF: the file's bytes start with {start!r}, not %PDF-")
    started = time.perf_counter()
    paged = page_pdf(data, find_tables=options.find_tables)
    extract_s = time.perf_counter() - started
    blank = [p.page for p in paged.pages if not p.text.strip()]
    if paged.pages and len(blank) == len(paged.pages):
        raise PdfError(f"no text layer on any of its {len(paged.pages)} page(s) (scanned pages, need OCR)")
    name = path.stem
    texts = [p.text for p in paged.pages[:2]]
    from_text = facts_from_text(texts)
    from_name = facts_from_source_name(name)
    form = from_name.form or from_text.form or "unknown"
    company = from_text.company or from_name.company or name
    fiscal_year = from_name.fiscal_year or from_text.fiscal_year
    fiscal_period = from_name.fiscal_period or from_text.fiscal_period
    period_end = from_name.period_end or from_text.period_end  # a dated name is the filer's own word
    key = external_part(name)
    warnings: list[str] = [_no_text_layer(blank)] if blank else []
    summary = cover_summary(company, name.split("_")[0], form, fiscal_year, fiscal_period, period_end,
                            from_text, texts[0] if texts else "")
    summary, summary_source = _with_llm_summary(summarizer, summary, texts[0] if texts else "", warnings)
    return Converted(DocumentRecord(
        doc_id=name, doc_name=name, source_name=name, source_kind="pdf", company=company, form=form, fiscal_year=fiscal_year,
        fiscal_period=fiscal_period, period_end=period_end, metadata_source=from_text.source,
        page_count=len(paged.pages), page_basis="pdf", rendered_page_count=paged.rendered_page_count,
        cover_summary=summary, summary_source=summary_source, pdf_key=pdf_key(key), source_key=str(path),
        source_sha256=sha, warnings=warnings, extract_seconds=round(extract_s, 3), processed_at=utc_now(),
    ), paged)


def _no_text_layer(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10]) + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
    return f"no text layer (scanned page, needs OCR) on page(s) {shown}"


def pdf_files(folder: Path) -> list[Path]:
    """The PDFs of a folder, by extension in any case (``.pdf``, ``.PDF``), in name order."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")


def name_collisions(paths: list[Path], converted: dict[str, tuple[Identity, str]]) -> dict[Path, str]:
    """PDFs whose names clean to a storage name another file already has (in this run, or a document the
    lake holds from a file of another name): path -> why it is refused. The first file in name order keeps
    the name; none overwrites another."""
    owners: dict[str, str] = {}
    refused: dict[Path, str] = {}
    for path in paths:
        part = part_name(external_part(path.stem))
        earlier = owners.get(part) or (converted[part][0].key if part in converted else None)
        if earlier is not None and earlier != path.stem:
            refused[path] = (f"name collision: {path.name!r} and {earlier!r} both become the storage name "
                             f"{part!r}; rename one (nothing was overwritten)")
            continue
        owners[part] = path.stem
    return refused


def run(lake: Lake, options: ConvertOptions, llm: TextModel | None = None) -> ConvertReport:
    """Convert every crawled filing with an ``ok`` record, plus every PDF under ``options.pdf_dirs``; with
    ``options.llm_summary`` the ``llm`` client adds to each cover summary."""
    progress = options.progress or (lambda it, desc, total: it)
    summarizer = llm if options.llm_summary else None
    report = ConvertReport()
    jobs: list[tuple[str, str, str, Callable[[], Converted]]] = []
    for rec in read_records(lake):
        if rec.status != "ok" or not rec.primary_key or not in_batch(rec.cik, rec.ticker or "", options.batch):
            continue
        key = filing_part(rec.cik, rec.accession)
        jobs.append((key, rec.accession, rec.sha256 or "", lambda rec=rec: convert_filing(lake, rec, options, summarizer)))
        for ex in (e for e in rec.exhibits if e.status == "ok" and e.key):
            jobs.append((exhibit_part(rec.cik, rec.accession, ex.name), f"{rec.accession} {ex.name}", ex.sha256 or "",
                         lambda rec=rec, ex=ex: convert_exhibit(lake, rec, ex, options, summarizer)))
    before = _converted(lake)
    paths = [p for folder in options.pdf_dirs for p in pdf_files(Path(folder)) if in_batch(None, p.stem, options.batch)]
    refused = name_collisions(paths, before)
    for path, why in refused.items():
        quarantine(lake, STAGE, path.name, external_part(path.stem) + "-collision-"
                   + hashlib.sha256(path.name.encode()).hexdigest()[:8], why, str(path))
        report.quarantined += 1
        report.problems.append(f"{path.name}: quarantined: {why}")
    for path in (p for p in paths if p not in refused):
        with path.open("rb") as fh:  # streamed: a folder of PDFs is never held in memory at once
            sha = hashlib.file_digest(fh, "sha256").hexdigest()
        jobs.append((external_part(path.stem), path.stem, sha,
                     lambda path=path, sha=sha: convert_pdf_file(path, path.read_bytes(), sha, options, summarizer)))

    with_facts = set(dataset_parts(lake, "facts"))  # a document converted before facts existed is redone once
    todo = []
    for job in jobs:
        if before.get(part_name(job[0]), (None, None))[1] == job[2] and part_name(job[0]) in with_facts:
            report.skipped += 1
        else:
            todo.append(job)
    converted: dict[str, DocumentRecord] = {}

    def one(job) -> tuple[DocumentRecord, int, str | None, float]:
        """Convert and write one document; what the report needs is all that is kept (not its PDF or facts:
        a run over thousands of filings must not hold them)."""
        key, document, _, work = job
        done = work()
        _write_outputs(lake, key, done.paged, done.doc, done.facts)
        missing = [f for f in done.facts if f.kind == "numeric" and f.value is None and not f.nil]
        problem = (f"{done.doc.doc_id}: {len(missing)} numeric fact(s) without a value (first: {missing[0].problem})"
                   if missing else None)
        return done.doc, len(done.facts), problem, done.facts_seconds

    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        futures = {pool.submit(one, job): job for job in todo}
        for fut in progress(as_completed(futures), "convert", len(futures)):
            key, document, _, _ = futures.pop(fut)
            try:
                doc, facts, fact_problem, facts_seconds = fut.result()
            except (HtmlError, RenderError, PdfError, OSError, ValueError) as exc:
                quarantine(lake, STAGE, document, key, f"{type(exc).__name__}: {exc}", key)
                report.quarantined += 1
                report.problems.append(f"{document}: quarantined: {exc}")
                continue
            converted[part_name(key)] = doc
            report.converted += 1
            report.warnings += bool(doc.warnings)
            report.content_warnings += [f"{doc.doc_id}: {w}" for w in doc.warnings if w.startswith("content ")]
            report.timings.append((doc.doc_id, doc.page_count, doc.render_seconds, doc.extract_seconds, facts_seconds))
            report.facts += facts
            report.fact_problems += [fact_problem] if fact_problem else []
    report.shared_names = settle_identity(lake, {p: i for p, (i, _) in before.items()}, converted)
    return report
