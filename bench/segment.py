"""Segmentation benchmark: chunks/s and milliseconds per filing, and chunk-size alternatives.

    make bench            # or: python -m bench.segment [--lake DIR]

Needs a converted lake (pages and documents datasets). ``--lake`` reuses one; without it the shared
mirror is crawled and converted into a temporary lake first (not timed). The stage itself runs into a
temporary copy, so the given lake is not touched. Writes bench/results/segment.json.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench import save_results
from etl.segment import SegmentOptions
from etl.segment import run as run_segment
from etl.segment.chunking import Chunker, ChunkOptions
from etl.segment.stage import segment_document
from kernel.layout import dataset_key, dataset_parts
from kernel.models import token_counter
from kernel.settings import shared_dir
from kernel.storage import LocalLake, open_lake, read_parquet


def stage_run(lake_dir: Path, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("documents", "pages"):
            shutil.copytree(lake_dir / "datasets" / part, Path(tmp) / "datasets" / part)
        lake = LocalLake(tmp)
        start = time.perf_counter()
        report = run_segment(lake, SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2", workers))
        wall = time.perf_counter() - start
    ms = sorted(1000 * s for s in report.seconds)
    return {"workers": workers, "filings": report.segmented, "chunks": report.chunks, "wall_s": round(wall, 1),
            "chunks_per_s": round(report.chunks / wall, 1), "ms_per_filing_median": round(ms[len(ms) // 2], 1),
            "ms_per_filing_p95": round(ms[int(0.95 * (len(ms) - 1))], 1)}


def sizes(lake_dir: Path) -> list[dict]:
    """Chunk counts and fill for candidate sizes (the model reads at most 254 content tokens)."""
    lake = open_lake(str(lake_dir))
    docs = [(p, read_parquet(lake, dataset_key("documents", p)).to_pylist()[0]) for p in dataset_parts(lake, "documents")]
    rows = []
    counter = token_counter(None)
    for tokens, overlap in ((128, 16), (192, 24), (240, 32), (254, 32)):
        chunker = Chunker(counter, ChunkOptions(tokens=tokens, overlap=overlap))
        start = time.perf_counter()
        counts = [c.token_count for name, doc in docs for c in segment_document(lake, name, doc, chunker)[1]]
        wall = time.perf_counter() - start
        rows.append({"tokens": tokens, "overlap": overlap, "chunks": len(counts),
                     "mean_tokens": round(statistics.mean(counts), 1),
                     "at_cap_share": round(sum(n >= tokens - 8 for n in counts) / len(counts), 3),
                     "wall_s": round(wall, 1)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, help="a converted lake (default: convert the shared mirror first)")
    args = parser.parse_args()
    tmp = None
    lake_dir = args.lake
    if lake_dir is None:
        from bench.convert import crawl_into
        from etl.convert import ConvertOptions
        from etl.convert import run as run_convert

        if not shared_dir():
            raise SystemExit("no converted lake: pass --lake DIR, or provide ../shared")
        tmp = tempfile.TemporaryDirectory()
        lake_dir = Path(tmp.name)
        crawl_into(shared_dir() / "edgar-mirror", str(lake_dir))
        run_convert(open_lake(str(lake_dir)), ConvertOptions(workers=2))
    result = {"stage": [stage_run(lake_dir, 1), stage_run(lake_dir, 2)], "sizes": sizes(lake_dir)}
    print(f"{'workers':>7} {'filings':>7} {'chunks':>7} {'wall s':>7} {'chunks/s':>9} {'ms/filing med':>13} {'p95':>7}")
    for r in result["stage"]:
        print(f"{r['workers']:>7} {r['filings']:>7} {r['chunks']:>7} {r['wall_s']:>7} {r['chunks_per_s']:>9} "
              f"{r['ms_per_filing_median']:>13} {r['ms_per_filing_p95']:>7}")
    print(f"\n{'tokens':>6} {'overlap':>7} {'chunks':>7} {'mean tok':>8} {'at cap':>7} {'wall s':>7}")
    for r in result["sizes"]:
        print(f"{r['tokens']:>6} {r['overlap']:>7} {r['chunks']:>7} {r['mean_tokens']:>8} {r['at_cap_share']:>7} "
              f"{r['wall_s']:>7}")
    save_results("segment", result)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
