"""The DAGs run by Airflow: `airflow dags test` on the fixture and the real mirror, a backfill through the
scheduler, and a task killed mid-run and retried."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kernel.resources import Resources
from kernel.run_policy import batch_of
from kernel.settings import load_settings
from shell.tasks import (
    RunPlan,
)
from tests.airflow_cli import (
    AIRFLOW,
    _airflow,
    _airflow_env,
    _asset_events,
    _documents,
    _runs,
    _task_states,
)
from tests.browser import stop
from tests.conftest import ROOT, free_port


@pytest.mark.slow
def test_amendment_forms_run_through_airflow_and_its_ui_shows_the_run(fixture_mirror, tmp_path):
    """FORMS=10-K/A,10-Q/A (a value the settings accept) plans and crawls in `airflow dags test` (it used to
    fail every run at ``plan``): the dry run discovers exactly ACME's 10-Q/A of 2024-05-20. Then the Airflow UI
    (``airflow api-server`` on 127.0.0.1) in headless Chromium lists both DAGs and the run's task states."""
    home, lake, log = tmp_path / "airflow", tmp_path / "lake", tmp_path / "airflow.log"
    env = _airflow_env(home, lake, EDGAR_MIRROR=str(fixture_mirror["root"]), FORMS="10-K/A,10-Q/A",
                       UNIVERSE_CSV=fixture_mirror["universe_csv"], UNIVERSE_TICKERS="ACME,BETA.B",
                       AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS="True", AIRFLOW__API__HOST="127.0.0.1")
    _airflow(env, "db", "migrate", log=log)
    out = _airflow(env, "dags", "test", "secplat_nightly", "2024-05-21", "-c",
                   json.dumps({"filed_from": "2024-01-01", "dry_run": True}), log=log)
    assert "dry run would fetch: ACME 10-Q/A 0001000001-24-000021 filed 2024-05-20" in out
    assert "would fetch: ACME 10-Q " not in out and "would fetch: BETA" not in out
    states = _task_states(home, "secplat_nightly")
    assert {t.rsplit(":", 1)[1]: s for t, s in states.items()}["crawl"] == "success"
    _airflow_ui_shows_the_run(env, home, next(iter(states)).rsplit(":", 1)[0], tmp_path)


def _airflow_ui_shows_the_run(env: dict, home: Path, run_id: str, shots: Path) -> None:
    import urllib.parse

    from tests.browser import body_text, browser_or_skip, chromium, serve, wait_for

    browser_or_skip()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = serve([AIRFLOW, "api-server", "--port", str(port)], {**env, "AIRFLOW__API__PORT": str(port)},
                 f"{base}/api/v2/monitor/health", home / "api-server.log")
    try:
        with chromium() as driver:
            driver.get(f"{base}/dags")
            wait_for(lambda: "secplat_nightly" in body_text(driver) and "secplat_publish" in body_text(driver),
                     "the DAG list")
            driver.save_screenshot(str(shots / "airflow-dags.png"))
            driver.get(f"{base}/dags/secplat_nightly/runs/{urllib.parse.quote(run_id, safe='')}")
            tasks = ("plan", "companies", "crawl", "convert", "segment", "index")

            def run_page() -> str:
                """The run's page once every task's row has rendered (the table fills in after its header and
                first rows: reading it at the first "Success" raced the skipped rows)."""
                text = body_text(driver)
                ready = "Task Instances" in text and "Success" in text and "Skipped" in text
                return text if ready and all(task in text for task in tasks) else ""

            text = wait_for(run_page, "the run's task instances, every task's row with its state")
            driver.save_screenshot(str(shots / "airflow-run.png"))
            for task in tasks:
                assert task in text, (task, text[:2000])
            assert "Skipped" in text  # a dry run announces no index-ready data
    finally:
        stop(proc)
    print(f"screenshots: {shots}")


