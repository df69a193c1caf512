"""The lake layout: one spelling of every key, and lake roots read the same way by every reader."""

from __future__ import annotations

import pytest

from kernel import layout
from kernel.settings import ConfigError, load_settings
from kernel.storage import LocalLake, StorageError, open_lake, parse_root


def test_local_roots_in_every_spelling_give_the_same_lake_and_spark_uri(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spellings = ["lake", str(tmp_path / "lake"), (tmp_path / "lake").as_uri()]
    lakes = [load_settings(lake_root=s).open_lake() for s in spellings]
    assert {lake.root for lake in lakes} == {str(tmp_path / "lake")}
    uris = {layout.spark_uri(lake, layout.dataset_key("chunks", "320193_000032019324000123")) for lake in lakes}
    assert uris == {f"file://{tmp_path}/lake/datasets/chunks/320193_000032019324000123.parquet"}
    assert {load_settings(lake_root=s).search_root() for s in spellings} == {str(tmp_path / "lake" / "search")}


def test_s3_roots_become_s3a_for_spark_and_other_schemes_are_refused():
    lake = open_lake("s3://bucket/prefix", endpoint_url="http://127.0.0.1:1", region="us-east-1")
    assert layout.spark_uri(lake, "index/passages") == "s3a://bucket/prefix/index/passages"
    assert parse_root("s3://bucket/prefix/") == ("s3", "s3://bucket/prefix")
    with pytest.raises(StorageError, match="unsupported lake root"):
        parse_root("ftp://host/lake")
    with pytest.raises(ConfigError, match="SEARCH_PATH"):
        load_settings(lake_root="s3://bucket/prefix").search_root()


def test_part_names_read_back_from_keys_paths_and_uris(tmp_path):
    doc_key = layout.filing_part(320193, "0000320193-24-000123")
    part = layout.part_name(doc_key)
    assert part == "320193_000032019324000123" and layout.part_name(part) == part
    key = layout.dataset_key("pages", part)
    assert key == "datasets/pages/320193_000032019324000123.parquet"
    assert layout.part_of(key) == layout.part_of(layout.spark_uri(LocalLake(tmp_path), key)) == part
    assert layout.part_name(layout.external_part("ADOBE 2016 10K")) == "external_ADOBE_2016_10K"
    assert layout.quarantine_key("convert", doc_key) == f"quarantine/convert/{part}.json"
    with pytest.raises(ValueError, match="unknown dataset"):
        layout.dataset_key("chunk", part)


def test_dataset_parts_and_chunk_fingerprints(tmp_path):
    import pyarrow as pa

    from kernel.storage import write_parquet

    lake = LocalLake(tmp_path)
    assert layout.dataset_parts(lake, "chunks") == [] and layout.chunk_fingerprint(lake, "p1") is None
    table = pa.table({"x": [1]}).replace_schema_metadata({layout.FINGERPRINT_KEY: b"abc"})
    write_parquet(lake, layout.dataset_key("chunks", "p1"), table)
    write_parquet(lake, layout.dataset_key("chunks", "p0"), pa.table({"x": [1]}))
    assert layout.dataset_parts(lake, "chunks") == ["p0", "p1"]
    assert layout.chunk_fingerprint(lake, "p1") == "abc" and layout.chunk_fingerprint(lake, "p0") is None
    assert layout.fingerprint("a", 1, None) == layout.fingerprint("a", "1", "None")
