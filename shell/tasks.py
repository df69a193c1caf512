"""What each Airflow task calls: JSON in, JSON out (task results travel as XCom), no Airflow imports.

A DAG run's scope is a :class:`RunPlan`: the filing-date window (the run's data interval unless the run's
params override it), the tickers and forms, and whether it is a dry run. Every task loads the settings
from the environment (or ``SECPLAT_CONFIG``) and narrows them to the plan, so a task retried on another
worker does exactly what the first try did; every stage is incremental, so a retry redoes only what the
killed try had not finished.
"""

from __future__ import annotations

import datetime as dt
import logging

from pydantic import BaseModel, Field, field_validator, model_validator

from domain import rules
from etl.crawl.membership import backfill, joined_in, read_membership, universe_symbols
from kernel import run_policy
from kernel.clock import utc_now
from kernel.resources import Resources
from kernel.settings import ConfigError, Settings, load_settings
from shell.runner import run_stage

log = logging.getLogger(__name__)
FORM_CHOICES, TICKER_PATTERN = rules.FORM_CHOICES, rules.TICKER_PATTERN  # what the DAG params accept

# The SEC rate limit is split into EDGAR_SHARES equal shares, one per task that may talk to EDGAR at once
# (Airflow's max_active_tis_per_dag, across all runs and backfills): up to CRAWL_PARALLEL_TASKS crawl tasks
# and one pre-check (``companies``), so the sum never passes EDGAR_RATE_LIMIT.
EDGAR_SHARES = 4
CRAWL_PARALLEL_TASKS = EDGAR_SHARES - 1
# Conversion and segmentation batches running at once, across all runs and backfills (CPU-bound: about one
# per worker core of the deployment)
STAGE_PARALLEL_TASKS = 4
# Exceptions worth a retry: the network and the storage being briefly away. Anything else (bad config, a
# quality gate failure, a bug) fails at once: retrying would only repeat it. Dotted paths, resolved by
# Airflow's retry policy when it evaluates a failure.
# SEC's block of this client (HTTP 403): retried once the block is over (SEC keeps it about ten minutes;
# a retry inside it sends nothing: the block is recorded for the client in EDGAR_STATE_DIR). Listed before
# the transient errors, of which it is one.
BLOCK_ERRORS = ["etl.crawl.edgar_http.Blocked"]
BLOCK_RETRY_DELAY_S = 11 * 60
TRANSIENT_ERRORS = [
    "etl.crawl.edgar_http.HostUnreachable",
    "kernel.storage.StorageError",
    "builtins.ConnectionError",
    "builtins.TimeoutError",
    "py4j.protocol.Py4JNetworkError",
]


def retry_delay_s() -> int:
    """Seconds before a task's first retry (``TASK_RETRY_DELAY``), for the DAGs' defaults: read when a DAG file
    is parsed, so the scheduler's environment decides it."""
    return load_settings().task_retry_delay


INDEX_READY_ASSET = "secplat_index_ready"  # the Airflow asset the index task updates and publishing waits on


class RunPlan(BaseModel):
    """The scope of one pipeline run (validated: a bad param fails the run's first task, clearly)."""

    filed_from: dt.date | None
    filed_to: dt.date | None  # inclusive
    tickers: list[str] = Field(default_factory=list)
    forms: list[str] = Field(default_factory=lambda: list(rules.SUPPORTED_FORMS))
    dry_run: bool = False
    # companies that joined the S&P 500 in the window: their filings since history_from are crawled too
    new_members: list[str] = Field(default_factory=list)
    history_from: dt.date | None = None

    # The settings' own rules (domain.rules): a value the settings accept, a run accepts.
    @field_validator("tickers")
    @classmethod
    def _tickers(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(rules.normalize_ticker(t) for t in rules.normalize_tickers(value) or []))

    @field_validator("forms")
    @classmethod
    def _forms(cls, value: list[str]) -> list[str]:
        return rules.normalize_forms(value)

    @model_validator(mode="after")
    def _window(self) -> RunPlan:
        rules.check_window(self.filed_from, self.filed_to)
        return self

    def settings(self, base: Settings | None = None, ticker: str | None = None) -> Settings:
        """Settings narrowed to this plan (and to one ticker, for a per-company task: a new member's from
        ``history_from``)."""
        base = base or load_settings()
        first = self.history_from if ticker in self.new_members and self.history_from else self.filed_from
        return base.model_copy(update={
            "filed_from": first, "filed_to": self.filed_to, "forms": self.forms,
            "universe_tickers": [ticker] if ticker else self.tickers,
        })