@pytest.mark.shared
@pytest.mark.slow
def test_nightly_then_publish_as_of_two_dates_answers_about_the_new_filing(edgar_mirror, universe_csv, tmp_path):
    """D1 = 2023-08-05 (with params reaching back to 2019), D2 = 2025-05-03: the D2 run's data interval is
    2025-05-02, the day Apple filed its 10-Q for the quarter ended March 29, 2025."""
    home, lake, log = tmp_path / "airflow", tmp_path / "lake", tmp_path / "airflow.log"
    env = _airflow_env(home, lake, EDGAR_MIRROR=str(edgar_mirror), UNIVERSE_CSV=universe_csv)
    _airflow(env, "db", "migrate", log=log)
    conf = {"tickers": ["AAPL"], "forms": ["10-Q", "8-K"]}  # Apple's 8-K of 2019, 10-Qs of 2023 and 2025
    _airflow(env, "dags", "test", "secplat_nightly", "2023-08-05", "-c",
             json.dumps({**conf, "filed_from": "2019-01-01"}), log=log)
    assert {d["filing_date"].isoformat() for d in _documents(lake).values()} == {"2019-11-15", "2023-08-04"}
    assert _asset_events(home) == 1  # the index task announced new index-ready data

    _airflow(env, "dags", "test", "secplat_nightly", "2025-05-03", "-c", json.dumps(conf), log=log)
    docs = _documents(lake)
    assert len(docs) == 3 and {d["filing_date"].isoformat() for d in docs.values()} >= {"2025-05-02"}
    assert _asset_events(home) == 2
    _airflow(env, "dags", "test", "secplat_publish", log=log)

    from query.retrieve import Retriever

    settings = load_settings(lake_root=str(lake), universe_csv=universe_csv, embedding_backend="onnx-int8",
                             page_ranker="learned-all")
    result = Retriever(Resources(settings)).search("Apple net sales for the quarter ended March 29, 2025", k=5)
    # the publish DAG trained the release's page ranker before its serving check: the answer (asked to) used it
    assert (lake / "index" / "ranker" / f"{result.release}.json").exists() and result.page_order == "learned"
    new_doc = next(d for d, row in docs.items() if row["filing_date"].isoformat() == "2025-05-02")
    assert result.evidence and result.evidence[0].doc_id == new_doc, [e.doc_id for e in result.evidence]

    # a night without filings: the pre-check maps no crawl task and the rest of the run is skipped (no
    # convert, no Spark, no asset event, no publish)
    out = _airflow(env, "dags", "test", "secplat_nightly", "2025-05-04", "-c", json.dumps(conf), log=log)
    assert "0 of 1 companies to crawl" in out
    states = _task_states(home, "secplat_nightly")
    run = [k for k in states if k.endswith(":announce")][-1].rsplit(":", 1)[0]
    assert states[f"{run}:companies"] == "success"
    for task_id in ("crawl", "batches", "convert", "segment", "index", "index_changed", "announce"):
        assert states[f"{run}:{task_id}"] == "skipped", task_id
    assert _asset_events(home) == 2


@pytest.mark.shared
@pytest.mark.slow
def test_backfill_through_the_scheduler_fills_exactly_the_range(edgar_mirror, universe_csv, tmp_path):
    """`airflow backfill create` over 2025-07-30..2025-08-01 (three runs at once) for Apple and Tesla 10-Qs:
    Apple's 10-Q of 2025-08-01 is inside; Tesla's of 2025-07-24 and Apple's of 2025-05-02 are outside."""
    home, lake, log = tmp_path / "airflow", tmp_path / "lake", tmp_path / "airflow.log"
    port = free_port()
    env = _airflow_env(
        home, lake, EDGAR_MIRROR=str(edgar_mirror), UNIVERSE_CSV=universe_csv, UNIVERSE_TICKERS="AAPL,TSLA",
        FORMS="10-Q", AIRFLOW__CORE__EXECUTOR="LocalExecutor", AIRFLOW__CORE__PARALLELISM="2",
        AIRFLOW__API__HOST="127.0.0.1", AIRFLOW__API__PORT=str(port),
        AIRFLOW__CORE__EXECUTION_API_SERVER_URL=f"http://127.0.0.1:{port}/execution/",
        AIRFLOW__API_AUTH__JWT_SECRET="secplat-tests-" + "x" * 32,
        AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=str(free_port()),
        AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC="2")
    _airflow(env, "db", "migrate", log=log)
    # Every CLI write before the scheduler starts: sqlite allows one writer at a time.
    _airflow(env, "dags", "reserialize", log=log)
    _airflow(env, "backfill", "create", "--dag-id", "secplat_nightly", "--from-date", "2025-07-30",
             "--to-date", "2025-08-01", "--max-active-runs", "3", log=log)
    for dag_id in ("secplat_nightly", "secplat_publish"):  # a paused DAG runs no backfill either
        _airflow(env, "dags", "unpause", dag_id, log=log)
    procs = {}
    for cmd in ("api-server", "scheduler"):
        with open(tmp_path / f"{cmd}.log", "w") as out:  # the child keeps its own descriptor
            procs[cmd] = subprocess.Popen([AIRFLOW, cmd], env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)
    try:
        deadline = time.time() + 1200
        while time.time() < deadline:
            dead = [cmd for cmd, p in procs.items() if p.poll() is not None]
            if dead:  # nothing would finish the runs: say why now, not at the deadline
                pytest.fail(f"airflow {dead[0]} exited: " + (tmp_path / f"{dead[0]}.log").read_text()[-2000:])
            runs, queued = _runs(home)
            backfill = [r for r in runs if r[0] == "secplat_nightly" and r[2] == "backfill"]
            publishes = [r for r in runs if r[0] == "secplat_publish"]
            if (len(backfill) == 3 and all(r[1] in ("success", "failed") for r in backfill + publishes)
                    and publishes and not queued):  # every asset event consumed by a finished publish
                break
            time.sleep(5)
        else:
            pytest.fail(f"backfill did not finish: {runs}")
    finally:
        for p in procs.values():  # SIGTERM to the group, SIGKILL if it lingers (a scheduler may take minutes)
            stop(p)
    assert {r[1] for r in publishes} == {"success"}, publishes
    assert {r[1] for r in backfill} == {"success"}, backfill
    # three overlapping runs, one filing: whichever index task ran first indexed it, one asset event
    assert _asset_events(home) == 1
    docs = _documents(lake)
    assert sorted((d["ticker"], d["filing_date"].isoformat()) for d in docs.values()) == [("AAPL", "2025-08-01")]
    from kernel.search import open_backend
    from kernel.search.base import alias_name

    backend = open_backend(load_settings(lake_root=str(lake)))
    from schemas.index import INDEXES

    indexed = backend.scan(alias_name(backend.prefix, "documents"), INDEXES["documents"], ["doc_id"])
    assert sorted(r["doc_id"] for r in indexed) == sorted(docs)



