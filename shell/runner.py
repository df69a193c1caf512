"""The stage runner: every stage is ``run(lake, options, **clients) -> StageReport``; this module builds the
options from the settings (plain values only), hands the stage the lake and the clients it declares from the
process's :class:`~kernel.resources.Resources`, runs it and records its run report. The CLI and the Airflow
task functions run stages only through :func:`run_stage` (and :func:`run_nightly`, every stage in order).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kernel.reports import StageReport, write_failed_report, write_run_report
from kernel.resources import Resources

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stage:
    """A stage: ``load`` imports it when it runs (so parsing a DAG or starting the CLI loads no stage's
    libraries) and gives its options type (built ``from_settings``) and its ``run(lake, options, **clients)``;
    ``clients``: what it takes besides (``Resources`` attributes, or ``retriever``: the live release's)."""

    load: Callable[[], tuple[type, Callable[..., StageReport]]]
    clients: tuple[str, ...] = ()


def _crawl():
    from etl.crawl import CrawlOptions, run
    return CrawlOptions, run


def _crawl_check():
    from etl.crawl import CrawlOptions, crawl_work
    return CrawlOptions, crawl_work


def _convert():
    from etl.convert import ConvertOptions, run
    return ConvertOptions, run


def _segment():
    from etl.segment import SegmentOptions, run
    return SegmentOptions, run


def _index():
    from indexing.index import IndexOptions, run
    return IndexOptions, run


def _publish():
    from indexing.publish import PublishOptions, run
    return PublishOptions, run


def _train():
    from query.train import TrainOptions, run
    return TrainOptions, run


STAGES: dict[str, Stage] = {
    "crawl": Stage(_crawl),
    "crawl-check": Stage(_crawl_check),
    "convert": Stage(_convert, clients=("llm",)),
    "segment": Stage(_segment),
    "index": Stage(_index),
    "publish": Stage(_publish, clients=("backend",)),
    "train": Stage(_train, clients=("retriever",)),
}
NIGHTLY = ("crawl", "convert", "segment", "index", "publish", "train")


def run_stage(name: str, resources: Resources, **options: Any) -> StageReport:
    """Run one stage on the resources' lake; ``options`` are the stage's own (``as_of``, ``dry_run``,
    ``pdf_dirs``, ``rebuild``, ``limit``, ``progress``). The run report lands under ``runs/<stage>/`` unless the run
    changed nothing (a dry run, an index with no work)."""
    stage = STAGES[name]
    options_type, run = stage.load()
    lake = resources.lake
    clients = {client: _client(resources, client) for client in stage.clients}
    stage_options = options_type.from_settings(resources.settings, **options)  # a bad setting: no lake touched
    started = time.perf_counter()
    try:
        if swept := lake.sweep_temp():  # a killed run's half-written files, whichever stage it was
            log.info("%s: removed %d temp file(s) left by an interrupted run", name, swept)
        report = run(lake, stage_options, **clients)
    except Exception as exc:
        record_failure(lake, name, exc)
        raise
    if report.recorded:
        write_run_report(lake, report, wall_seconds=round(time.perf_counter() - started, 1))
    return report


def _client(resources: Resources, name: str):
    """A client a stage declares: the retriever of the live release, else the ``Resources`` attribute."""
    if name == "retriever":
        from query.retrieve import Retriever

        return Retriever(resources)
    return getattr(resources, name)


def record_failure(lake, name: str, exc: Exception) -> None:
    """A stage that stopped (SEC's block, an unreachable host or cluster, a bad setting) leaves a run report
    too (``kernel.reports.write_failed_report``); a lake that cannot take it (the cause, perhaps) is logged,
    never raised over the cause."""
    partial = getattr(exc, "partial", None)
    try:
        write_failed_report(lake, name, exc, partial if isinstance(partial, StageReport) else None)
    except Exception as write_exc:  # noqa: BLE001 - the stage's own error is what the caller must see
        log.info("%s: the failed run's report was not written (%s)", name, write_exc)


@dataclass
class NightlyReport(StageReport):
    stage = "nightly"
    stages: dict[str, StageReport] = field(default_factory=dict)

    def summary(self) -> str:
        return "\n".join(f"{name}: {report.summary()}" for name, report in self.stages.items())

    @property
    def recorded(self) -> bool:
        return False  # each stage recorded its own


def run_nightly(resources: Resources, as_of: dt.date | None = None, progress=None) -> NightlyReport:
    """Every stage in order, each on what the previous ones left in the lake."""
    report = NightlyReport()
    for name in NIGHTLY:
        extra = {"as_of": as_of} if name == "crawl" else {}
        report.stages[name] = run_stage(name, resources, progress=progress, **extra)
    report.problems = [p for r in report.stages.values() for p in r.problems]
    return report
