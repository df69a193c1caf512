"""The FLAM lexicon job in Spark on the mirror corpus: incremental equals full rebuild, weights are sane."""

from __future__ import annotations

import os

import pytest

from indexing.index.options import IndexOptions
from indexing.lexicon_job import concept_term, run_lexicon
from indexing.spark import spark_session
from kernel.settings import load_settings
from kernel.storage import LocalLake, read_parquet
from schemas.index import LexiconRecord
from tests.index_records import validate_table

pytestmark = pytest.mark.shared


def _link_documents(src: LocalLake, dst_root, parts: list[str]) -> None:
    """Hard-link the datasets and raw primary documents of ``parts`` into another lake."""
    for part in parts:
        doc = read_parquet(src, f"datasets/documents/{part}.parquet").to_pylist()[0]
        keys = [f"datasets/{ds}/{part}.parquet" for ds in ("documents", "chunks")] + [doc["source_key"]]
        for key in keys:
            target = dst_root / key
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                os.link(src.path / key, target)


@pytest.fixture(scope="module")
def lexicons(segmented_mirror, tmp_path_factory):
    """The same corpus two ways: in two nightly runs (half, then all), and in one full run."""
    lake, _ = segmented_mirror
    parts = sorted(k.rsplit("/", 1)[-1].removesuffix(".parquet") for k in lake.list("datasets/documents"))
    inc_root = tmp_path_factory.mktemp("lexicon-incremental")
    full_root = tmp_path_factory.mktemp("lexicon-full")
    inc, full = LocalLake(inc_root), LocalLake(full_root)
    options = IndexOptions.from_settings(load_settings(spark_master="local[2]"))
    spark = spark_session(options)
    _link_documents(lake, inc_root, parts[: len(parts) // 2])
    first = run_lexicon(inc, options, spark)
    _link_documents(lake, inc_root, parts)
    second = run_lexicon(inc, options, spark)
    _link_documents(lake, full_root, parts)
    rebuilt = run_lexicon(full, options, spark)
    again = run_lexicon(full, options, spark)

    def table(root):
        return validate_table(LexiconRecord, read_parquet(LocalLake(root), "index/lexicon.parquet"))

    return (first, second, rebuilt, again), table(inc_root), table(full_root), len(parts)


def test_incremental_runs_equal_a_full_rebuild(lexicons):
    (first, second, rebuilt, again), incremental, full, n = lexicons
    assert first.documents == n // 2 and second.documents == n - n // 2  # the second run counts only new ones
    assert rebuilt.documents == n and again.documents == 0 and again.new_terms == 0
    assert incremental.to_pylist() == full.to_pylist()


def test_lexicon_mixes_curated_and_xbrl_terms(lexicons):
    _, _, full, _ = lexicons
    rows = {r["term"]: r for r in full.to_pylist()}
    assert concept_term("OperatingIncomeLoss") == "operating income"
    assert {r["source"] for r in rows.values()} == {"curated", "xbrl"}
    assert rows["operating income"]["doc_count"] > 50
    assert rows["net sales"]["cluster"] == rows["revenues"]["cluster"] or rows["revenue"]["total_count"] > 0


def _top(row, form="10-K") -> str:
    weights = {k.split(":", 1)[1]: v for k, v in dict(row["item_weights"]).items() if k.startswith(form + ":")}
    return max(weights, key=weights.get)


def test_flam_weights_are_sane_on_real_filings(lexicons):
    _, _, full, _ = lexicons
    rows = {r["term"]: r for r in full.to_pylist()}
    for term in ("adverse effect", "could adversely affect", "material adverse effect"):
        assert _top(rows[term]) == "1A", (term, rows[term]["item_weights"])
    for term in ("revenue", "net sales", "operating income"):
        assert _top(rows[term]) in ("7", "8"), (term, rows[term]["item_weights"])
    assert _top(rows["legal proceedings"]) == "3", rows["legal proceedings"]["item_weights"]
    for row in rows.values():
        weights = dict(row["item_weights"])
        for form in {k.split(":", 1)[0] for k in weights}:
            total = sum(v for k, v in weights.items() if k.startswith(form + ":"))
            assert abs(total - 1.0) < 1e-3
