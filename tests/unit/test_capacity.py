"""The capacity model's arithmetic (bench/capacity.py): crawling never speeds up with workers (EDGAR's rate
limit), the scaling stages do, and the binding stage is the slowest."""

from __future__ import annotations

from bench.capacity import FILINGS, model


def test_capacity_model_scales_the_right_stages():
    result = model([1, 4, 16])
    one, four, sixteen = result["by_workers"]
    assert result["filings"] == FILINGS == 60_000
    assert one["hours"]["crawl"] == sixteen["hours"]["crawl"] > 0  # the rate limit binds crawling at any size
    assert one["hours"]["publish"] == sixteen["hours"]["publish"]  # one writer
    for stage in ("convert", "segment", "index (Spark)"):
        assert abs(one["hours"][stage] / 4 - four["hours"][stage]) <= 0.1
    for row in result["by_workers"]:
        assert row["pipelined_h"] == max(row["hours"].values()) == row["hours"][row["binding"]]
        assert row["sequential_h"] >= row["pipelined_h"]
