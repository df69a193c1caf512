"""`secplat run` with the lake on S3 (a real S3 server: ``rclone serve s3``) from crawl to published indexes,
the Spark jobs reading and writing the lake through their executors (no hadoop-aws): the same documents,
chunks, index rows and vectors as the same run on local disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.layout import INDEX_DATASETS
from kernel.storage import dataset_partitions, open_lake, read_parquet, read_partition
from tests.compare import assert_same_rows
from tests.conftest import RUN_WINDOW

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
KEYS = {"passages": "chunk_id", "documents": "doc_id", "tree_nodes": "node_id", "facts": "fact_id"}


def _run(env: dict, cwd: Path) -> str:
    done = subprocess.run([SECPLAT, "run", *RUN_WINDOW], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _dataset(lake, key: str, sort: str):
    parts = dataset_partitions(lake, key)
    table = read_partition(lake, [k for keys in parts.values() for k in keys])
    return table.sort_by(sort)


def test_an_s3_lake_runs_every_stage_and_equals_the_local_run(s3_server, local_run, tmp_path):
    local_root, base, local_out = local_run
    root = f"s3://{s3_server['bucket']}/run-{tmp_path.name}"
    # the server's credentials said outright: the local run's environment was taken before or after the
    # server set them, as the tests sharing that run happen to be ordered
    remote = {**base, **s3_server["env"], "LAKE_ROOT": root, "S3_ENDPOINT_URL": s3_server["endpoint"],
              "SEARCH_PATH": str(tmp_path / "search-s3")}
    out = _run(remote, tmp_path)
    assert "3 converted" in out and "3 documents embedded" in out
    assert "3 converted" in local_out

    s3 = open_lake(root, s3_server["endpoint"])
    local = open_lake(str(local_root))
    assert not list((s3_server["dir"] / "lake").rglob("*.tmp*"))
    for name, sort in KEYS.items():
        assert_same_rows(_dataset(s3, INDEX_DATASETS[name], sort), _dataset(local, INDEX_DATASETS[name], sort),
                         name)
    for name in ("concepts", "fact_series"):  # whole-corpus tables the facts job writes
        tables = [read_parquet(lake, INDEX_DATASETS[name]) for lake in (s3, local)]
        assert tables[0].num_rows > 0 and tables[0].equals(tables[1]), name
    lexicon = [lake.read_bytes(INDEX_DATASETS["lexicon"]) for lake in (s3, local)]
    assert len(lexicon[0]) > 0
    # what was published from each lake answers alike
    answers = []
    for env in (remote, {**base, "LAKE_ROOT": str(local_root)}):
        q = subprocess.run([SECPLAT, "query", "Home Depot net sales in fiscal 2023", "--json"],
                           env={**env, "PAGE_RANKER": "learned-all"}, cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)
        assert q.returncode == 0, q.stderr[-2000:]
        answer = json.loads(q.stdout)
        answers.append((answer["page_order"], answer["evidence"]))  # the release ids are each lake's own
    assert answers[0] == answers[1] and answers[0][0] == "learned"
