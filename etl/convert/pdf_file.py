"""PDFs that arrive as PDFs (FinanceBench's): pages as they are, metadata from the file name
(``3M_2018_10K``) and the first pages, refused when not a PDF or without a text layer; name collisions
refused before anything is overwritten."""

from __future__ import annotations

import datetime as dt
import re
import time
from pathlib import Path

from etl.convert.cover import (
    CoverFacts,
    cover_summary,
    facts_from_text,
)
from etl.convert.options import ConvertOptions
from etl.convert.pdf_pages import PdfError, page_pdf
from etl.convert.records import Converted, Held
from etl.convert.rendering import with_llm_summary
from kernel.clock import utc_now
from kernel.layout import (
    external_part,
    part_name,
    pdf_key,
)
from kernel.llm import TextModel
from schemas.documents import DocumentRecord

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
    summary, summary_source = with_llm_summary(summarizer, summary, texts[0] if texts else "", warnings)
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


def name_collisions(paths: list[Path], converted: dict[str, Held]) -> dict[Path, str]:
    """PDFs whose names clean to a storage name another file already has (in this run, or a document the
    lake holds from a file of another name): path -> why it is refused. The first file in name order keeps
    the name; none overwrites another."""
    owners: dict[str, str] = {}
    refused: dict[Path, str] = {}
    for path in paths:
        part = part_name(external_part(path.stem))
        earlier = owners.get(part) or (converted[part].identity.key if part in converted else None)
        if earlier is not None and earlier != path.stem:
            refused[path] = (f"name collision: {path.name!r} and {earlier!r} both become the storage name "
                             f"{part!r}; rename one (nothing was overwritten)")
            continue
        owners[part] = path.stem
    return refused
