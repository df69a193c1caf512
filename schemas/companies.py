"""The company directory: every universe company and the names EDGAR knows it by.

Written by the crawl (``etl/crawl/companies.py``) from the sources it reads anyway: the universe CSV (the
listed name), SEC's company_tickers.json (its title and tickers) and, for each company it discovered, the
submissions JSON (conformed name, ``formerNames``, tickers). Read by the company index
(``domain.companies``), so a question's "FORD MOTOR CO" or a former name finds the company.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class FormerName(BaseModel):
    name: str
    since: dt.date | None = Field(None, description="EDGAR's 'from'")
    until: dt.date | None = Field(None, description="EDGAR's 'to': when the filer stopped using the name")


class MembershipSpan(BaseModel):
    """A period its ticker was in the S&P 500, ``[start, end)`` (``domain.membership``)."""

    ticker: str
    start: dt.date
    end: dt.date | None = None


class CompanyRecord(BaseModel):
    cik: int
    ticker: str = Field(description="The company's main ticker (the universe's first of its CIK)")
    tickers: list[str] = Field(default_factory=list, description="Every ticker of the CIK (universe and EDGAR)")
    listed_name: str = Field(description="The universe CSV's name (Security)")
    sec_title: str | None = Field(None, description="company_tickers.json's title")
    edgar_name: str | None = Field(None, description="The submissions JSON's conformed name")
    former_names: list[FormerName] = Field(default_factory=list, description="The submissions' formerNames")
    names_read: dt.date | None = Field(None, description="When the submissions were last read (None: never)")
    sp500_periods: list[MembershipSpan] = Field(default_factory=list, description="The S&P 500 membership periods "
                                                "of the tickers that resolve to this CIK (empty: none known)")


class CompanyDirectory(BaseModel):
    companies: list[CompanyRecord]
