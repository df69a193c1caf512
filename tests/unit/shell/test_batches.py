"""Conversion and segmentation in batches of companies (what the nightly DAG maps over): every company's
documents in exactly one batch, and the batches together give what one unbatched run gives."""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq
import pytest

from etl.crawl.edgar_mirror import MirrorServer
from kernel import run_policy as rules
from kernel.resources import Resources
from shell.runner import run_stage
from tests.conftest import make_settings


def test_a_company_falls_in_one_stable_batch():
    keys = [str(cik) for cik in range(1_000_000, 1_000_700)]
    counts = [0] * 7
    for key in keys:
        counts[rules.batch_of(key, 7)] += 1
    assert min(counts) > 60 and max(counts) < 140  # spread, not all in one
    assert rules.batch_of("320193", 4) == rules.batch_of("320193", 4) == 2  # sha256, not Python's salted hash
    assert rules.company_key("0000320193", "AAPL_2023_10K") == rules.company_key(320193, "x") == "320193"
    assert rules.company_key(None, "AAPL_2023_10K") == "AAPL"
    assert rules.in_batch(320193, "x", None)
    with pytest.raises(ValueError, match="0..1"):
        rules.check_batch((2, 2))


def _tables(lake, dataset: str, columns: list[str]) -> dict:
    folder = lake / "datasets" / dataset
    return {f.name: pq.read_table(f, columns=columns).to_pylist() for f in sorted(folder.glob("*.parquet"))}


def test_batches_together_equal_one_run(fixture_mirror, tmp_path):
    count = next(n for n in range(2, 20) if rules.batch_of("1000001", n) != rules.batch_of("1000002", n))
    with MirrorServer(fixture_mirror["root"]) as server:
        whole = make_settings(server, str(tmp_path / "whole"), universe_csv=fixture_mirror["universe_csv"],
                              universe_tickers="ALL", stage_batches=count)
        assert run_stage("crawl", Resources(whole)).fetched == 7
    shutil.copytree(tmp_path / "whole", tmp_path / "batched")
    batched = whole.model_copy(update={"lake_root": str(tmp_path / "batched")})

    run_stage("convert", Resources(whole))
    run_stage("segment", Resources(whole))
    batches = [[i, count] for i in range(count)]
    converted = [run_stage("convert", Resources(batched), batch=tuple(b)).converted for b in batches]
    assert sorted(converted)[-2:] == [1, 6] and sum(converted) == 7  # BETA's one filing, ACME's six, apart
    assert [run_stage("convert", Resources(batched), batch=tuple(b)).converted for b in batches] == [0] * count  # idempotent
    segmented = [run_stage("segment", Resources(batched), batch=tuple(b)).segmented for b in batches]
    assert sum(segmented) == 7

    for dataset, columns in (("documents", ["doc_id", "doc_name", "amends", "page_count", "form"]),
                             ("pages", ["doc_id", "page", "text"]), ("chunks", ["chunk_id", "doc_id", "text"])):
        one, many = _tables(tmp_path / "whole", dataset, columns), _tables(tmp_path / "batched", dataset, columns)
        assert one and one == many, dataset
