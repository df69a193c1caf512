"""Document-level datasets of the conversion stage: pages, documents and the quarantine."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class PageRecord(BaseModel):
    """One EDGAR page (0-based) of a document, as text in reading order."""

    doc_id: str
    page: int = Field(description="0-based page number: EDGAR page for filings, PDF page for native PDFs")
    text: str = Field(json_schema_extra={"es": "text"})
    char_count: int
    rendered_pages: list[int] = Field(description="0-based pages of the rendered PDF this page came from")
    tables: list[str] = Field(default_factory=list, description="Data tables on the page: a header line, "
                              "then one line per row, cells separated by ' | '")


class DocumentRecord(BaseModel):
    """A converted document with its cover metadata and the summary used for document retrieval."""

    doc_id: str = Field(description="Unique per filing: the LOFin-style name, or the name plus the accession "
                        "when another filing holds the name (etl.convert.identity)")
    doc_name: str | None = Field(None, description="LOFin-style name, e.g. KO_2023_10K, AAPL_2023Q3_10Q, "
                                 "AAPL_2024-05-02_8K; amendments end in A")
    accession: str | None = None
    source_name: str | None = Field(None, description="The source's own name (e.g. FinanceBench 3M_2018_10K)")
    source_kind: str = Field(description="html (rendered here) or pdf (arrived as PDF)")
    cik: int | None = None
    ticker: str | None = None
    company: str | None = None
    form: str | None = None
    is_amendment: bool = False
    amends: str | None = Field(None, description="doc_id of the filing an amendment amends, when in the lake")
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    period_end: dt.date | None = None
    filing_date: dt.date | None = None
    filing_items: list[str] = Field(default_factory=list, description="The 8-K's Items (a cover and its exhibits)")
    exhibit_type: str | None = Field(None, description="EX-99.1, ...: this document is an exhibit of its filing")
    sp500_member: bool | None = Field(None, description="Its company was an S&P 500 member on the period end "
                                      "(else the filing date), by the company directory's periods "
                                      "(domain.membership); None: no membership known")
    revision: int = Field(0, description="Corrections of its metadata since conversion (a membership "
                          "correction re-flags sp500_member): each makes the later stages redo the document")
    exhibit_document: str | None = Field(None, description="The exhibit's EDGAR file name")
    exhibit_description: str | None = None
    absent_items: list[str] = Field(default_factory=list, description="Items the filing incorporates by "
                                    "reference from a document the corpus does not hold (a 10-K's Annual "
                                    "Report to Stockholders, Exhibit 13): their text is not indexed")
    trading_symbols: list[str] = Field(default_factory=list)
    exchanges: list[str] = Field(default_factory=list)
    shares_outstanding: float | None = None
    filer_category: str | None = None
    metadata_source: str = Field(description="ixbrl | text | manifest: where the cover fields came from")
    page_count: int
    page_basis: str = Field(description="edgar (cut at the filing's page breaks) or pdf (pages as received)")
    rendered_page_count: int
    cover_summary: str = Field(json_schema_extra={"es": "text"})
    summary_source: str = Field("deterministic", description="deterministic, or llm:<model> when an LLM added to it")
    pdf_key: str
    source_key: str
    source_sha256: str
    warnings: list[str] = Field(default_factory=list)
    render_seconds: float = Field(0.0, description="HTML preparation and wkhtmltopdf (0 for PDFs)")
    extract_seconds: float = Field(description="Paging and text/table extraction with PyMuPDF")
    processed_at: dt.datetime


class QuarantineRecord(BaseModel):
    """A document a stage could not process, and why; the run goes on without it."""

    document: str = Field(description="accession or source name")
    stage: str
    reason: str
    source_key: str | None = None
    at: dt.datetime
