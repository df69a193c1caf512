"""The raw lake's filing manifest: one record per (accession) crawled from EDGAR."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

FilingStatus = Literal["ok", "missing", "failed"]


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
    primary_key: str | None = Field(None, description="Lake key of the primary document")
    index_key: str | None = Field(None, description="Lake key of the filing index (index.json)")
    bytes: int | None = None
    sha256: str | None = None
    fetched_at: dt.datetime
    status: str = Field(description="ok | missing (404) | failed (gave up after retries)")
    error: str | None = None