def plan_run(params: dict, interval_start: dt.datetime | None, interval_end: dt.datetime | None,
             settings: Settings | None = None) -> dict:
    """The run's plan from its params and data interval [start, end): filings dated start.date() up to the
    day before end (a daily run covers one filing date). Params ``filed_from``/``filed_to`` override."""
    settings = settings or load_settings()
    if settings.edgar_mirror is None:
        settings.user_agent()  # the live site needs a declared identity: fail here, before any crawl starts
    last_day = (interval_end - dt.timedelta(microseconds=1)).date() if interval_end else None
    try:
        plan = RunPlan(
            filed_from=params.get("filed_from") or (interval_start.date() if interval_start else None),
            filed_to=params.get("filed_to") or last_day,
            tickers=params.get("tickers") or settings.universe_tickers or [],
            forms=params.get("forms") or settings.forms,
            dry_run=bool(params.get("dry_run")),
        )
        if not plan.tickers:  # ALL: each period's universe for a backfill window, else today's list
            today = utc_now().date()
            symbols = universe_symbols(settings.universe_source(), settings.membership_source(), plan.filed_from,
                                       plan.filed_to, today)
            joined = _joined(settings, plan, today)
            plan = RunPlan.model_validate({**plan.model_dump(), "tickers": list(dict.fromkeys([*symbols, *joined])),
                                           "new_members": joined, "history_from": settings.history_from})
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(f"invalid run params: {exc}") from None
    if not plan.tickers:
        raise ConfigError("the run has no tickers: set UNIVERSE_TICKERS or the run's tickers param")
    log.info("run plan: filings filed %s..%s, %d ticker(s), forms %s%s", plan.filed_from, plan.filed_to,
             len(plan.tickers), ",".join(plan.forms), " (dry run)" if plan.dry_run else "")
    return plan.model_dump(mode="json")


def _joined(settings: Settings, plan: RunPlan, today: dt.date) -> list[str]:
    """The nightly notices a membership change: the tickers that joined in its window (HISTORY_FROM set, a
    membership file, not a backfill), whose history it crawls."""
    source = settings.membership_source()
    if not (source and settings.history_from) or backfill(plan.filed_from, today):
        return []
    return joined_in(read_membership(source), plan.filed_from, plan.filed_to)


def _edgar_share(settings: Settings) -> Settings:
    """One task's share of the SEC rate limit (see EDGAR_SHARES)."""
    return settings.model_copy(update={"edgar_rate_limit": settings.edgar_rate_limit / EDGAR_SHARES,
                                       "crawl_workers": min(settings.crawl_workers, 2)})


def companies_to_crawl(plan: dict) -> list[str]:
    """The tickers to map crawl tasks over: the plan's companies that have filings in the window not yet in
    the lake (one submissions request each, nothing downloaded). A quiet day maps no crawl task, so the rest
    of the run is skipped; a ticker that cannot be checked stays in, and its crawl task says why."""
    run = RunPlan.model_validate(plan)
    work = run_stage("crawl-check", Resources(_edgar_share(run.settings())), as_of=run.filed_to)
    for problem in work.problems:
        log.warning("%s", problem)
    log.info("%s", work.summary())
    if run.new_members:
        log.info("joined the S&P 500 in the window: %s (their filings since %s are crawled)",
                 ", ".join(run.new_members), run.history_from)
    tickers = sorted({*work.tickers, *run.new_members})
    if tickers:
        log.info("to crawl: %s", ", ".join(tickers))
    return tickers


def crawl_company(plan: dict, ticker: str) -> dict:
    """One company's filings in the window, at one EDGAR share of the rate limit. An unknown ticker or a
    failed filing is reported (and recorded in the lake), never raised."""
    run = RunPlan.model_validate(plan)
    report = run_stage("crawl", Resources(_edgar_share(run.settings(ticker=ticker))), as_of=run.filed_to,
                       dry_run=run.dry_run, history=ticker in run.new_members)
    for problem in report.problems:
        log.error("%s: %s", ticker, problem)
    log.info("%s: %s", ticker, report.summary())
    for line in report.planned:
        log.info("dry run would fetch: %s", line)
    return {"ticker": ticker, "fetched": report.fetched, "discovered": report.discovered,
            "failed": report.failed, "missing": report.missing, "problems": report.problems,
            "planned": report.planned}


