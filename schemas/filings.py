"""The raw lake's filing manifest: one record per (accession) crawled from EDGAR."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

FilingStatus = Literal["ok", "missing", "failed"]


class ExhibitFile(BaseModel):
    """One document of a filing besides its primary document, as the crawl chose and fetched it."""

    name: str = Field(description="File name on EDGAR; empty for a document only inside the full submission")
    type: str = Field(description="SGML type: EX-99.1, GRAPHIC, ...")
    sequence: str = ""
    description: str = ""
    key: str | None = Field(None, description="Lake key of the bytes as EDGAR serves them")
    bytes: int | None = None
    sha256: str | None = None
    status: str = Field(description="ok | skipped (by rule: the reason says which) | missing (404) | failed")
    from_submission: bool = Field(False, description="Cut from the full submission (it has no file of its own)")
    error: str | None = Field(None, description="Why skipped, missing or failed")


class FilingRecord(BaseModel):
    """What the crawler knows about one filing; written last, so its presence marks a finished download."""

    accession: str = Field(description="Accession number with dashes, e.g. 0000320193-24-000123")
    cik: int
    ticker: str
    company: str
    form: str = Field(description="Form as filed, e.g. 10-K or 10-K/A")
    is_amendment: bool
    filing_date: dt.date
    report_date: dt.date | None = None
    fiscal_year_end: str | None = Field(None, description="The company's fiscal year end as MMDD (submissions JSON)")
    primary_document: str
    items: list[str] = Field(default_factory=list, description="An 8-K's Items as its filer listed them")
    primary_key: str | None = Field(None, description="Lake key of the primary document")
    index_key: str | None = Field(None, description="Lake key of the filing index (index.json)")
    index_page_key: str | None = Field(None, description="Lake key of the filing's EDGAR index page, where its "
                                       "documents were listed from it (kept: choosing exhibits anew asks nothing)")
    bytes: int | None = None
    sha256: str | None = None
    fetched_at: dt.datetime
    status: str = Field(description="ok | missing (404) | failed (gave up after retries)")
    error: str | None = None
    exhibit_types: str = Field("none", description="The EXHIBIT_TYPES the exhibits below were chosen by")
    exhibit_source: str | None = Field(None, description="Where the filing's documents were listed: its "
                                       "EDGAR index page, or the header of its full submission")
    exhibits: list[ExhibitFile] = Field(default_factory=list)
