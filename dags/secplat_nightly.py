"""Nightly refresh of the SEC filings corpus: crawl, convert, segment (both in batches of companies), index.

Each run covers its data interval: the filings dated on the interval's day (a cron schedule with data
intervals, so `airflow backfill create` replays history day by day). ``companies`` checks each company's
submissions for filings in the window that the lake does not hold yet; crawling is mapped over those
companies only (map index = ticker), so a quiet day maps no crawl task and skips the rest of the run. The
SEC rate limit is split into ``EDGAR_SHARES``: at most ``CRAWL_PARALLEL_TASKS`` crawl tasks and one check at
once, across all runs and backfills, each at one share. When the index task changed the index datasets,
``announce`` updates the ``secplat_index_ready`` asset, which triggers the publish DAG; a run whose work an
overlapping run's index task already did starts no Spark and publishes nothing. Params override the window,
tickers and forms, or make the run a dry run (discovery only). Library functions do the work
(``shell.tasks``).
"""

from __future__ import annotations

from airflow.sdk import CronDataIntervalTimetable, Param, TriggerRule, dag, task

from dags.common import INDEX_READY, dag_settings
from shell import tasks


@dag(
    dag_id="secplat_nightly",
    schedule=CronDataIntervalTimetable("0 0 * * *", timezone="UTC"),
    **dag_settings("ingest", __doc__, retries=3),
    params={
        # The settings' own rules (domain.rules via shell.tasks): what FORMS accepts, a run's params accept.
        "tickers": Param([], type="array", items={"type": "string", "pattern": tasks.TICKER_PATTERN},
                         description="Companies to crawl; empty: UNIVERSE_TICKERS (or the whole universe CSV)"),
        "forms": Param([], type="array", items={"type": "string", "enum": list(tasks.FORM_CHOICES)}, uniqueItems=True,
                       description="Forms to crawl (10-K/A: only 10-K amendments); empty: FORMS"),
        "filed_from": Param(None, type=["null", "string"], format="date",
                            description="First filing date (overrides the data interval)"),
        "filed_to": Param(None, type=["null", "string"], format="date",
                          description="Last filing date, inclusive (overrides the data interval)"),
        "dry_run": Param(False, type="boolean", description="Discover what the window holds; fetch nothing"),
    },
)
def secplat_nightly():
    @task
    def plan(params=None, data_interval_start=None, data_interval_end=None) -> dict:
        return tasks.plan_run(dict(params or {}), data_interval_start, data_interval_end)

    @task(max_active_tis_per_dag=1)
    def companies(plan: dict) -> list[str]:
        return tasks.companies_to_crawl(plan)

    @task(map_index_template="{{ task.op_kwargs['ticker'] }}", max_active_tis_per_dag=tasks.CRAWL_PARALLEL_TASKS)
    def crawl(plan: dict, ticker: str) -> dict:
        return tasks.crawl_company(plan, ticker)

    # One company's failure does not stop the rest; no company to crawl (nothing mapped) skips the rest.
    @task(trigger_rule=TriggerRule.ALL_DONE_MIN_ONE_SUCCESS, max_active_tis_per_dag=1)
    def batches(plan: dict) -> list[list[int]]:
        return tasks.stage_batches(plan)

    # Conversion and segmentation are mapped over batches of companies (STAGE_BATCHES): any worker runs any
    # batch, at most STAGE_PARALLEL_TASKS at once across runs and backfills; a retried batch redoes only what
    # its killed try had not finished.
    @task(map_index_template="{{ task.op_kwargs['batch'][0] }}", max_active_tis_per_dag=tasks.STAGE_PARALLEL_TASKS)
    def convert(plan: dict, batch: list[int]) -> dict:
        return tasks.convert_new(plan, batch)

    @task(map_index_template="{{ task.op_kwargs['batch'][0] }}", max_active_tis_per_dag=tasks.STAGE_PARALLEL_TASKS)
    def segment(plan: dict, batch: list[int]) -> dict:
        return tasks.segment_new(plan, batch)

    @task(max_active_tis_per_dag=1)
    def index(plan: dict) -> dict:
        return tasks.index_new(plan)

    @task.short_circuit
    def index_changed(result: dict) -> bool:
        return tasks.index_changed(result)

    @task(outlets=[INDEX_READY])
    def announce(result: dict) -> dict:
        return tasks.announce_index(result)

    run = plan()
    crawled = crawl.partial(plan=run).expand(ticker=companies(run))
    parts = batches(run)
    crawled >> parts
    converted = convert.partial(plan=run).expand(batch=parts)
    segmented = segment.partial(plan=run).expand(batch=parts)
    converted >> segmented
    indexed = index(run)
    segmented >> indexed
    index_changed(indexed) >> announce(indexed)


secplat_nightly()