def _stage_result(report) -> dict:
    for problem in report.problems:
        log.error("%s", problem)
    log.info("%s", report.summary())
    return {"summary": report.summary(), "problems": list(report.problems)}


def stage_batches(plan: dict) -> list[list[int]]:
    """The batches conversion and segmentation are mapped over (``STAGE_BATCHES``), each ``[index, count]``:
    a company's documents fall in one batch (``kernel.run_policy.batch_of``), so batches run at once on any
    workers. Runs after the crawl: the mapped crawl tasks each rewrote the manifest and the company directory;
    both are rebuilt here once (a task that finished while another wrote is counted)."""
    from kernel.company_directory import rebuild_directory
    from kernel.filing_records import write_manifest

    settings = RunPlan.model_validate(plan).settings()
    lake = Resources(settings).lake
    write_manifest(lake)
    rebuild_directory(lake)
    return [[i, settings.stage_batches] for i in range(settings.stage_batches)]


def _batch(batch: list[int] | None) -> tuple[int, int] | None:
    return run_policy.check_batch(tuple(batch)) if batch else None


def convert_new(plan: dict, batch: list[int] | None = None) -> dict:
    """Convert the crawled filings not converted yet, of one batch's companies or of all (bad ones are
    quarantined with the reason). Retry-safe: every output is written whole, then renamed."""
    resources = Resources(RunPlan.model_validate(plan).settings())
    if batch is None:  # called alone, without stage_batches before it
        from kernel.filing_records import write_manifest

        write_manifest(resources.lake)
    return _stage_result(run_stage("convert", resources, batch=_batch(batch)))


def segment_new(plan: dict, batch: list[int] | None = None) -> dict:
    return _stage_result(run_stage("segment", Resources(RunPlan.model_validate(plan).settings()), batch=_batch(batch)))


def index_new(plan: dict) -> dict:
    """The Spark index jobs for whatever the lake holds that is not indexed yet (a dry run indexes nothing).
    Whether there is work is read when the task starts, not when the run was planned: with overlapping
    runs (backfills) an earlier run's index task may already have done this run's work."""
    run = RunPlan.model_validate(plan)
    if run.dry_run:
        log.info("dry run: nothing is indexed or published")
        return {"summary": "dry run", "problems": [], "changed": False, "seconds": {}}
    report = run_stage("index", Resources(run.settings()))
    return {**_stage_result(report), "changed": report.changed, "seconds": report.seconds}


def index_changed(result: dict) -> bool:
    """The short circuit before announcing: a run that changed nothing triggers no publish (and on a
    night without new filings, Spark never started)."""
    return bool(result.get("changed"))


def announce_index(result: dict) -> dict:
    """What the ``secplat_index_ready`` asset event stands for: the index datasets this run changed."""
    log.info("index-ready data: %s", result["summary"])
    return {"summary": result["summary"], "seconds": result.get("seconds", {})}


class PublishBlocked(RuntimeError):
    """The quality gate failed: the previous release is still served."""


def publish_indexes(rebuild: bool = False) -> dict:
    """Quality gate, publish, one release made live; a failing gate fails the task (and names what failed)."""
    report = run_stage("publish", Resources(load_settings()), rebuild=rebuild)
    if report.blocked:
        raise PublishBlocked(report.summary())
    return _stage_result(report)


def train_ranker() -> dict:
    """The train stage after a publish: the live release's page ranker (``PAGE_RANKER=learned``, the
    default), before the serving check. Until it is written, readers rank that release by the rules and
    look for it again; a corpus that teaches nothing leaves the rules serving and is a problem of the
    result, not a failed task."""
    report = run_stage("train", Resources(load_settings()))
    return {**_stage_result(report), "outcome": report.outcome, "release": report.release}


def check_serving(question: str = "What were the company's total revenues?") -> dict:
    """A query of the live release after a publish: the indexes answer, with evidence."""
    from query.retrieve import Retriever

    result = Retriever(Resources(load_settings())).search(question, k=3)
    if not result.evidence:
        raise RuntimeError(f"the published indexes returned no evidence for {question!r}")
    top = result.evidence[0]
    log.info("serving check (release %s): %d evidence item(s); best %s page %d", result.release,
             len(result.evidence), top.doc_id, top.page)
    return {"release": result.release, "evidence": len(result.evidence), "best": f"{top.doc_id}:{top.page}"}
