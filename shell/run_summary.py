"""What a run did, in a few lines a newcomer reads: one line per stage (what it did, how long), the release
live now, and two questions to ask it. Read from the run reports the stages left in the lake
(``kernel.reports``), so it says the same whether the stages ran in Airflow, in ``secplat run`` or by hand.

A stage mapped over several tasks (the nightly DAG crawls each company in its own task) left several
reports: their summaries are one line when they read alike (the counts added up), else the last one and
how many more there were."""

from __future__ import annotations

import datetime as dt
import re

from domain.companies import short_name
from kernel.layout import run_stamp_time
from kernel.reports import read_run_reports
from kernel.storage import Lake

STAGES = ("crawl", "convert", "segment", "index", "publish", "train")
WIDTH = 200  # a line's characters at most (the whole summary is in the run report)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?= [a-z(])")  # a count of something ("18 fetched"), not a code ("(404)")


def stage_lines(lake: Lake, since: str) -> list[str]:
    """One line per stage that left a report since ``since`` (a run stamp)."""
    out = []
    for stage in STAGES:
        reports = read_run_reports(lake, stage, since)
        if reports:
            line = f"{stage:8} {_took(reports):>7}  {_said(reports)}"
            out.append(line if len(line) <= WIDTH else line[:WIDTH - 1] + "…")
    return out


def merged_summary(summaries: list[str]) -> str:
    """Summaries of one template ("3 fetched, 0 failed") as one, their numbers added; else the last one and
    how many more there were."""
    first = summaries[0].split("\n")[0]
    template = _NUMBER.sub("#", first)
    lines = [s.split("\n")[0] for s in summaries]
    if len(lines) == 1 or any(_NUMBER.sub("#", line) != template for line in lines):
        return lines[-1] + (f" (and {len(lines) - 1} more task(s))" if len(lines) > 1 else "")
    columns = zip(*(_NUMBER.findall(line) for line in lines), strict=True)
    sums = iter(_number(sum(float(v) for v in values), values) for values in columns)
    return f"{len(lines)} tasks: " + _NUMBER.sub(lambda _: next(sums), first)


def _number(total: float, values: tuple[str, ...]) -> str:
    return f"{total:.1f}" if any("." in v for v in values) else str(int(total))


def _said(reports: list[dict]) -> str:
    failed = [r for r in reports if r.get("status") == "failed"]
    if failed:
        return f"FAILED: {failed[-1].get('error', '?')}"
    return merged_summary([r.get("summary", "") for r in reports])


def _took(reports: list[dict]) -> str:
    """The stage's wall time: from the first task's start to the last one's end (tasks may overlap)."""
    spans = []
    for r in reports:
        end = run_stamp_time(r["finished_at"])
        spans.append((end - dt.timedelta(seconds=float(r.get("wall_seconds") or 0)), end))
    seconds = (max(e for _, e in spans) - min(s for s, _ in spans)).total_seconds()
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def example_questions(companies: list[tuple[str, int | None]]) -> list[str]:
    """Two questions to try on what was published: (company, fiscal year of its newest annual report). A
    figure from the income statement and one from the balance sheet: what every 10-K answers."""
    if not companies:
        return []
    name, year = companies[0]
    other, other_year = companies[1] if len(companies) > 1 else companies[0]
    return [f"What were {_owner(name)} total revenues in fiscal {year}?" if year else
            f"What were {_owner(name)} total revenues?",
            f"What were {_owner(other)} total assets at the end of fiscal {other_year}?" if other_year else
            f"What were {_owner(other)} total assets?"]


def _owner(name: str) -> str:
    """The possessive of a company's short name (``domain.companies.short_name``): "Apple's" for Apple Inc.,
    "Abbott Laboratories'", "Coca-Cola's" for The Coca-Cola Company."""
    short = short_name(name)
    return f"{short}'" if short.endswith("s") else f"{short}'s"


def release_lines(backend) -> list[str]:
    """The live release (documents, companies) and two questions to ask it, as ``secplat query`` lines.
    Reads four columns of the documents index, never its names or passages: what ``make run`` prints costs
    the documents' count, not the corpus's text."""
    from schemas.index import INDEXES

    release = backend.live_release()
    target = release.targets.get("documents") if release is not None else None
    if target is None:
        return ["release  nothing is published"]
    rows = backend.scan(target, INDEXES["documents"], ["company", "cik", "form", "fiscal_year"])
    annual: dict[str, int | None] = {}
    for r in rows:
        if r.get("company") and r.get("form") == "10-K":
            annual[r["company"]] = max(annual.get(r["company"]) or 0, r.get("fiscal_year") or 0) or None
    companies = {r.get("cik") or r.get("company") for r in rows} - {None}
    out = [f"release  {release.id}: {len(rows)} documents of {len(companies)} companies"]
    out += [f'try      secplat query "{q}"' for q in example_questions(sorted(annual.items()))]
    return out
