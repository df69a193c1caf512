"""The Airflow DAGs: integrity (imports, schedules, retries, thin files), the run plan, and, on the real
mirror, end-to-end runs with `airflow dags test` and a backfill executed by a real scheduler.

Airflow runs in subprocesses with their own AIRFLOW_HOME (sqlite) so no test shares a metadata DB."""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kernel.rules import batch_of
from kernel.settings import ConfigError, load_settings
from shell.tasks import (
    CRAWL_PARALLEL_TASKS,
    EDGAR_SHARES,
    STAGE_PARALLEL_TASKS,
    TRANSIENT_ERRORS,
    RunPlan,
    plan_run,
)
from tests.conftest import ROOT, free_port

DAGS = ROOT / "dags"
AIRFLOW = str(Path(sys.executable).with_name("airflow"))
HEAVY = ("pyspark", "torch", "sentence_transformers", "lancedb", "fitz", "great_expectations", "pandas",
         "elasticsearch", "onnxruntime", "sklearn", "pdfkit")


# --- integrity ------------------------------------------------------------------------------------------

def test_dag_files_import_only_the_sdk_pendulum_and_project_modules():
    allowed = ("airflow.sdk", "pendulum", "__future__", "dags", "shell")  # the DAGs call the shell only
    files = sorted(DAGS.glob("*.py"))
    assert {f.name for f in files} >= {"secplat_nightly.py", "secplat_publish.py", "common.py"}
    for path in files:
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level only: imports inside tasks are the library's business
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name == "airflow.sdk" or name.split(".")[0] in allowed and not name.startswith("airflow"), (
                    f"{path.name}: module-level import {name}")
        # thin: every task body is a single call (plus an optional return)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "task"
                    or getattr(d, "id", None) == "task" or getattr(d, "attr", None) == "short_circuit"
                    for d in fn.decorator_list):
                assert len(fn.body) == 1 and isinstance(fn.body[0], ast.Return), f"{path.name}: {fn.name} is not thin"


