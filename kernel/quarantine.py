"""Quarantine: a document a stage could not process (or publish would not serve) is recorded with the
reason, and the run goes on.

``quarantine/<stage>/<part>.json`` (``kernel.layout``) holds one QuarantineRecord; a later success of the
same stage removes it. Every stage records quarantines through this one module.
"""

from __future__ import annotations

import logging

from kernel.clock import utc_now
from kernel.layout import quarantine_key
from kernel.storage import Lake
from schemas.documents import QuarantineRecord

log = logging.getLogger(__name__)


def quarantine(lake: Lake, stage: str, document: str, part: str, reason: str,
               source_key: str | None = None) -> QuarantineRecord:
    rec = QuarantineRecord(document=document, stage=stage, reason=reason, source_key=source_key,
                           at=utc_now())
    lake.write_bytes(quarantine_key(stage, part), rec.model_dump_json().encode())
    log.warning("quarantined %s (%s): %s", document, stage, reason)
    return rec


def release(lake: Lake, stage: str, part: str) -> None:
    lake.delete(quarantine_key(stage, part))
