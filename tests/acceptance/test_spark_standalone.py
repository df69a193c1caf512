"""`secplat index` on a real Spark standalone cluster (a master and two workers started by
``infra/spark-standalone.sh`` from the pyspark package) gives the same index datasets as ``local[2]``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kernel.layout import INDEX_DATASETS
from tests.compare import assert_same_rows

pytestmark = [pytest.mark.shared, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
SCRIPT = ROOT / "infra" / "spark-standalone.sh"
KEYS = {"passages": "chunk_id", "documents": "doc_id", "tree_nodes": "node_id", "lexicon": "term", "facts": "fact_id",
        "concepts": "concept"}


@pytest.fixture()
def cluster(tmp_path):
    env = {**os.environ, "PYTHON": sys.executable, "SPARK_STANDALONE_DIR": str(tmp_path / "spark"),
           "SPARK_MASTER_PORT": "17077", "SPARK_MASTER_WEBUI_PORT": "18080"}
    started = subprocess.run(["bash", str(SCRIPT), "start", "2", "1", "2g"], env=env, capture_output=True,
                             text=True, timeout=180)
    assert started.returncode == 0, started.stderr + started.stdout
    try:
        yield "spark://127.0.0.1:17077", tmp_path / "spark"
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop"], env=env, capture_output=True, timeout=60)


def _secplat(env: dict, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([SECPLAT, *args], env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"secplat {args[0]}: {done.stderr[-3000:]}"
    return done


def _dataset(lake: Path, name: str):
    table = pq.read_table(lake / INDEX_DATASETS[name])
    return table.sort_by(KEYS[name])


def test_index_on_a_standalone_cluster_equals_local(cluster, edgar_mirror, universe_csv, tmp_path):
    master, state = cluster
    lake = tmp_path / "lake"
    env = {**os.environ, "LAKE_ROOT": str(lake), "EDGAR_MIRROR": str(edgar_mirror), "UNIVERSE_CSV": universe_csv,
           "HF_HUB_OFFLINE": "1",  # the default backend: its vectors do not depend on the batching
           "SPARK_LOCAL_IP": "127.0.0.1"}
    _secplat(env, "crawl", "--tickers", "AAPL,HD", "--forms", "8-K,10-Q", "--from", "2019-11-15", "--to",
             "2023-09-08")
    _secplat(env, "convert")
    _secplat(env, "segment")
    other = tmp_path / "lake-cluster"
    shutil.copytree(lake, other)

    times = {}
    for where, spark_master in ((lake, "local[2]"), (other, master)):
        started = time.perf_counter()
        _secplat({**env, "LAKE_ROOT": str(where), "SPARK_MASTER": spark_master}, "index")
        times[spark_master] = round(time.perf_counter() - started, 1)
    print(f"secplat index wall time: {times}")
    # the jobs ran on the cluster's executors, not in the driver
    assert any(state.glob("work-*/app-*/*/stderr")), "no executor ran on the standalone workers"

    for name in KEYS:
        assert_same_rows(_dataset(other, name), _dataset(lake, name), name)
