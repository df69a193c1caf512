"""Embedding benchmark: chunks/s of the raw model vs the Spark job on the same real 10-K.

    python -m bench.embed --lake DIR [--doc KO_2023_10K]

Needs a segmented lake (``secplat segment``). Raw: sentence-transformers in this process, fp32, 2 threads,
batch 32, model already loaded. Spark: the embedding job on a lake holding just that document, ``local[2]``,
cold (first run: Python workers start and load the model) and warm (second run, workers reused). Writes
bench/results/embed.json.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from bench import save_results
from indexing.embed_job import run_embeddings
from indexing.embedder import embed_texts, load_model
from indexing.spark import spark_session
from secplat.config import load_settings
from secplat.storage import open_lake, read_parquet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--doc", default="KO_2023_10K")
    args = parser.parse_args()
    lake = open_lake(str(args.lake))
    part = next(k.rsplit("/", 1)[-1] for k in lake.list("datasets/documents")
                if read_parquet(lake, k).column("doc_id")[0].as_py() == args.doc)
    with tempfile.TemporaryDirectory() as tmp:
        for ds in ("documents", "chunks"):
            (Path(tmp) / "datasets" / ds).mkdir(parents=True)
            shutil.copy(args.lake / "datasets" / ds / part, Path(tmp) / "datasets" / ds / part)
        texts = pq.read_table(Path(tmp) / "datasets" / "chunks" / part).column("text").to_pylist()
        load_model(None, "torch", 2)
        start = time.perf_counter()
        embed_texts(texts, None, "torch", 32, 2)
        raw = len(texts) / (time.perf_counter() - start)
        settings = load_settings(lake_root=tmp, spark_master="local[2]")
        spark = spark_session(settings)
        spark.range(2).count()
        runs = []
        for _ in range(2):
            open_lake(tmp).delete("index/state/embed.json")
            start = time.perf_counter()
            report = run_embeddings(settings, spark)
            runs.append(report.passages / (time.perf_counter() - start))
    result = {"doc": args.doc, "chunks": len(texts), "raw_chunks_per_s": round(raw, 1),
              "spark_cold_chunks_per_s": round(runs[0], 1), "spark_warm_chunks_per_s": round(runs[1], 1),
              "spark_warm_vs_raw": round(runs[1] / raw, 3)}
    print(result)
    save_results("embed", result)


if __name__ == "__main__":
    main()
