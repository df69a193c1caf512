"""The crawl's options: plain values read once from the settings (no settings object, no live client)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kernel.settings import SEC_DATA_URL, SEC_WWW_URL, ConfigError, Settings

Progress = Callable[[Iterable, str, int], Iterable]
# the settings read as they are (same name, same value)
_SAME_NAMES = ("edgar_www_url", "edgar_data_url", "edgar_rate_limit", "http_timeout", "http_max_retries",
               "http_backoff_base", "http_backoff_max", "crawl_workers", "include_amendments", "filed_from",
               "filed_to", "exhibit_types", "edgar_state_dir")


@dataclass(frozen=True)
class CrawlOptions:
    """What a crawl covers and how it asks, as plain values read once from the settings: EDGAR's hosts (or
    the mirror to serve), the declared User-Agent, the request rate and retries, the universe, forms and
    window (``as_of`` caps the window, and for a mirror what it admits exists); ``dry_run`` discovers and
    downloads nothing."""

    user_agent: str
    universe_source: str | None  # None: none configured (the crawl refuses when it needs one)
    membership_source: str | None = None  # S&P 500 membership by date (etl.crawl.membership); None: today's list
    edgar_www_url: str = SEC_WWW_URL
    edgar_data_url: str = SEC_DATA_URL
    edgar_mirror: str | None = None
    edgar_rate_limit: float = 10.0  # requests per second, every worker together (benchmarks may go higher)
    http_timeout: float = 30.0
    http_max_retries: int = 6
    http_backoff_base: float = 0.5
    http_backoff_max: float = 60.0
    crawl_workers: int = 4
    edgar_state_dir: str | None = None  # the client's schedule and SEC's block (None: this process's own)
    universe_tickers: tuple[str, ...] | None = None
    forms: tuple[str, ...] = ()
    include_amendments: bool = True
    filed_from: dt.date | None = None
    filed_to: dt.date | None = None
    exhibit_types: str = ""
    as_of: dt.date | None = None
    dry_run: bool = False
    history: bool = False  # a new member's history: today's list over the window, no membership filter
    progress: Progress | None = None

    @classmethod
    def from_settings(cls, settings: Settings, **kw) -> CrawlOptions:
        """The settings' values; refuses the live site without a declared identity (before any request)."""
        mirror, tickers = settings.edgar_mirror, settings.universe_tickers
        values = {name: getattr(settings, name) for name in _SAME_NAMES}
        values.update(user_agent=settings.user_agent(live=mirror is None), universe_source=_universe(settings),
                      membership_source=settings.membership_source(),
                      edgar_mirror=str(mirror) if mirror else None, forms=tuple(settings.forms),
                      universe_tickers=tuple(tickers) if tickers is not None else None)
        return cls(**{**values, **kw})


def _universe(settings: Settings) -> str | None:
    try:
        return settings.universe_source()
    except ConfigError:
        return None