def test_parsing_the_dags_loads_no_heavy_library():
    code = ("import sys, importlib.util\n"
            "for name in ('secplat_nightly', 'secplat_publish'):\n"
            "    spec = importlib.util.spec_from_file_location(name, f'{sys.argv[1]}/{name}.py')\n"
            "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code, str(DAGS)], capture_output=True, text=True, timeout=120,
                         env=_airflow_env(Path("/nonexistent-airflow-home")), cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.fixture(scope="module")
def dagbag():
    code = ("import json, sys\nfrom airflow.dag_processing.dagbag import DagBag\n"
            "b = DagBag(sys.argv[1])\nout = {'errors': {k: str(v) for k, v in b.import_errors.items()}, 'dags': {}}\n"
            "for d in b.dags.values():\n"
            "    out['dags'][d.dag_id] = {'timetable': type(d.timetable).__name__, 'summary': getattr(d.timetable, 'expression', None),\n"
            "        'tags': sorted(d.tags), 'max_active_runs': d.max_active_runs, 'catchup': d.catchup,\n"
            "        'params': sorted(d.params), 'tasks': {t.task_id: {'retries': t.retries,\n"
            "            'policy': type(t.retry_policy).__name__, 'map_index_template': getattr(t, 'map_index_template', None),\n"
            "            'max_active_tis_per_dag': t.max_active_tis_per_dag, 'trigger_rule': str(t.trigger_rule.value),\n"
            "            'outlets': [getattr(o, 'name', None) for o in t.outlets]} for t in d.tasks}}\n"
            "print(json.dumps(out))\n")
    out = subprocess.run([sys.executable, "-c", code, str(DAGS)], capture_output=True, text=True, timeout=180,
                         env=_airflow_env(Path("/nonexistent-airflow-home")), cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_dags_load_with_explicit_schedules_tags_and_transient_only_retries(dagbag):
    assert dagbag["errors"] == {}
    nightly, publish = dagbag["dags"]["secplat_nightly"], dagbag["dags"]["secplat_publish"]
    assert nightly["timetable"] == "CronDataIntervalTimetable" and nightly["summary"] == "0 0 * * *"
    assert publish["timetable"] == "AssetTriggeredTimetable"
    for d in (nightly, publish):
        assert "secplat" in d["tags"] and d["max_active_runs"] == 1 and d["catchup"] is False
        for task_id, t in d["tasks"].items():
            assert t["retries"] >= 1 and t["policy"] == "ExceptionRetryPolicy", task_id
    assert set(nightly["params"]) == {"tickers", "forms", "filed_from", "filed_to", "dry_run"}
    crawl = nightly["tasks"]["crawl"]
    assert crawl["map_index_template"] == "{{ task.op_kwargs['ticker'] }}"
    # the SEC limit's shares: at most 3 crawl tasks and 1 pre-check at once, across runs and backfills
    assert crawl["max_active_tis_per_dag"] == CRAWL_PARALLEL_TASKS == EDGAR_SHARES - 1
    assert nightly["tasks"]["companies"]["max_active_tis_per_dag"] == 1
    assert nightly["tasks"]["batches"]["trigger_rule"] == "all_done_min_one_success"
    assert nightly["tasks"]["announce"]["outlets"] == ["secplat_index_ready"]
    assert [t for t, v in nightly["tasks"].items() if v["outlets"]] == ["announce"]
    for task_id in ("batches", "index"):  # one at a time, across runs and backfills
        assert nightly["tasks"][task_id]["max_active_tis_per_dag"] == 1, task_id
    for task_id in ("convert", "segment"):  # mapped over batches of companies, several at once
        assert nightly["tasks"][task_id]["max_active_tis_per_dag"] == STAGE_PARALLEL_TASKS > 1, task_id
        assert nightly["tasks"][task_id]["map_index_template"] == "{{ task.op_kwargs['batch'][0] }}"


def test_retry_policy_retries_only_transient_errors():
    from airflow.sdk import ExceptionRetryPolicy, RetryAction, RetryRule

    from etl.edgar_http import HostUnreachable, NotFound

    policy = ExceptionRetryPolicy(rules=[RetryRule(exception=TRANSIENT_ERRORS, action=RetryAction.RETRY)],
                                  default=RetryAction.FAIL)
    assert policy.evaluate(HostUnreachable("https://www.sec.gov", "connection refused"), 1, 4).action == RetryAction.RETRY
    assert policy.evaluate(TimeoutError(), 1, 4).action == RetryAction.RETRY
    for permanent in (ConfigError("bad"), NotFound("https://www.sec.gov/x", "404"), ValueError("bug")):
        assert policy.evaluate(permanent, 1, 4).action == RetryAction.FAIL


# --- the run plan -----------------------------------------------------------------------------------------

def test_run_plan_covers_the_data_interval_and_params_override_it():
    settings = load_settings(universe_tickers="AAPL,KO", edgar_identity="Secplat Tests tests@example.com")
    day = dt.datetime(2025, 5, 2, tzinfo=dt.UTC)
    with pytest.raises(ConfigError, match="EDGAR_IDENTITY"):  # the live site, without an identity
        plan_run({}, day, day + dt.timedelta(days=1), load_settings(edgar_identity=None))
    plan = plan_run({}, day, day + dt.timedelta(days=1), settings)
    assert (plan["filed_from"], plan["filed_to"]) == ("2025-05-02", "2025-05-02")
    assert plan["tickers"] == ["AAPL", "KO"] and plan["dry_run"] is False
    plan = plan_run({"tickers": ["brk.b"], "forms": ["10-Q"], "filed_from": "2019-01-01", "dry_run": True},
                    day, day + dt.timedelta(days=1), settings)
    assert plan["tickers"] == ["BRK-B"] and plan["forms"] == ["10-Q"] and plan["filed_from"] == "2019-01-01"
    narrowed = RunPlan.model_validate(plan).settings(settings, ticker="BRK-B")
    assert narrowed.universe_tickers == ["BRK-B"] and narrowed.filed_to == dt.date(2025, 5, 2)
    with pytest.raises(ConfigError, match="forms"):
        plan_run({"forms": ["S-1"]}, day, day, settings)
    with pytest.raises(ConfigError, match="after"):
        plan_run({"filed_from": "2025-06-01"}, day, day + dt.timedelta(days=1), settings)


def test_crawl_tasks_are_mapped_over_companies_with_filings_to_fetch_only(fixture_mirror, tmp_path, monkeypatch):
    """The pre-check on the project's own fixture (ACME: 10-K 2024-02-15, 10-Q 2024-05-01, 10-Q/A 05-20, 8-K
    06-03; BETA-B: 10-K 2024-03-01): a quiet window maps nothing, a crawled window maps nothing again, and a
    ticker that cannot be checked stays in so that its crawl task says why."""
    from shell.tasks import companies_to_crawl, crawl_company

    for key, value in {"EDGAR_MIRROR": str(fixture_mirror["root"]), "LAKE_ROOT": str(tmp_path / "lake"),
                       "UNIVERSE_CSV": fixture_mirror["universe_csv"], "HTTP_BACKOFF_BASE": "0.01"}.items():
        monkeypatch.setenv(key, value)

    def plan(day_from: str, day_to: str, tickers=("ACME", "BETA.B"), forms=("10-K", "10-Q", "8-K")) -> dict:
        return RunPlan(filed_from=dt.date.fromisoformat(day_from), filed_to=dt.date.fromisoformat(day_to),
                       tickers=list(tickers), forms=list(forms)).model_dump(mode="json")

    assert companies_to_crawl(plan("2024-05-01", "2024-05-01")) == ["ACME"]
    assert companies_to_crawl(plan("2024-03-01", "2024-03-01")) == ["BETA-B"]
    assert companies_to_crawl(plan("2024-04-01", "2024-04-30")) == []  # a quiet window
    assert companies_to_crawl(plan("2024-06-01", "2024-06-30", forms=["10-K"])) == []  # only an 8-K in it
    assert companies_to_crawl(plan("2024-01-01", "2024-12-31")) == ["ACME", "BETA-B"]
    assert companies_to_crawl(plan("2024-04-01", "2024-04-30", tickers=["ACME", "NOPE"])) == ["NOPE"]

    may = plan("2024-05-01", "2024-05-31")
    assert crawl_company(may, "ACME")["fetched"] == 2  # the 10-Q and its amendment
    assert companies_to_crawl(may) == []  # crawled before: nothing left to fetch
    assert companies_to_crawl(plan("2024-05-01", "2024-06-30")) == ["ACME"]  # the 8-K of June still is

    submissions = fixture_mirror["root"] / "data.sec.gov/submissions/CIK0001000002.json"
    submissions.write_text("{not json")
    # a historical window asks only the companies the quarterly form index lists: BETA-B is not asked
    assert companies_to_crawl(plan("2024-04-01", "2024-04-30")) == []
    # on the submissions path (nightly windows), BETA-B's unreadable submissions keep it, even in a quiet window
    monkeypatch.setattr("etl.crawler.historical_window", lambda *a: False)
    assert companies_to_crawl(plan("2024-04-01", "2024-04-30")) == ["BETA-B"]
    assert "cannot read submissions" in " ".join(crawl_company(plan("2024-04-01", "2024-04-30"), "BETA-B")["problems"])


def test_an_index_run_with_nothing_to_do_announces_nothing(tmp_path, monkeypatch):
    """The case of overlapping backfill runs: when the index task starts, an earlier run has already indexed
    everything, so no asset event (and no publish) follows; a dry run never indexes."""
    from shell.tasks import index_changed, index_new

    monkeypatch.setenv("LAKE_ROOT", str(tmp_path / "lake"))
    plan = RunPlan(filed_from=dt.date(2025, 5, 2), filed_to=dt.date(2025, 5, 2), tickers=["AAPL"],
                   forms=["10-Q"]).model_dump(mode="json")
    result = index_new(plan)
    assert result["summary"].startswith("index up to date") and index_changed(result) is False
    assert not (tmp_path / "lake" / "runs").exists()  # no run report for a run that did nothing
    assert index_changed(index_new({**plan, "dry_run": True})) is False
    assert index_changed({"summary": "1 documents embedded", "changed": True}) is True


@pytest.mark.slow
def test_amendment_forms_run_through_airflow(fixture_mirror, tmp_path):
    """FORMS=10-K/A,10-Q/A (a value the settings accept) plans and crawls in `airflow dags test` (it used to
    fail every run at ``plan``): the dry run discovers exactly ACME's 10-Q/A of 2024-05-20."""
    home, lake, log = tmp_path / "airflow", tmp_path / "lake", tmp_path / "airflow.log"
    env = _airflow_env(home, lake, EDGAR_MIRROR=str(fixture_mirror["root"]), FORMS="10-K/A,10-Q/A",
                       UNIVERSE_CSV=fixture_mirror["universe_csv"], UNIVERSE_TICKERS="ACME,BETA.B")
    _airflow(env, "db", "migrate", log=log)
    out = _airflow(env, "dags", "test", "secplat_nightly", "2024-05-21", "-c",
                   json.dumps({"filed_from": "2024-01-01", "dry_run": True}), log=log)
    assert "dry run would fetch: ACME 10-Q/A 0001000001-24-000021 filed 2024-05-20" in out
    assert "would fetch: ACME 10-Q " not in out and "would fetch: BETA" not in out
    states = _task_states(home, "secplat_nightly")
    assert {t.rsplit(":", 1)[1]: s for t, s in states.items()}["crawl"] == "success"


# --- end to end on the mirror -----------------------------------------------------------------------------

def _airflow_env(home: Path, lake: Path | None = None, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__DAGS_FOLDER=str(DAGS), AIRFLOW__CORE__LOAD_EXAMPLES="False",
               AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION="True", PYTHONPATH=str(ROOT),
               HF_HUB_OFFLINE="1", EMBEDDING_BACKEND="onnx-int8", SPARK_MASTER="local[2]")
    if lake is not None:
        env["LAKE_ROOT"] = str(lake)
    env.update(extra)
    return env


def _airflow(env: dict, *args: str, timeout: int = 900, log: Path | None = None) -> str:
    out = subprocess.run([AIRFLOW, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if log is not None:
        with open(log, "a") as fh:
            fh.write(f"$ airflow {' '.join(args)}\n{out.stdout}\n{out.stderr}\n")
    assert out.returncode == 0, f"airflow {' '.join(args)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout + out.stderr


def _asset_events(home: Path) -> int:
    with sqlite3.connect(home / "airflow.db") as db:
        return db.execute("select count(*) from asset_event").fetchone()[0]


def _task_states(home: Path, dag_id: str) -> dict[str, str]:
    with sqlite3.connect(home / "airflow.db") as db:
        rows = db.execute("select task_id, state, run_id from task_instance where dag_id = ? order by start_date",
                          (dag_id,)).fetchall()
    return {f"{run}:{task}": state for task, state, run in rows}


def _documents(lake: Path) -> dict[str, dict]:
    out = {}
    for f in sorted((lake / "datasets" / "documents").glob("*.parquet")):
        for row in pq.read_table(f, columns=["doc_id", "ticker", "form", "filing_date"]).to_pylist():
            out[row["doc_id"]] = row
    return out


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

    settings = load_settings(lake_root=str(lake), universe_csv=universe_csv, embedding_backend="onnx-int8")
    result = Retriever(settings).search("Apple net sales for the quarter ended March 29, 2025", k=5)
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
    procs = []
    for cmd in ("api-server", "scheduler"):
        with open(tmp_path / f"{cmd}.log", "w") as out:  # the child keeps its own descriptor
            procs.append(subprocess.Popen([AIRFLOW, cmd], env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True))
    try:
        deadline = time.time() + 1200
        while time.time() < deadline:
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
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=60)
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


def _runs(home: Path) -> tuple[list[tuple[str, str, str]], int]:
    """(dag_id, state, run_type) of every run, and asset events not yet turned into a publish run."""
    with sqlite3.connect(home / "airflow.db", timeout=30) as db:
        runs = db.execute("select dag_id, state, run_type from dag_run").fetchall()
        return runs, db.execute("select count(*) from asset_dag_run_queue").fetchone()[0]


# --- idempotency --------------------------------------------------------------------------------------------

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
