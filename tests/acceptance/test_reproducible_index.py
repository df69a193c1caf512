"""Reproducible indexes: the same filings indexed with ``local[1]`` and a batch of 7 texts, and with ``local[2]``
and a batch of 32, give the same index datasets bit for bit (vectors, trees, lexicon, facts, concepts, series)
and the same ranked evidence from ``secplat eval --out``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from etl.segment import SegmentOptions
from etl.segment import run as run_segment
from etl.segment.chunking import ChunkOptions
from kernel.layout import INDEX_DATASETS
from kernel.models import token_counter
from kernel.storage import LocalLake
from tests.compare import assert_same_rows

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
WANTED = [("AAPL", "10-Q", "2023"), ("AAPL", "8-K", None)]  # a 10-Q with iXBRL facts and an 8-K
KEYS = {"passages": "chunk_id", "documents": "doc_id", "tree_nodes": "node_id", "lexicon": "term", "facts": "fact_id",
        "concepts": "concept"}
RUNS = {"one-slot": {"SPARK_MASTER": "local[1]", "EMBEDDING_BATCH_SIZE": "7"},
        "two-slots": {"SPARK_MASTER": "local[2]", "EMBEDDING_BATCH_SIZE": "32"}}
QUESTIONS = ["What were Apple's total net sales for the quarter?", "Apple iPhone net sales 2023 third quarter",
             "What did Apple announce in its current report on Form 8-K?",
             "How much cash and cash equivalents did Apple hold?"]


def _secplat(env: dict, *args: str) -> str:
    done = subprocess.run([SECPLAT, *args], env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"secplat {args[0]}: {done.stderr[-3000:]}"
    spark_warnings = [line for line in done.stderr.splitlines() if "Cannot infer the eval type" in line]
    assert not spark_warnings, spark_warnings  # PySpark's type-hint UserWarning, fixed at its cause
    return done.stdout


@pytest.fixture(scope="module")
def segmented(converted_mirror, mirror_manifest, tmp_path_factory) -> Path:
    lake, _ = converted_mirror
    root = tmp_path_factory.mktemp("reproducible") / "lake"
    picked = []
    for ticker, form, year in WANTED:
        row = next(r for r in mirror_manifest if (r["ticker"], r["form"]) == (ticker, form)
                   and year in (None, r["fiscal_year"]))
        picked.append(row)
    for r in picked:
        raw = Path("raw") / "edgar" / r["cik"] / r["accession"].replace("-", "")  # the lexicon mines its iXBRL
        shutil.copytree(lake.path / raw, root / raw)
        part = f"{r['cik']}_{r['accession'].replace('-', '')}.parquet"
        for ds in ("documents", "pages", "facts"):
            (root / "datasets" / ds).mkdir(parents=True, exist_ok=True)
            if (lake.path / "datasets" / ds / part).exists():
                shutil.copy(lake.path / "datasets" / ds / part, root / "datasets" / ds / part)
    run_segment(LocalLake(root), SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2"))
    return root


def _table(lake: Path, name: str):
    return pq.read_table(lake / INDEX_DATASETS[name]).sort_by(KEYS[name])


def test_partitioning_and_batch_size_change_nothing(segmented, universe_csv, tmp_path):
    base = {**os.environ, "HF_HUB_OFFLINE": "1", "UNIVERSE_CSV": universe_csv}
    lakes = {}
    for name, settings in RUNS.items():
        lake = tmp_path / name
        shutil.copytree(segmented, lake)
        env = {**base, **settings, "LAKE_ROOT": str(lake)}
        _secplat(env, "index")
        _secplat(env, "publish")
        lakes[name] = (lake, env)
    (one, _), (two, _) = lakes.values()
    for name in KEYS:
        assert_same_rows(_table(one, name), _table(two, name), name)  # vectors bit for bit
    for name in ("fact_series", "lexicon", "concepts"):  # whole-corpus tables, byte for byte as written
        assert pq.read_table(one / INDEX_DATASETS[name]).equals(pq.read_table(two / INDEX_DATASETS[name])), name

    docs = pq.read_table(one / INDEX_DATASETS["documents"]).column("doc_id").to_pylist()
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps({"qid": str(n), "question": q, "evidences": [{"doc_name": d, "page_num": 0}
                                                                                  for d in docs]}) + "\n"
                          for n, q in enumerate(QUESTIONS)))
    outs = []
    for lake, env in lakes.values():
        out = lake / "eval.jsonl"
        _secplat(env, "eval", str(qa), "--mode", "hierarchical", "--out", str(out))
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") == len(QUESTIONS)
