"""What the crawl learns of each company's names, kept across runs (``kernel.company_directory``).

A run updates the record of each company it resolved (listed name, SEC's title, tickers) and, where it read
the company's submissions, EDGAR's conformed and former names; what an earlier run recorded and this one
did not read is kept. Then the directory is rebuilt from the records."""

from __future__ import annotations

import datetime as dt

from etl.crawl.universe import Company
from kernel.clock import utc_now
from kernel.company_directory import read_company, rebuild_directory, write_company
from kernel.storage import Lake
from schemas.companies import CompanyRecord, FormerName, MembershipSpan


def merged(old: CompanyRecord | None, company: Company, names: dict | None, today: dt.date) -> CompanyRecord:
    """A company's record after a run that resolved it and, when ``names`` (``discovery.filer_names``) is
    given, read its submissions."""
    record = CompanyRecord(cik=company.cik, ticker=company.ticker, listed_name=company.name,
                           sec_title=company.sec_title, tickers=_union(old.tickers if old else [], company.tickers),
                           edgar_name=old.edgar_name if old else None,
                           former_names=old.former_names if old else [],
                           names_read=old.names_read if old else None,
                           sp500_periods=_spans(old.sp500_periods if old else [], company))
    if names is not None:
        record.edgar_name = names["edgar_name"] or record.edgar_name
        record.former_names = [FormerName(**f) for f in names["former_names"]]
        record.tickers = _union(record.tickers, names["tickers"])
        record.names_read = today
    return record


def record_names(lake: Lake, companies: list[Company], filers: dict[int, dict]) -> int:
    """Write the run's companies' records (those that changed) and rebuild the directory; returns how many
    companies it holds."""
    today = utc_now().date()
    for company in companies:
        old = read_company(lake, company.cik)
        record = merged(old, company, filers.get(company.cik), today)
        if record != old:
            write_company(lake, record)
    return rebuild_directory(lake)


def _spans(old: list[MembershipSpan], company: Company) -> list[MembershipSpan]:
    """The membership periods recorded before and those the run resolved (each window sees its own)."""
    new = [MembershipSpan(ticker=p.ticker, start=p.start, end=p.end) for p in company.member_periods]
    return sorted({(s.ticker, s.start): s for s in [*old, *new]}.values(), key=lambda s: (s.start, s.ticker))


def _union(first, second) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
