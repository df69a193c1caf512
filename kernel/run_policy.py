"""Run policy: what a run does when nobody says otherwise (the companies of a first run), how its work is
split (batches of companies), and which filing windows are history. Choices of this platform's, kept with
the settings; ``domain/rules.py`` holds SEC's facts only."""

from __future__ import annotations

import datetime as dt
import hashlib

DEFAULT_TICKERS = ("AAPL", "KO", "PEP", "MA", "NVDA")  # UNIVERSE_TICKERS' default: a first run's five companies


# EDGAR's full index of the current quarter grows daily: a window whose last day is at least this old is
# history, found through the quarterly index (etl.crawl.full_index); a newer one through submissions JSONs.
HISTORY_LAG = dt.timedelta(days=7)


def historical_window(filed_from: dt.date | None, filed_to: dt.date | None, today: dt.date) -> bool:
    """Whether a closed filing-date window lies far enough in the past for the quarterly full index."""
    return filed_from is not None and filed_to is not None and filed_to <= today - HISTORY_LAG


def batch_of(company: str, batches: int) -> int:
    """Which of ``batches`` batches (0-based) a company's documents are converted and segmented in. Every
    document of a company falls in one batch, so the ids its filings share a name over are settled in one
    place (etl.convert.identity) while batches run at once; stable across runs and machines (not Python's hash)."""
    if batches < 1:
        raise ValueError(f"batches must be at least 1, not {batches}")
    return int.from_bytes(hashlib.sha256(company.encode()).digest()[:8], "big") % batches


def check_batch(batch: tuple[int, int] | None) -> tuple[int, int] | None:
    """A batch as (index, count), index in 0..count-1; raises ValueError naming what is wrong."""
    if batch is None:
        return None
    index, count = (int(v) for v in batch)
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"batch {index} of {count}: the index must be in 0..{count - 1}")
    return index, count


def company_key(cik: str | int | None, name: str) -> str:
    """The company a document is batched by: its CIK, else the ticker its LOFin name starts with (a PDF)."""
    return str(int(cik)) if cik not in (None, "") else name.split("_")[0]


def in_batch(cik: str | int | None, name: str, batch: tuple[int, int] | None) -> bool:
    """Whether a document belongs to ``batch`` (every document does without one)."""
    return batch is None or batch_of(company_key(cik, name), batch[1]) == batch[0]
