"""The crawl stage: SEC EDGAR's filings of the universe's companies into ``raw/``, incremental, resumable and
polite (a declared User-Agent, at most 10 requests/s, a stop at SEC's block).

Where things are: ``options`` (CrawlOptions), ``report`` (CrawlReport, CrawlWork), ``stage`` (the run, the
pre-check, ``open_crawler``); the parts: ``universe``, ``discovery``, ``full_index``, ``crawler`` (the
downloads), ``edgar_http`` and ``ratelimit`` (the client), ``filing_index`` (EDGAR's index pages),
``edgar_mirror`` (a local EDGAR for tests and offline runs).
"""

from etl.crawl.options import CrawlOptions
from etl.crawl.report import CrawlReport, CrawlWork
from etl.crawl.stage import crawl_work, edgar_endpoint, open_crawler, run

__all__ = ["CrawlOptions", "CrawlReport", "CrawlWork", "crawl_work", "edgar_endpoint", "open_crawler", "run"]
