"""The crawl run: ``run(lake, CrawlOptions) -> CrawlReport``, and the pre-check a scheduler runs first
(``crawl_work``). :func:`open_crawler` is the one place a crawler is wired from its options: EDGAR's hosts (or
a local mirror server when EDGAR_MIRROR is set), the HTTP client with its rate limiter and block board, the
resolved universe."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from etl.crawl.companies import record_names
from etl.crawl.crawler import Crawler, build_http, complete_record
from etl.crawl.membership import resolve_universe
from etl.crawl.options import CrawlOptions
from etl.crawl.report import CrawlReport, CrawlWork
from etl.crawl.universe import Company, UniverseProblem
from kernel.storage import Lake

log = logging.getLogger(__name__)


@contextlib.contextmanager
def edgar_endpoint(options: CrawlOptions) -> Iterator[CrawlOptions]:
    """Options pointed at EDGAR: the configured hosts, or a local mirror server when EDGAR_MIRROR is set.

    ``as_of`` caps the filing-date window (and, for a mirror, what the mirror admits exists)."""
    as_of = options.as_of
    if as_of is not None and (options.filed_to is None or options.filed_to > as_of):
        options = replace(options, filed_to=as_of)
    if options.edgar_mirror is None:
        yield options
        return
    from etl.crawl.edgar_mirror import MirrorServer

    with MirrorServer(Path(options.edgar_mirror), as_of=as_of) as server:
        log.info("serving mirror %s at %s", options.edgar_mirror, server.url)
        yield replace(options, edgar_www_url=server.www_url, edgar_data_url=server.data_url)


@contextlib.contextmanager
def open_crawler(lake: Lake, options: CrawlOptions) -> Iterator[tuple[Crawler, list[Company], list[UniverseProblem]]]:
    """A crawler on the configured (or mirrored) EDGAR with the universe resolved: (crawler, companies,
    universe problems). Refuses an unwritable lake before any request, and sends none while a block SEC set
    on this client lasts (whatever lake the crawl that met it wrote to)."""
    lake.check_writable()
    with edgar_endpoint(options) as o:
        http = build_http(o)
        companies, problems = resolve_universe(o, http)
        yield Crawler(o, lake, http=http, progress=o.progress), companies, problems


def run(lake: Lake, options: CrawlOptions) -> CrawlReport:
    """Resolve the universe and crawl it (a dry run only discovers what the window holds)."""
    with open_crawler(lake, options) as (crawler, companies, problems):
        if options.dry_run:
            report = CrawlReport(companies=len(companies), dry_run=True)
            pairs = crawler.discover(companies, report)
            report.discovered = len(pairs)
            report.planned = [f"{c.ticker} {r.form} {r.accession} filed {r.filing_date}" for c, r in pairs]
        else:
            try:
                report = crawler.run(companies)
            except Exception as exc:
                _http_stats(getattr(exc, "partial", None), crawler)
                raise
            record_names(lake, companies, crawler.filers)  # after the run: what it read of their names
        _http_stats(report, crawler)
    report.problems[:0] = [f"{p.ticker}: {p.reason}" for p in problems]
    return report


def _http_stats(report: CrawlReport | None, crawler: Crawler) -> None:
    if report is not None:
        report.http = {k: v for k, v in vars(crawler.http.stats).items() if not k.startswith("_")}


def crawl_work(lake: Lake, options: CrawlOptions) -> CrawlWork:
    """One submissions request per company (for a historical window, per company the quarterly form index
    lists as filing in it), nothing downloaded: the companies with filings of the configured forms in the
    window that the lake does not hold complete. A quiet day (or a window crawled before) then
    needs no crawl at all. A ticker SEC does not know, or a company whose submissions could not be read, is
    kept, so that its crawl reports why (in its task log and the crawl run report). Share classes of one
    company (GOOGL, GOOG) come back as one ticker."""
    with open_crawler(lake, options) as (crawler, companies, problems):
        report = CrawlReport(companies=len(companies))
        pairs = crawler.discover(companies, report)
    pending = [(c, ref) for c, ref in pairs if complete_record(lake, ref) is None]
    keep = {c.ticker for c, _ in pending} | set(report.undiscovered) | {p.ticker for p in problems}
    return CrawlWork(tickers=sorted(keep), pending=len(pending),
                     checked=len(companies) - len(report.undiscovered),
                     problems=[f"{p.ticker}: {p.reason}" for p in problems] + report.problems)
