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

from kernel.layout import INDEX_DATASETS, SEARCH_DIR
from tests.compare import assert_same_rows

pytestmark = [pytest.mark.shared, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
SCRIPT = ROOT / "infra" / "spark-standalone.sh"
KEYS = {"passages": "chunk_id", "documents": "doc_id", "tree_nodes": "node_id", "lexicon": "term", "facts": "fact_id",
        "concepts": "concept"}
# What the index stage and the stages after it wrote (index/, search/): the cluster's run starts without them.
UNINDEXED = {Path(INDEX_DATASETS["passages"]).parts[0], SEARCH_DIR}


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


def test_index_on_a_standalone_cluster_equals_local(cluster, local_run, tmp_path):
    """The session's local run (``local[2]``) up to its segmented chunks, indexed again on the cluster."""
    master, state = cluster
    local, env, _ = local_run
    other = tmp_path / "lake-cluster"
    shutil.copytree(local, other, ignore=lambda d, names: [n for n in names if Path(d) == local and n in UNINDEXED])
    started = time.perf_counter()
    _secplat({**env, "LAKE_ROOT": str(other), "SPARK_MASTER": master}, "index")
    print(f"secplat index on the cluster: {time.perf_counter() - started:.1f} s")
    # the jobs ran on the cluster's executors, not in the driver
    assert any(state.glob("work-*/app-*/*/stderr")), "no executor ran on the standalone workers"

    for name in KEYS:
        assert_same_rows(_dataset(other, name), _dataset(local, name), name)
