"""The nightly main job: each stage as a plain function (Airflow tasks and the CLI call the same ones)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from etl.chunking import ChunkConfigError, ChunkOptions
from etl.convert import ConvertOptions, ConvertReport, run_convert
from etl.crawler import Crawler, CrawlReport, build_http, complete_record
from etl.structure import SegmentReport, run_segment
from etl.universe import resolve_universe
from secplat import llm
from secplat.config import ConfigError, Settings
from secplat.models import ModelError, token_counter
from secplat.storage import open_lake

log = logging.getLogger(__name__)


@contextlib.contextmanager
def edgar_endpoint(settings: Settings, as_of: dt.date | None = None) -> Iterator[Settings]:
    """Settings pointed at EDGAR: the configured hosts, or a local mirror server when EDGAR_MIRROR is set.

    ``as_of`` caps the filing-date window (and, for a mirror, what the mirror admits exists)."""
    if as_of is not None and (settings.filed_to is None or settings.filed_to > as_of):
        settings = settings.model_copy(update={"filed_to": as_of})
    if settings.edgar_mirror is None:
        yield settings
        return
    from etl.edgar_mirror import MirrorServer

    with MirrorServer(settings.edgar_mirror, as_of=as_of) as server:
        log.info("serving mirror %s at %s", settings.edgar_mirror, server.url)
        yield settings.model_copy(update={"edgar_www_url": server.www_url, "edgar_data_url": server.data_url})


@contextlib.contextmanager
def _crawler(settings: Settings, as_of: dt.date | None, progress=None) -> Iterator[tuple[Crawler, list, list]]:
    """A crawler on the configured (or mirrored) EDGAR, with the universe resolved: (crawler, companies,
    universe problems). Refuses the live site without an identity and an unwritable lake before any request."""
    lake = open_lake(settings.lake_root, settings.s3_endpoint_url, settings.s3_region)
    if settings.edgar_mirror is None:
        settings.user_agent()
    lake.check_writable()
    with edgar_endpoint(settings, as_of) as s:
        http = build_http(s)
        companies, problems = resolve_universe(s, http)
        yield Crawler(s, lake, http=http, progress=progress), companies, problems


def crawl_stage(settings: Settings, as_of: dt.date | None = None, progress=None, dry_run: bool = False) -> CrawlReport:
    """Resolve the universe and crawl it; a run report lands under runs/crawl/ in the lake.

    ``dry_run`` discovers what the window holds and downloads nothing (nor writes a report)."""
    with _crawler(settings, as_of, progress) as (crawler, companies, problems):
        if dry_run:
            report = CrawlReport(companies=len(companies))
            pairs = crawler.discover(companies, report)
            report.discovered = len(pairs)
            report.planned = [f"{c.ticker} {r.form} {r.accession} filed {r.filing_date}" for c, r in pairs]
        else:
            report = crawler.run(companies)
    report.problems[:0] = [f"{p.ticker}: {p.reason}" for p in problems]
    if dry_run:
        return report
    write_run_report(crawler.lake, "crawl", {
        "as_of": as_of.isoformat() if as_of else None, "summary": report.summary(),
        "fetched": report.fetched, "skipped": report.skipped, "missing": report.missing, "failed": report.failed,
        "problems": report.problems,
        "http": {k: v for k, v in vars(crawler.http.stats).items() if not k.startswith("_")},
    })
    return report


@dataclass
class CrawlWork:
    """Which companies a window gives a crawl something to do (the pre-check before per-company crawl tasks)."""

    tickers: list[str]  # one per company: filings to fetch, or a check that failed (its crawl says why)
    pending: int  # filings in the window that the lake does not hold complete
    checked: int  # companies whose submissions were read
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{len(self.tickers)} of {self.checked} companies to crawl: {self.pending} filing(s) in the window "
                f"not in the lake yet; {len(self.problems)} problem(s)")


def crawl_work(settings: Settings, as_of: dt.date | None = None) -> CrawlWork:
    """One submissions request per company, nothing downloaded: the companies with filings of the configured
    forms in the window that the lake does not hold complete. A quiet day (or a window crawled before) then
    needs no crawl at all. A ticker SEC does not know, or a company whose submissions could not be read, is
    kept, so that its crawl reports why (in its task log and the crawl run report). Share classes of one
    company (GOOGL, GOOG) come back as one ticker."""
    with _crawler(settings, as_of) as (crawler, companies, problems):
        report = CrawlReport(companies=len(companies))
        pairs = crawler.discover(companies, report)
    pending = [(c, ref) for c, ref in pairs if complete_record(crawler.lake, ref) is None]
    keep = {c.ticker for c, _ in pending} | set(report.undiscovered) | {p.ticker for p in problems}
    return CrawlWork(tickers=sorted(keep), pending=len(pending),
                     checked=len(companies) - len(report.undiscovered),
                     problems=[f"{p.ticker}: {p.reason}" for p in problems] + report.problems)


def write_run_report(lake, stage: str, body: dict) -> str:
    """runs/<stage>/<UTC stamp>.json: what a stage did, for operators and dashboards."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    key = f"runs/{stage}/{stamp}.json"
    lake.write_bytes(key, json.dumps({"stage": stage, "finished_at": stamp, **body}, indent=2, default=str).encode())
    return key


