"""Quarantine: a document a stage could not process is recorded with the reason, and the run goes on.

``quarantine/<stage>/<part>.json`` holds one QuarantineRecord; a later success of the same stage removes it.
"""

from __future__ import annotations

import logging
import re

from etl.crawler import utc_now
from schemas.documents import QuarantineRecord
from secplat.storage import Lake

log = logging.getLogger(__name__)


def part_name(key: str) -> str:
    """A document's key as one safe file name (dataset parts and quarantine records use it)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", key)


def quarantine(lake: Lake, stage: str, document: str, key: str, reason: str,
               source_key: str | None = None) -> QuarantineRecord:
    rec = QuarantineRecord(document=document, stage=stage, reason=reason, source_key=source_key, at=utc_now())
    lake.write_bytes(f"quarantine/{stage}/{part_name(key)}.json", rec.model_dump_json().encode())
    log.warning("quarantined %s (%s): %s", document, stage, reason)
    return rec


def release(lake: Lake, stage: str, key: str) -> None:
    lake.delete(f"quarantine/{stage}/{part_name(key)}.json")
