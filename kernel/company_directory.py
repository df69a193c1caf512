"""The company directory in the lake (``kernel.layout.COMPANIES_KEY``, ``schemas.companies``): one owner of
its reading and writing. The crawl updates it (``etl/crawl/companies.py``); the query's company index reads
it (``query.catalog``)."""

from __future__ import annotations

import json
import logging

from kernel.layout import COMPANIES_KEY
from kernel.storage import Lake, StorageError
from schemas.companies import CompanyDirectory, CompanyRecord

log = logging.getLogger(__name__)


def read_directory(lake: Lake) -> dict[int, CompanyRecord]:
    """The recorded directory by CIK; empty when there is none or it does not read (said once in the log:
    names only add recognition, and the next crawl rewrites it)."""
    try:
        if not lake.exists(COMPANIES_KEY):
            return {}
        directory = CompanyDirectory.model_validate_json(lake.read_bytes(COMPANIES_KEY))
    except (ValueError, StorageError, OSError) as exc:
        log.warning("%s does not read (%s): company names from the universe and documents only", COMPANIES_KEY,
                    str(exc).splitlines()[0])
        return {}
    return {c.cik: c for c in directory.companies}


def write_directory(lake: Lake, records: list[CompanyRecord]) -> None:
    body = CompanyDirectory(companies=records).model_dump(mode="json")
    lake.write_bytes(COMPANIES_KEY, json.dumps(body, indent=1, sort_keys=True).encode())
