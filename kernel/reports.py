"""The one report type every stage returns: what it did (``summary``), what needs a look (``problems``),
and everything as JSON (``as_dict``) for the run report in the lake, the CLI and the Airflow task result.

A stage is ``run(lake, options) -> StageReport``. Subclasses add their counters as dataclass fields; a field
declared with ``field(metadata=DETAIL)`` stays out of ``as_dict`` (per-record lists that belong in the lake's
datasets, not in a run report), and ``details()`` adds derived numbers (timings, medians).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kernel import layout
from kernel.storage import Lake

DETAIL = {"report": False}  # field metadata: kept out of as_dict()


@dataclass
class StageReport:
    stage: ClassVar[str] = "stage"
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{self.stage}: {len(self.problems)} problem(s)"

    @property
    def recorded(self) -> bool:
        """Whether the run leaves a run report (a dry run, or a run with nothing to do, does not)."""
        return True

    def details(self) -> dict[str, Any]:
        """Derived numbers for the run report (overridden where a stage has some)."""
        return {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"stage": self.stage, "summary": self.summary()}
        for f in dataclasses.fields(self):
            if f.metadata.get("report", True):
                body[f.name] = _plain(getattr(self, f.name))
        body.update(self.details())
        return body


def _plain(value: Any) -> Any:
    if isinstance(value, StageReport):
        return value.as_dict()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def write_run_report(lake: Lake, report: StageReport, **extra: Any) -> str:
    """``runs/<stage>/<UTC stamp>.json``: what a stage did, for operators and dashboards."""
    return _write(lake, report.stage, {"status": "ok", **report.as_dict(), **extra})


def write_failed_report(lake: Lake, stage: str, exc: BaseException, partial: StageReport | None = None) -> str:
    """``runs/<stage>/<UTC stamp>.json`` of a run that raised: ``status: failed``, the one-line error, and
    what it had done when the stage attached it to the error (``partial``: its report so far)."""
    return _write(lake, stage, {**(partial.as_dict() if partial else {}), "stage": stage, "status": "failed",
                                "error": str(exc), "error_type": type(exc).__name__})


def read_run_reports(lake: Lake, stage: str, since: str = "") -> list[dict[str, Any]]:
    """A stage's run reports finished at or after ``since`` (a run-report stamp, ``%Y%m%dT%H%M%S``...; empty:
    all), oldest first; one that does not read is left out (a report is what a run says, never an input)."""
    out = []
    for key in sorted(lake.list(layout.run_report_prefix(stage))):
        if layout.run_stamp_of(key) >= since:
            try:
                out.append(json.loads(lake.read_bytes(key)))
            except (ValueError, OSError):
                continue
    return out


def _write(lake: Lake, stage: str, body: dict[str, Any]) -> str:
    key = layout.run_report_key(stage)
    lake.write_bytes(key, json.dumps({"finished_at": layout.run_stamp_of(key), **body}, indent=2, default=str).encode())
    return key
