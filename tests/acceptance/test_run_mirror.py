"""`secplat run` end to end on real filings with a ``file://`` lake root (the session's local run), a rerun that
trains nothing, and a query refused when its embedding model is not the one the published index was built with."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import RUN_WINDOW

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))


def _secplat(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SECPLAT, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=1200)


def test_file_uri_lake_runs_every_stage_and_a_query_with_another_model_is_refused(local_run, tmp_path):
    """The session's local run (conftest ``local_run``: ``secplat run`` over Apple's 8-K of 2019 and 10-Q of
    2023 and Home Depot's 10-Q of 2023, its lake root a ``file://`` URI); what follows runs on a copy of its
    lake (a rerun writes its own run records; the tests comparing with the local run only read it)."""
    ran, base, out = local_run
    assert "3 fetched" in out and "3 converted" in out and "3 documents embedded" in out
    passages = pq.read_table(ran / "index" / "passages")
    assert passages.num_rows > 100 and len(set(passages.column("doc_id").to_pylist())) == 3
    assert not list(ran.parent.glob("file*")), "Spark wrote under a literal file: directory"
    assert sorted(p.name.split("-")[0] for p in (ran / "runs").iterdir()) == \
        ["convert", "crawl", "index", "publish", "quality", "segment", "train"]
    # the train stage wrote the live release's page ranker (PAGE_RANKER=learned, the default) ...
    release = json.loads((ran / "search" / "release.json").read_text())["id"]
    models = sorted(p.stem for p in (ran / "index" / "ranker").glob("*.json"))
    assert models == [release], models
    assert "page ranker for release" in out
    lake = tmp_path / "lake"
    shutil.copytree(ran, lake)
    env = {**base, "LAKE_ROOT": lake.as_uri()}
    assert env["LAKE_ROOT"].startswith("file:///")

    # the release's model orders the pages where asked (PAGE_RANKER=learned-all; the default reads
    # query/page_order.yaml, which gives the model the kinds of question it wins on every dev set)
    ok = _secplat({**env, "PAGE_RANKER": "learned-all"}, tmp_path, "query", "Home Depot net sales in fiscal 2023",
                  "--json")
    assert ok.returncode == 0, ok.stderr
    answer = json.loads(ok.stdout)
    assert answer["evidence"] and answer["page_order"] == "learned" and answer["release"] == models[0]
    assert {e["basis"] for e in answer["evidence"]} <= {"match", "statement", "continuation", "note", "cover", "fact", "row"}
    # ... and a rerun trains nothing: the release has its model
    again = _secplat(env, tmp_path, "run", *RUN_WINDOW)
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