@pytest.mark.shared
def test_a_task_killed_mid_run_and_retried_produces_the_same_outputs(edgar_mirror, universe_csv, tmp_path):
    """A convert batch killed (SIGKILL) after its first document, then retried, leaves the same pages and
    documents as an uninterrupted unbatched run, and no temp files."""
    plan = RunPlan(filed_from=dt.date(2019, 1, 1), filed_to=dt.date(2025, 8, 1), tickers=["AAPL"],
                   forms=["10-Q", "8-K"]).model_dump(mode="json")
    env = {**os.environ, "EDGAR_MIRROR": str(edgar_mirror), "UNIVERSE_CSV": universe_csv, "CONVERT_WORKERS": "1"}
    batch = [batch_of("320193", 3), 3]  # Apple's batch of three

    def run_task(lake: Path, call: str, wait: bool = True):
        code = f"import json, sys; from shell import tasks; plan = json.loads(sys.argv[1]); tasks.{call}"
        proc = subprocess.Popen([sys.executable, "-c", code, json.dumps(plan)], env={**env, "LAKE_ROOT": str(lake)},
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if wait:
            assert proc.wait(timeout=600) == 0, proc.stderr.read()[-3000:]
        return proc

    clean, killed = tmp_path / "clean", tmp_path / "killed"
    for lake in (clean, killed):
        run_task(lake, "crawl_company(plan, 'AAPL')")
    run_task(clean, "convert_new(plan)")
    run_task(killed, "stage_batches(plan)")
    proc = run_task(killed, f"convert_new(plan, {batch})", wait=False)
    docs = killed / "datasets" / "documents"
    deadline = time.time() + 300
    while time.time() < deadline and not (docs.is_dir() and any(docs.glob("*.parquet"))) and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the conversion ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(list(docs.glob("*.parquet"))) < len(list((clean / "datasets" / "documents").glob("*.parquet")))
    for other in range(3):  # the retry, and the other batches (no Apple filing in them)
        run_task(killed, f"convert_new(plan, {[other, 3]})")
    for dataset, cols in (("documents", ["doc_id", "page_count", "form", "fiscal_year"]),
                          ("pages", ["doc_id", "page", "text"])):
        a = {f.name: pq.read_table(f, columns=cols).to_pylist() for f in (clean / "datasets" / dataset).glob("*")}
        b = {f.name: pq.read_table(f, columns=cols).to_pylist() for f in (killed / "datasets" / dataset).glob("*")}
        assert a == b, dataset
    leftovers = [p for p in killed.rglob("*") if p.is_file() and (".tmp" in p.name or ".tmp" in p.parts)]
    assert leftovers == []  # the killed try's temp files were swept
