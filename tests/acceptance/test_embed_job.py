"""The Spark embedding job on real mirrored filings (a local SparkSession, the offline MiniLM model)."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from etl.segment import SegmentOptions
from etl.segment import run as run_segment
from etl.segment.chunking import ChunkOptions
from indexing.embed_job import run_embeddings
from indexing.index.options import IndexOptions
from indexing.spark import spark_session
from indexing.tree_job import run_trees
from kernel.embedder import embed_texts
from kernel.models import token_counter
from kernel.settings import load_settings
from kernel.storage import LocalLake
from schemas.index import DocumentIndexRecord, PassageRecord, TreeNodeRecord
from tests.conftest import copy_converted, filing_part_name
from tests.index_records import validate_table

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def small_lake(converted_mirror, mirror_manifest, tmp_path_factory):
    """Two real filings (Apple's 8-K and its 2023 Q3 10-Q), segmented, in a lake of their own."""
    lake, _ = converted_mirror
    root = tmp_path_factory.mktemp("embed") / "lake"
    wanted = [r for r in mirror_manifest if r["ticker"] == "AAPL" and r["form"] in ("8-K", "10-Q")][:2]
    copy_converted(lake.path, root, [filing_part_name(r) for r in wanted])  # as convert leaves them
    small = LocalLake(root)
    run_segment(small, SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2"))
    # the default backend: a vector depends on its text only, so the check below asks for the model's exact one
    options = IndexOptions.from_settings(load_settings(spark_master="local[2]"))
    return small, options, wanted


def test_embeddings_are_valid_deterministic_and_incremental(small_lake):
    lake, options, _ = small_lake
    spark = spark_session(options)
    first = run_embeddings(lake, options, spark)
    assert first.documents == 2 and first.passages > 50
    passages = validate_table(PassageRecord, pq.read_table(lake.path / "index" / "passages"))
    documents = validate_table(DocumentIndexRecord, pq.read_table(lake.path / "index" / "documents"))
    assert passages.num_rows == first.passages and documents.num_rows == 2
    vectors = np.stack(passages.column("vector").to_numpy(zero_copy_only=False))
    assert vectors.shape[1] == 384 and np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len(set(passages.column("chunk_id").to_pylist())) == passages.num_rows
    assert set(passages.column("ticker").to_pylist()) == {"AAPL"}

    # The vector is the model's embedding of the chunk behind its short context prefix, as in the query path.
    row = passages.slice(0, 1).to_pylist()[0]
    prefix = f"AAPL {row['form']} {row['fiscal_period']} {row['fiscal_year']} Item {row['item']} :"
    again = embed_texts([f"{prefix} {row['text']}"], options.embedding.model, options.embedding.backend)[0]
    assert np.array_equal(again, np.asarray(row["vector"], dtype=np.float32))
    # No input is cut by the model: prefix + chunk stays within 254 content tokens.
    counter = token_counter(None)
    longest = max(passages.column("text").to_pylist(), key=counter.count)
    assert counter.count(f"{prefix} {longest}") <= counter.max_content_tokens

    # A rerun embeds nothing; dropping the state re-embeds the same vectors (deterministic).
    assert run_embeddings(lake, options, spark).documents == 0
    lake.delete("index/state/embed.json")
    assert run_embeddings(lake, options, spark).documents == 2
    redone = pq.read_table(lake.path / "index" / "passages").sort_by("chunk_id")
    before = passages.sort_by("chunk_id")
    assert redone.column("chunk_id").to_pylist() == before.column("chunk_id").to_pylist()
    assert np.array_equal(np.stack(redone.column("vector").to_numpy(zero_copy_only=False)),
                          np.stack(before.column("vector").to_numpy(zero_copy_only=False)))


def test_item_trees_are_deterministic_and_share_their_leaves(small_lake):
    lake, options, _ = small_lake
    spark = spark_session(options)
    run_embeddings(lake, options, spark)
    first = run_trees(lake, options, spark)
    assert first.documents == 2 and first.nodes > 0
    nodes = validate_table(TreeNodeRecord, pq.read_table(lake.path / "index" / "tree_nodes")).to_pylist()
    passages = pq.read_table(lake.path / "index" / "passages").to_pylist()
    text_chunks = {(p["doc_id"], p["item"]): set() for p in passages if p["kind"] == "text"}
    for p in passages:
        if p["kind"] == "text":
            text_chunks[(p["doc_id"], p["item"])].add(p["chunk_id"])
    by_id = {n["node_id"]: n for n in nodes}
    for (doc_id, item), chunk_ids in text_chunks.items():
        summary_root = by_id[f"{doc_id}:{item}:root:summary"]
        question_root = by_id[f"{doc_id}:{item}:root:question"]
        assert set(summary_root["chunk_ids"]) == set(question_root["chunk_ids"]) == chunk_ids
        clusters = [by_id[c] for c in summary_root["children"]]
        assert sorted(c for n in clusters for c in n["children"]) == sorted(chunk_ids)  # each leaf once
        for n in clusters:  # depth 2: clusters hold chunks; the question tree mirrors them
            assert n["level"] == 1 and set(n["children"]) <= chunk_ids
            assert by_id[n["node_id"].replace(":summary", ":question")]["children"] == n["children"]
    assert all(np.isfinite(n["vector"]).all() and len(n["vector"]) == 384 for n in nodes)
    # Same input, same trees: rebuild after forgetting the state.
    lake.delete("index/state/trees.json")
    run_trees(lake, options, spark)
    again = {n["node_id"]: n for n in pq.read_table(lake.path / "index" / "tree_nodes").to_pylist()}
    assert {k: (v["text"], v["children"]) for k, v in again.items()} == \
        {k: (v["text"], v["children"]) for k, v in by_id.items()}
    assert run_trees(lake, options, spark).documents == 0
