"""`secplat run` end to end on real filings with a ``file://`` lake root, and a query refused when its
embedding model is not the one the published index was built with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))


def _secplat(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SECPLAT, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=1200)


def test_file_uri_lake_runs_every_stage_and_a_query_with_another_model_is_refused(edgar_mirror, universe_csv,
                                                                                   tmp_path):
    lake = tmp_path / "lake"
    env = {**os.environ, "LAKE_ROOT": lake.as_uri(), "EDGAR_MIRROR": str(edgar_mirror), "UNIVERSE_CSV": universe_csv,
           "EMBEDDING_BACKEND": "onnx-int8", "SPARK_MASTER": "local[2]", "HF_HUB_OFFLINE": "1"}
    assert env["LAKE_ROOT"].startswith("file:///")
    # Apple's 8-K of 2019 and 10-Q of 2023, Home Depot's 10-Q of 2023: three small real filings
    run = _secplat(env, tmp_path, "run", "--tickers", "AAPL,HD", "--forms", "8-K,10-Q", "--from", "2019-11-15",
                   "--to", "2023-09-08")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "3 fetched" in run.stdout and "3 converted" in run.stdout and "3 documents embedded" in run.stdout
    passages = pq.read_table(lake / "index" / "passages")
    assert passages.num_rows > 100 and len(set(passages.column("doc_id").to_pylist())) == 3
    assert not list(tmp_path.glob("file*")), "Spark wrote under a literal file: directory"
    assert sorted(p.name.split("-")[0] for p in (lake / "runs").iterdir()) == \
        ["convert", "crawl", "index", "publish", "quality", "segment", "train"]
    # the train stage wrote the live release's page ranker (PAGE_RANKER=learned, the default) ...
    release = json.loads((lake / "search" / "release.json").read_text())["id"]
    models = sorted(p.stem for p in (lake / "index" / "ranker").glob("*.json"))
    assert models == [release], models
    assert "page ranker for release" in run.stdout

    # the release's model orders the pages where asked (PAGE_RANKER=learned-all; the default reads
    # query/page_order.yaml, which gives the model the kinds of question it wins on every dev set)
    ok = _secplat({**env, "PAGE_RANKER": "learned-all"}, tmp_path, "query", "Home Depot net sales in fiscal 2023",
                  "--json")
    assert ok.returncode == 0, ok.stderr
    answer = json.loads(ok.stdout)
    assert answer["evidence"] and answer["page_order"] == "learned" and answer["release"] == models[0]
    assert {e["basis"] for e in answer["evidence"]} <= {"match", "statement", "continuation", "note", "cover", "fact", "row"}
    # ... and a rerun trains nothing: the release has its model
    again = _secplat(env, tmp_path, "run", "--tickers", "AAPL,HD", "--forms", "8-K,10-Q", "--from", "2019-11-15",
                     "--to", "2023-09-08")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"page ranker for release {release} already trained" in again.stdout
    assert sorted(p.stem for p in (lake / "index" / "ranker").glob("*.json")) == models
    # with the rules configured, the same release answers by the rules
    rules = _secplat({**env, "PAGE_RANKER": "rules"}, tmp_path, "query", "Home Depot net sales in fiscal 2023",
                     "--json")
    assert json.loads(rules.stdout)["page_order"] == "rules"
    other = "sentence-transformers/all-mpnet-base-v2"
    refused = _secplat({**env, "EMBEDDING_MODEL": other}, tmp_path, "query", "Home Depot net sales")
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1
    assert "'all-MiniLM-L6-v2'" in refused.stderr and f"'{other}'" in refused.stderr
