"""The multi-process deployment, for real: Airflow on PostgreSQL with the CeleryExecutor over Redis (Debian's
packages), an api-server, a scheduler, a dag-processor and two Celery workers, started by
``infra/airflow-celery.sh``. A backfill runs through it with conversion and segmentation mapped over two
batches; the worker running Apple's conversion is killed (SIGKILL, its whole process group) mid-batch; the
task is retried on the other worker, and the lake equals what ``secplat run`` makes of the same window."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kernel.layout import INDEX_DATASETS
from kernel.run_policy import batch_of
from tests.compare import assert_same_rows
from tests.conftest import ROOT, free_port

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SCRIPT = ROOT / "infra" / "airflow-celery.sh"
AIRFLOW = str(Path(sys.executable).with_name("airflow"))
SECPLAT = str(Path(sys.executable).with_name("secplat"))
WINDOW = ("2025-07-30", "2025-08-01")  # Apple's 10-Q of 2025-08-01 inside, Tesla's of 2025-07-24 outside


def _services_or_skip() -> None:
    if os.geteuid() != 0:
        pytest.skip("the deployment test starts PostgreSQL as its own user: it needs root (runuser)")
    if not shutil.which("redis-server") or not glob.glob("/usr/lib/postgresql/*/bin/postgres"):
        pytest.skip("redis-server or the PostgreSQL server is missing: run infra/install-system-deps.sh")


@pytest.fixture()
def deployment(tmp_path, edgar_mirror, universe_csv):
    _services_or_skip()
    state = tmp_path / "deployment"
    env = {**os.environ, "LAKE_ROOT": str(tmp_path / "lake"), "EDGAR_MIRROR": str(edgar_mirror),
           "UNIVERSE_CSV": universe_csv, "UNIVERSE_TICKERS": "AAPL,TSLA", "FORMS": "10-Q", "STAGE_BATCHES": "2",
           "SPARK_MASTER": "local[1]", "HF_HUB_OFFLINE": "1",
           "TASK_HEARTBEAT_TIMEOUT": "20", "TASK_RETRY_DELAY": "5", "AIRFLOW_CELERY_DIR": str(state), "PG_PORT": str(free_port()),
           "REDIS_PORT": str(free_port()), "API_PORT": str(free_port()), "VENV_BIN": str(Path(sys.executable).parent)}
    started = subprocess.run(["bash", str(SCRIPT), "start", "2"], env=env, capture_output=True, text=True,
                             timeout=300)
    assert started.returncode == 0, started.stderr[-3000:]
    for line in started.stdout.splitlines():
        if line.startswith("export "):
            name, _, value = line[len("export "):].partition("=")
            env[name] = value
    try:
        yield env, state
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", "--purge"], env=env, capture_output=True, timeout=120)


def _db(env: dict):
    import psycopg2

    return psycopg2.connect(host="127.0.0.1", port=int(env["PG_PORT"]), user="airflow", password="airflow",
                            dbname="airflow")


def _query(env: dict, sql: str, *args) -> list[tuple]:
    with _db(env) as conn, conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def _airflow(env: dict, *args: str) -> str:
    done = subprocess.run([AIRFLOW, *args], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, f"airflow {' '.join(args)}: {done.stderr[-3000:]}"
    return done.stdout


def _ancestors(pid: int) -> list[int]:
    """The pid and its parents up to init (a process that ends meanwhile ends the chain)."""
    chain = []
    while pid > 1:
        chain.append(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError):
            break
    return chain


def _kill_worker_converting(state: Path, deadline: float) -> str:
    """SIGKILL the Celery worker (its whole process group, the task's too) while its task renders a filing:
    the moment a ``wkhtmltopdf`` process runs under one of the workers. Returns the worker's name."""
    while time.time() < deadline:
        workers = {int(f.read_text()): f.stem for f in state.glob("worker-*.pid")}
        for proc in Path("/proc").iterdir():
            try:
                if not proc.name.isdigit() or (proc / "comm").read_text().strip() != "wkhtmltopdf":
                    continue
            except OSError:
                continue
            chain = _ancestors(int(proc.name))
            worker = next((p for p in chain if p in workers), None)
            if worker is not None:
                for group in {os.getpgid(p) for p in chain[:-1] if _alive(p)} | {worker}:
                    os.killpg(group, signal.SIGKILL)
                return workers[worker]
        time.sleep(0.1)
    raise AssertionError("no worker ever rendered a filing")


def _alive(pid: int) -> bool:
    try:
        os.getpgid(pid)
        return True
    except ProcessLookupError:
        return False


def _table(lake: Path, key: str, columns: list[str]):
    return pq.read_table(lake / key, columns=columns).sort_by([(c, "ascending") for c in columns[:2] if c != "vector"])


def test_backfill_on_celery_survives_a_killed_worker_and_equals_secplat_run(deployment, tmp_path):
    env, state = deployment
    # the same window through `secplat run`, one process, no Airflow: run beside the backfill, which spends
    # most of its time waiting (the lost worker's heartbeat, the retry)
    reference, log = tmp_path / "reference", tmp_path / "reference.log"
    with log.open("w") as out:
        run = subprocess.Popen([SECPLAT, "run", "--tickers", "AAPL,TSLA", "--forms", "10-Q", "--from", WINDOW[0],
                                "--to", WINDOW[1]], env={**env, "LAKE_ROOT": str(reference)}, stdout=out,
                               stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        _backfill_survives_a_killed_worker(env, state)
        assert run.wait(timeout=1200) == 0, log.read_text()[-3000:]
    finally:
        run.kill()
    lake = Path(env["LAKE_ROOT"])
    for key, columns in (("datasets/documents", ["doc_id", "form", "filing_date", "page_count"]),
                         ("datasets/pages", ["doc_id", "page", "text"]), ("datasets/chunks", ["chunk_id", "doc_id", "text"]),
                         (INDEX_DATASETS["passages"], ["chunk_id", "doc_id", "text", "vector"])):
        assert_same_rows(_table(lake, key, columns), _table(reference, key, columns), key)


def _backfill_survives_a_killed_worker(env: dict, state: Path) -> None:
    """A backfill of ``WINDOW`` with the worker converting Apple's filing killed: every run succeeds, and
    Apple's conversion succeeded on a later try."""
    _airflow(env, "backfill", "create", "--dag-id", "secplat_nightly", "--from-date", WINDOW[0], "--to-date",
             WINDOW[1], "--max-active-runs", "3")
    for dag_id in ("secplat_nightly", "secplat_publish"):
        _airflow(env, "dags", "unpause", dag_id)
    deadline = time.time() + 1500
    apple = batch_of("320193", 2)
    killed = _kill_worker_converting(state, deadline)

    while time.time() < deadline:
        runs = _query(env, "select dag_id, run_type, state from dag_run")
        backfill = [r for r in runs if r[0] == "secplat_nightly" and r[1] == "backfill"]
        publish = [r for r in runs if r[0] == "secplat_publish"]
        if len(backfill) == 3 and publish and all(r[2] in ("success", "failed") for r in backfill + publish):
            break
        time.sleep(2)
    else:
        raise AssertionError(f"the backfill did not finish: {runs}")
    assert {r[2] for r in backfill + publish} == {"success"}, runs
    tries = _query(env, "select try_number, state, hostname from task_instance where dag_id = 'secplat_nightly' "
                        "and task_id = 'convert' and map_index = %s and run_id like 'backfill__2025-08-02%%'", apple)
    assert tries and tries[0][0] >= 2 and tries[0][1] == "success", (killed, tries)

