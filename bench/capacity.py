"""Capacity model: the wall time of a ten-year, whole-universe backfill for 1, 4 and 16 workers of this
machine's size, from measured per-stage costs, and the stage that binds at each size.

    python -m bench.capacity [--workers 1,4,16] [--json]

Rates come from the other benchmarks' results in bench/results/ when present (crawl, convert, segment,
embed, publish), else from the measurements on this 2-core machine recorded in the docs (each rate says
which). The workload: 500 companies x 10 years x (one 10-K, three 10-Qs, about eight 8-Ks) = 60,000
filings; chunks per filing from the segmentation benchmark's mix scaled to that form mix (8-Ks are short):
about 150, so 9 million chunks.

Scaling per stage: crawling is bound by EDGAR's 10 requests/s, whatever the workers; conversion,
segmentation and the Spark index stage (embeddings, then trees at 2.3 s a filing) scale with workers;
publishing is one writer per index (the embedded engine on one machine). Stages run one after another
over the backfill (``sequential``); batches can overlap the stages (``pipelined``: the slowest stage).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
FILINGS = 500 * 10 * (1 + 3 + 8)
CHUNKS_PER_FILING = 150
TREE_S_PER_FILING = 2.3  # docs/indexing.md: trees 253 s for 110 filings on local[2]


@dataclass
class Rate:
    stage: str
    per_s: float  # work units per second on one machine of this size
    unit: str
    work: float  # units in the backfill
    scales: bool  # spreads over workers
    source: str

    def hours(self, workers: int) -> float:
        return self.work / (self.per_s * (workers if self.scales else 1)) / 3600


def _result(name: str):
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def rates() -> list[Rate]:
    """Per-stage rates: measured by the benchmarks when their results exist, else the README's figures."""
    crawl = _result("crawl")
    limited = next((r for r in crawl or [] if r.get("rate_limit") == 10.0), None)
    req_per_filing = limited["requests"] / limited["filings"] if limited else 277 / 110
    out = [Rate("crawl", limited["requests_per_s"] if limited else 8.58, "requests", FILINGS * req_per_filing,
                False, "bench.crawl" if limited else "docs (crawl benchmark)")]
    convert = next((r for r in _result("convert") or [] if r.get("source") == "html" and r.get("workers") == 2),
                   None)
    out.append(Rate("convert", convert["docs_per_s"] if convert else 110 / 167.3, "filings", FILINGS, True,
                    "bench.convert" if convert else "docs (conversion benchmark, 2 workers)"))
    segment = (_result("segment") or {}).get("stage")
    best = max(segment, key=lambda r: r["filings"] / r["wall_s"]) if segment else None
    out.append(Rate("segment", best["filings"] / best["wall_s"] if best else 110 / 36.4, "filings", FILINGS, True,
                    "bench.segment" if best else "docs (segmentation benchmark)"))
    embed = (_result("embed") or {}).get("onnx-int8", {}).get("spark_warm_chunks_per_s")
    embed_rate = embed or 83.4
    # the Spark stage: embeddings at the measured rate, then trees (2.3 s a filing), per filing
    seconds_per_filing = CHUNKS_PER_FILING / embed_rate + TREE_S_PER_FILING
    out.append(Rate("index (Spark)", 1 / seconds_per_filing, "filings", FILINGS, True,
                    ("bench.embed" if embed else "docs (onnx-int8 one text a call, Spark warm)") + " + trees 2.3 s a filing"))
    publish = ((_result("publish") or {}).get("indexes") or {}).get("passages", {}).get("rows_per_s")
    out.append(Rate("publish", publish or 1906, "rows", FILINGS * CHUNKS_PER_FILING, False,
                    "bench.publish" if publish else "docs (publish benchmark)"))
    return out


def model(workers: list[int]) -> dict:
    table = rates()
    rows = []
    for w in workers:
        hours = {r.stage: round(r.hours(w), 1) for r in table}
        binding = max(hours, key=hours.get)
        rows.append({"workers": w, "hours": hours, "sequential_h": round(sum(hours.values()), 1),
                     "pipelined_h": hours[binding], "binding": binding})
    return {"filings": FILINGS, "chunks": FILINGS * CHUNKS_PER_FILING,
            "rates": [{"stage": r.stage, "per_s_one_machine": round(r.per_s, 3), "unit": r.unit,
                       "scales_with_workers": r.scales, "source": r.source} for r in table], "by_workers": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", default="1,4,16")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = model([int(w) for w in args.workers.split(",")])
    if args.json:
        print(json.dumps(result, indent=1))
        return
    stages = [r["stage"] for r in result["rates"]]
    print(f"Ten-year whole-universe backfill: {result['filings']:,} filings, {result['chunks']:,} chunks")
    for r in result["rates"]:
        print(f"  {r['stage']:<14} {r['per_s_one_machine']:>9} {r['unit']}/s per machine"
              f"{'' if r['scales_with_workers'] else ' (does not scale with workers)'}  [{r['source']}]")
    print("workers | " + " | ".join(f"{s} h" for s in stages) + " | sequential h | pipelined h | binds")
    for row in result["by_workers"]:
        print(f"{row['workers']:>7} | " + " | ".join(f"{row['hours'][s]:>6}" for s in stages)
              + f" | {row['sequential_h']:>12} | {row['pipelined_h']:>11} | {row['binding']}")
    from bench import save_results

    save_results("capacity", result)


if __name__ == "__main__":
    main()
