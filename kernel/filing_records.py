"""Filing records in the lake (``schemas.filings.FilingRecord``): one owner of their reading and writing.

The crawl writes one record per filing (``kernel.layout.record_key``) as each filing's last file lands, so a
record means the filing is whole; the Parquet manifest (``MANIFEST_KEY``) is rebuilt from the records after
each crawl. Convert reads them to know what to convert, and each stored document through :func:`unwrap`
(a document cut from a full submission keeps EDGAR's SGML wrapper, as EDGAR serves it)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from kernel.layout import MANIFEST_KEY, RAW_PREFIX, record_key
from kernel.storage import Lake, write_parquet
from schemas.base import to_table
from schemas.filings import FilingRecord

log = logging.getLogger(__name__)
_TEXT_RE = re.compile(rb"<TEXT>\r?\n?(.*?)</TEXT>", re.S)


def write_record(lake: Lake, record: FilingRecord) -> None:
    lake.write_bytes(record_key(record.cik, record.accession), record.model_dump_json().encode())


def load_record(lake: Lake, cik: int, accession: str) -> FilingRecord | None:
    try:
        return FilingRecord.model_validate_json(lake.read_bytes(record_key(cik, accession)))
    except FileNotFoundError:
        return None
    except ValueError:
        log.warning("unreadable record for %s; it will be fetched again", accession)
        return None


def read_records(lake: Lake, keys: Iterable[str] | None = None) -> list[FilingRecord]:
    """Every filing record in the lake (the source of truth the Parquet manifest is built from); ``keys``: a
    listing of ``RAW_PREFIX`` the caller made already (one listing serves its other use too)."""
    records = []
    for key in lake.list(RAW_PREFIX) if keys is None else keys:
        if key.endswith("/filing.json"):
            try:
                records.append(FilingRecord.model_validate_json(lake.read_bytes(key)))
            except (ValueError, FileNotFoundError) as exc:
                log.warning("skipping unreadable record %s: %s", key, exc)
    records.sort(key=lambda r: (r.ticker, r.filing_date, r.accession))
    return records


def write_manifest(lake: Lake, records: list[FilingRecord] | None = None) -> int:
    """The Parquet manifest of ``records`` (read from the lake when not given); returns how many."""
    records = read_records(lake) if records is None else records
    write_parquet(lake, MANIFEST_KEY, to_table(FilingRecord, records))
    return len(records)


def unwrap(served: bytes) -> bytes:
    """A document without its SGML wrapper: the content of ``<TEXT>``, or the bytes as they are when
    unwrapped already (inline XBRL documents are served bare)."""
    if not served.lstrip().startswith(b"<DOCUMENT>"):
        return served
    m = _TEXT_RE.search(served)
    return m.group(1) if m else served