def convert_stage(settings: Settings, pdf_dirs=(), progress=None) -> ConvertReport:
    """Render and page every crawled filing (and PDFs under ``pdf_dirs``) into pages/documents datasets."""
    lake = open_lake(settings.lake_root, settings.s3_endpoint_url, settings.s3_region)
    options = ConvertOptions(
        timeout_s=settings.convert_timeout, memory_mb=settings.convert_memory_mb, workers=settings.convert_workers,
        max_html_bytes=int(settings.convert_max_html_mb * 1024 * 1024), find_tables=settings.pdf_find_tables,
        summarizer=llm.from_settings(settings) if settings.cover_summary_llm else None,
    )
    report = run_convert(lake, options, pdf_dirs=pdf_dirs, progress=progress)
    write_run_report(lake, "convert", {"summary": report.summary(), "converted": report.converted,
                                       "skipped": report.skipped, "quarantined": report.quarantined,
                                       "problems": report.problems, "timings": report.stats()})
    return report


def segment_stage(settings: Settings, progress=None) -> SegmentReport:
    """Items and chunks for every converted document whose inputs or chunk settings changed."""
    lake = open_lake(settings.lake_root, settings.s3_endpoint_url, settings.s3_region)
    try:
        counter = token_counter(settings.embedding_model)
        options = ChunkOptions(tokens=settings.chunk_tokens, overlap=settings.chunk_overlap)
        options.check(counter)
    except (ModelError, ChunkConfigError) as exc:
        raise ConfigError(str(exc)) from None
    report = run_segment(lake, counter, options, settings.embedding_model, workers=settings.segment_workers,
                         progress=progress)
    secs = sorted(report.seconds)
    write_run_report(lake, "segment", {
        "summary": report.summary(), "segmented": report.segmented, "chunks": report.chunks,
        "skipped": report.skipped, "quarantined": report.quarantined, "no_items": report.no_items,
        "problems": report.problems,
        "ms_per_document_median": round(1000 * secs[len(secs) // 2], 1) if secs else None,
    })
    return report


@dataclass
class IndexReport:
    embeddings: object
    trees: object
    lexicon: object
    problems: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per job
    jobs: list[str] = field(default_factory=list)  # the jobs that had work when the stage started

    @property
    def changed(self) -> bool:
        """Whether this run changed the index datasets (what a publish needs to hear about)."""
        return bool(self.jobs)

    def summary(self) -> str:
        if not self.jobs:
            return "index up to date: no new or changed documents"
        took = ", ".join(f"{job} {s:.0f}s" for job, s in self.seconds.items())
        return f"{self.embeddings.summary()}; {self.trees.summary()}; {self.lexicon.summary()} ({took})"


def index_pending(settings: Settings) -> list[str]:
    """Which index jobs have work (new or changed documents); read from the lake's state, without Spark."""
    from indexing import embed_job, lexicon_job, tree_job

    lake = open_lake(settings.lake_root, settings.s3_endpoint_url, settings.s3_region)
    jobs = []
    if embed_job.plan(lake, settings)[0]:
        jobs += ["embeddings", "trees"]  # new embeddings always get their trees
    elif tree_job.plan(lake)[0]:
        jobs.append("trees")
    if lexicon_job.pending(lake):
        jobs.append("lexicon")
    return jobs


def index_stage(settings: Settings, progress=None) -> IndexReport:
    """The Spark jobs: embeddings for new or changed documents, their Item trees, the FLAM statistics.
    A job with nothing to do returns before it starts Spark (the session is shared once started)."""
    from indexing.embed_job import EmbedReport, run_embeddings
    from indexing.lexicon_job import LexiconReport, run_lexicon
    from indexing.tree_job import TreeReport, run_trees

    jobs = index_pending(settings)  # nothing to do: no Spark, no run report
    if not jobs:
        return IndexReport(EmbedReport(), TreeReport(), LexiconReport())
    seconds: dict[str, float] = {}
    results = {}
    for job, run in (("embeddings", run_embeddings), ("trees", run_trees), ("lexicon", run_lexicon)):
        start = time.perf_counter()
        results[job] = run(settings)
        seconds[job] = round(time.perf_counter() - start, 1)
    report = IndexReport(*results.values(), [p for r in results.values() for p in r.problems], seconds, jobs)
    lake = open_lake(settings.lake_root, settings.s3_endpoint_url, settings.s3_region)
    write_run_report(lake, "index", {"summary": report.summary(), "seconds": seconds, "problems": report.problems})
    return report


def publish_stage(settings: Settings, rebuild: bool = False, progress=None):
    """Quality gate, then upsert into the live indexes (or build new versions and swap the aliases)."""
    from indexing.publish import publish

    return publish(settings, rebuild=rebuild, progress=progress)


@dataclass
class NightlyResult:
    stages: dict[str, object]
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return "\n".join(f"{name}: {report.summary()}" for name, report in self.stages.items())


def run_nightly(settings: Settings, as_of: dt.date | None = None, progress=None) -> NightlyResult:
    """Every stage in order. Later stages join here as they land."""
    stages: dict[str, object] = {}
    stages["crawl"] = crawl_stage(settings, as_of=as_of, progress=progress)
    stages["convert"] = convert_stage(settings, progress=progress)
    stages["segment"] = segment_stage(settings, progress=progress)
    stages["index"] = index_stage(settings, progress=progress)
    stages["publish"] = publish_stage(settings, progress=progress)
    return NightlyResult(stages, problems=[p for r in stages.values() for p in r.problems])
