"""The company directory in the lake (``schemas.companies``): one owner of its reading and writing.

Each company's record is its own file (``kernel.layout.company_record_key``), written only by a crawl that
resolved that company, so crawls of different companies running at once (the nightly DAG maps the crawl
over companies) never overwrite each other's; the directory readers use (``COMPANIES_KEY``, one small JSON
file) is rebuilt from the records after each crawl and once more after the mapped crawls, like the filing
manifest. The crawl updates it (``etl/crawl/companies.py``); the query's company index reads it
(``query.catalog``)."""

from __future__ import annotations

import json
import logging

from kernel.layout import COMPANIES_KEY, COMPANY_RECORDS_PREFIX, company_record_key
from kernel.storage import Lake, StorageError
from schemas.companies import CompanyDirectory, CompanyRecord

log = logging.getLogger(__name__)


def read_directory(lake: Lake) -> dict[int, CompanyRecord]:
    """The directory by CIK; empty when there is none or it does not read (said in the log: names only add
    recognition, and the next crawl rebuilds it)."""
    try:
        if not lake.exists(COMPANIES_KEY):
            return {}
        directory = CompanyDirectory.model_validate_json(lake.read_bytes(COMPANIES_KEY))
    except (ValueError, StorageError, OSError) as exc:
        log.warning("%s does not read (%s): company names from the universe and documents only", COMPANIES_KEY,
                    str(exc).splitlines()[0])
        return {}
    return {c.cik: c for c in directory.companies}


def read_company(lake: Lake, cik: int) -> CompanyRecord | None:
    """One company's record, or None (none yet, or one that does not read: the crawl rewrites it)."""
    try:
        return CompanyRecord.model_validate_json(lake.read_bytes(company_record_key(cik)))
    except (FileNotFoundError, ValueError):
        return None


def write_company(lake: Lake, record: CompanyRecord) -> None:
    lake.write_bytes(company_record_key(record.cik), record.model_dump_json(indent=1).encode())


def rebuild_directory(lake: Lake) -> int:
    """The directory from every company's record, in ticker order (a record that does not read is left out
    and logged); returns how many companies it holds."""
    records = []
    for key in lake.list(COMPANY_RECORDS_PREFIX):
        try:
            records.append(CompanyRecord.model_validate_json(lake.read_bytes(key)))
        except (ValueError, FileNotFoundError) as exc:
            log.warning("skipping unreadable company record %s: %s", key, str(exc).splitlines()[0])
    records.sort(key=lambda r: (r.ticker, r.cik))
    body = CompanyDirectory(companies=records).model_dump(mode="json")
    lake.write_bytes(COMPANIES_KEY, json.dumps(body, indent=1, sort_keys=True).encode())
    return len(records)
