"""The stage runner: every stage is ``run(lake, options) -> StageReport``; this module builds the options from
settings, opens the lake once, runs the stage and records its run report. The CLI and the Airflow task
functions call only :func:`run_stage` (and :func:`run_nightly`, which is every stage in order).
"""

from __future__ import annotations

import datetime as dt
import importlib
import logging
from dataclasses import dataclass, field
from typing import Any

from kernel.reports import StageReport, write_run_report
from kernel.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stage:
    """A stage: its module, its options type (built ``from_settings``) and its ``run(lake, options)``.
    Imported when it runs, so that parsing a DAG or starting the CLI loads no stage's libraries."""

    module: str
    options: str
    run: str = "run"

    def resolve(self) -> tuple[Any, Any]:
        module = importlib.import_module(self.module)
        return getattr(module, self.options), getattr(module, self.run)


STAGES: dict[str, Stage] = {
    "crawl": Stage("etl.crawl", "CrawlOptions"),
    "crawl-check": Stage("etl.crawl", "CrawlOptions", "crawl_work"),
    "convert": Stage("etl.convert", "ConvertOptions"),
    "segment": Stage("etl.structure", "SegmentOptions"),
    "index": Stage("indexing.jobs", "IndexOptions"),
    "publish": Stage("indexing.publish", "PublishOptions"),
}
NIGHTLY = ("crawl", "convert", "segment", "index", "publish")


def run_stage(name: str, settings: Settings, **options: Any) -> StageReport:
    """Run one stage on the settings' lake; ``options`` are the stage's own (``as_of``, ``dry_run``,
    ``pdf_dirs``, ``rebuild``, ``progress``). The run report lands under ``runs/<stage>/`` unless the run
    changed nothing (a dry run, an index with no work)."""
    options_type, run = STAGES[name].resolve()
    lake = settings.open_lake()
    report = run(lake, options_type.from_settings(settings, **options))
    if report.recorded:
        write_run_report(lake, report)
    return report


@dataclass
class NightlyReport(StageReport):
    stage = "nightly"
    stages: dict[str, StageReport] = field(default_factory=dict)

    def summary(self) -> str:
        return "\n".join(f"{name}: {report.summary()}" for name, report in self.stages.items())

    @property
    def recorded(self) -> bool:
        return False  # each stage recorded its own


def run_nightly(settings: Settings, as_of: dt.date | None = None, progress=None) -> NightlyReport:
    """Every stage in order, each on what the previous ones left in the lake."""
    report = NightlyReport()
    for name in NIGHTLY:
        extra = {"as_of": as_of} if name == "crawl" else {}
        report.stages[name] = run_stage(name, settings, progress=progress, **extra)
    report.problems = [p for r in report.stages.values() for p in r.problems]
    return report
