"""What `make run` prints: one line per stage from the run reports a run left, the release, questions to try."""

from __future__ import annotations

import json

from kernel.storage import LocalLake
from shell.run_summary import example_questions, merged_summary, stage_lines


def _report(lake, stage: str, stamp: str, **body) -> None:
    lake.write_bytes(f"runs/{stage}/{stamp}.json", json.dumps({"finished_at": stamp, "stage": stage, **body}).encode())


def test_each_stage_is_one_line_with_its_wall_time_and_mapped_tasks_add_up(tmp_path):
    lake = LocalLake(tmp_path)
    _report(lake, "crawl", "20261127T040000000000Z", summary="1 companies: 3 fetched; 0 problem(s)", wall_seconds=5)
    _report(lake, "crawl", "20261127T050000000000Z", summary="1 companies: 4 fetched; 0 problem(s)", wall_seconds=5)
    _report(lake, "crawl", "20261127T050002000000Z", summary="1 companies: 2 fetched; 1 problem(s)", wall_seconds=4)
    _report(lake, "index", "20261127T050100000000Z", status="failed", error="Spark could not start")
    lines = stage_lines(lake, "20261127T045959")
    assert lines == ["crawl        7 s  2 tasks: 2 companies: 6 fetched; 1 problem(s)",
                     "index        0 s  FAILED: Spark could not start"]  # the 04:00 run is an earlier one's


def test_summaries_of_another_shape_or_with_names_digits_are_not_added():
    assert merged_summary(["release r2026 (3 rows)", "release r2027 (4 rows)"]) == \
        "release r2027 (4 rows) (and 1 more task(s))"
    assert merged_summary(["12 fetched", "3 fetched"]) == "2 tasks: 15 fetched"
    assert merged_summary(["1.5 s, Q4 derived", "2.0 s, Q4 derived"]) == "2 tasks: 3.5 s, Q4 derived"
    assert merged_summary(["1 companies: 0 missing (404)", "1 companies: 2 missing (404)"]) == \
        "2 tasks: 2 companies: 2 missing (404)"  # a code is no count


def test_two_questions_name_a_published_company_and_its_year():
    assert example_questions([("Abbott Laboratories", 2023), ("Apple Inc.", None)]) == [
        "What were Abbott Laboratories' total revenues in fiscal 2023?", "What were Apple's total assets?"]
    assert example_questions([("Coca-Cola Company (The)", 2023)])[0] == \
        "What were Coca-Cola's total revenues in fiscal 2023?"
    assert example_questions([]) == []


def test_the_release_line_counts_published_documents_and_names_their_newest_annual_reports(tmp_path):
    from kernel.resources import Resources
    from kernel.settings import load_settings
    from shell.run_summary import release_lines
    from shell.runner import run_stage
    from tests.index_records import records, write_index_lake

    resources = Resources(load_settings(lake_root=str(tmp_path)))
    assert release_lines(resources.backend) == ["release  nothing is published"]
    write_index_lake(tmp_path, records("v1"))
    run_stage("publish", resources)
    release = resources.backend.live_release()
    assert release_lines(resources.backend) == [
        f"release  {release.id}: 2 documents of 2 companies",
        'try      secplat query "What were PepsiCo\'s total revenues in fiscal 2023?"',
        'try      secplat query "What were Coca-Cola\'s total assets at the end of fiscal 2023?"']
