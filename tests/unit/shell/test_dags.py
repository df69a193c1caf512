"""The Airflow DAGs' integrity: imports, schedules, retries, thin files, the run plan, mapped tasks (no
Airflow run; tests/acceptance/test_dag_runs.py runs them)."""

from __future__ import annotations

import ast
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.settings import ConfigError, load_settings
from shell.tasks import (
    CRAWL_PARALLEL_TASKS,
    EDGAR_SHARES,
    STAGE_PARALLEL_TASKS,
    TRANSIENT_ERRORS,
    RunPlan,
    plan_run,
)
from tests.airflow_cli import DAGS, _airflow_env
from tests.conftest import ROOT

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
            "            'outlets': [getattr(o, 'name', None) for o in t.outlets],\n"
            "            'upstream': sorted(t.upstream_task_ids)} for t in d.tasks}}\n"
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
    assert set(publish["tasks"]) == {"publish", "check_serving", "train_ranker"}
    assert publish["tasks"]["train_ranker"]["upstream"] == ["publish"]  # the model before the serving check
    assert publish["tasks"]["check_serving"]["upstream"] == ["train_ranker"]
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

    from etl.crawl.edgar_http import HostUnreachable, NotFound

    policy = ExceptionRetryPolicy(rules=[RetryRule(exception=TRANSIENT_ERRORS, action=RetryAction.RETRY)],
                                  default=RetryAction.FAIL)
    assert policy.evaluate(HostUnreachable("https://www.sec.gov", "connection refused"), 1, 4).action == RetryAction.RETRY
    assert policy.evaluate(TimeoutError(), 1, 4).action == RetryAction.RETRY
    for permanent in (ConfigError("bad"), NotFound("https://www.sec.gov/x", "404"), ValueError("bug")):
        assert policy.evaluate(permanent, 1, 4).action == RetryAction.FAIL


def test_the_dags_retry_a_sec_block_after_it_and_other_transient_errors_sooner():
    import time

    from airflow.sdk import RetryAction

    from dags.common import default_args
    from etl.crawl.edgar_http import Blocked, HostUnreachable

    policy = default_args(3)["retry_policy"]
    blocked = policy.evaluate(Blocked("https://www.sec.gov/x", time.time() + 600, "HTTP 403"), 1, 4)
    assert blocked.action == RetryAction.RETRY and blocked.retry_delay.total_seconds() >= 600
    other = policy.evaluate(HostUnreachable("https://www.sec.gov", "connection refused"), 1, 4)
    assert other.action == RetryAction.RETRY and not other.retry_delay
    assert policy.evaluate(ValueError("bug"), 1, 4).action == RetryAction.FAIL


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
    monkeypatch.setattr("etl.crawl.crawler.historical_window", lambda *a: False)
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


def test_the_first_retry_delay_is_a_setting(monkeypatch):
    from dags.common import default_args

    assert default_args(3)["retry_delay"].total_seconds() == 60
    monkeypatch.setenv("TASK_RETRY_DELAY", "5")
    assert default_args(3)["retry_delay"].total_seconds() == 5
    monkeypatch.setenv("TASK_RETRY_DELAY", "0")
    with pytest.raises(ConfigError, match="task_retry_delay|TASK_RETRY_DELAY"):
        default_args(3)
