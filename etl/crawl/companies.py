"""What the crawl learns of each company's names, kept across runs in the company directory
(``kernel.company_directory``).

Each run updates the companies it resolved (listed name, SEC's title, tickers) and, for those whose
submissions it read, EDGAR's conformed and former names; companies a run did not touch keep what an
earlier run recorded."""

from __future__ import annotations

import datetime as dt

from etl.crawl.universe import Company
from kernel.company_directory import read_directory, write_directory
from kernel.storage import Lake
from schemas.companies import CompanyRecord, FormerName


def updated(previous: dict[int, CompanyRecord], companies: list[Company], filers: dict[int, dict],
            today: dt.date) -> list[CompanyRecord]:
    """The directory after a run that resolved ``companies`` and read the submissions of ``filers``
    (CIK -> ``discovery.filer_names``), in ticker order."""
    out = dict(previous)
    for c in companies:
        old = previous.get(c.cik)
        record = CompanyRecord(cik=c.cik, ticker=c.ticker, listed_name=c.name, sec_title=c.sec_title,
                               tickers=_union(old.tickers if old else [], c.tickers),
                               edgar_name=old.edgar_name if old else None,
                               former_names=old.former_names if old else [],
                               names_read=old.names_read if old else None)
        names = filers.get(c.cik)
        if names is not None:
            record.edgar_name = names["edgar_name"] or record.edgar_name
            record.former_names = [FormerName(**f) for f in names["former_names"]]
            record.tickers = _union(record.tickers, names["tickers"])
            record.names_read = today
        out[c.cik] = record
    return sorted(out.values(), key=lambda r: (r.ticker, r.cik))


def record_names(lake: Lake, companies: list[Company], filers: dict[int, dict]) -> int:
    """Update the lake's directory with a run's companies and names; returns how many it holds."""
    records = updated(read_directory(lake), companies, filers, dt.datetime.now(dt.UTC).date())
    write_directory(lake, records)
    return len(records)


def _union(first, second) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
