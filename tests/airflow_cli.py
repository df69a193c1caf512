"""Running the Airflow CLI against a throwaway AIRFLOW_HOME, and reading what a run left (tests only)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from tests.conftest import ROOT

DAGS = ROOT / "dags"
AIRFLOW = str(Path(sys.executable).with_name("airflow"))


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


def _runs(home: Path) -> tuple[list[tuple[str, str, str]], int]:
    """(dag_id, state, run_type) of every run, and asset events not yet turned into a publish run."""
    with sqlite3.connect(home / "airflow.db", timeout=30) as db:
        runs = db.execute("select dag_id, state, run_type from dag_run").fetchall()
        return runs, db.execute("select count(*) from asset_dag_run_queue").fetchone()[0]


# --- idempotency --------------------------------------------------------------------------------------------
