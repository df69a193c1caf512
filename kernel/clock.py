"""The one clock: every timestamp the project writes (records, reports, releases, quarantine) is UTC."""

from __future__ import annotations

import datetime as dt


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
