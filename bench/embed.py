"""Embedding benchmark: chunks/s of the raw model vs the Spark job on the same real 10-K, fp32 and int8.

    python -m bench.embed --lake DIR [--doc KO_2023_10K] [--backends torch,onnx-int8]

Needs a segmented lake (``secplat segment``). Both sides embed the same strings: the job's ``embed_text``
(chunk text behind its short document/Item prefix). Raw: the backend in this process, 2 threads, batch 32,
model already loaded. Spark: the embedding job on a lake holding just that document, ``local[2]``, cold
(first run: Python workers start and load the model) and warm (second run, workers reused). Writes
bench/results/embed.json.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from bench import save_results
from indexing.embed_job import passage_inputs, run_embeddings
from indexing.embedder import embed_texts, load_model
from indexing.spark import spark_session
from secplat.config import load_settings
from secplat.storage import open_lake, read_parquet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--doc", default="KO_2023_10K")
    parser.add_argument("--backends", default="torch,onnx-int8")
    args = parser.parse_args()
    lake = open_lake(str(args.lake))
    part = next(k.rsplit("/", 1)[-1] for k in lake.list("datasets/documents")
                if read_parquet(lake, k).column("doc_id")[0].as_py() == args.doc)
    backends = [b for b in args.backends.split(",") if b]
    result: dict = {"doc": args.doc}
    with tempfile.TemporaryDirectory() as tmp:
        for ds in ("documents", "chunks"):
            (Path(tmp) / "datasets" / ds).mkdir(parents=True)
            shutil.copy(args.lake / "datasets" / ds / part, Path(tmp) / "datasets" / ds / part)
        settings = load_settings(lake_root=tmp, spark_master="local[2]")
        spark = spark_session(settings)
        texts = [r.embed_text for r in passage_inputs(spark, settings, [part.removesuffix(".parquet")])
                 .orderBy("chunk_id").select("embed_text").collect()]
        result["chunks"] = len(texts)
        for backend in backends:
            load_model(None, backend, 2)
            start = time.perf_counter()
            embed_texts(texts, None, backend, 32, 2)
            raw = len(texts) / (time.perf_counter() - start)
            runs = []
            backend_settings = settings.model_copy(update={"embedding_backend": backend})
            for _ in range(2):
                open_lake(tmp).delete("index/state/embed.json")
                start = time.perf_counter()
                report = run_embeddings(backend_settings, spark)
                runs.append(report.passages / (time.perf_counter() - start))
            result[backend] = {"raw_chunks_per_s": round(raw, 1), "spark_cold_chunks_per_s": round(runs[0], 1),
                               "spark_warm_chunks_per_s": round(runs[1], 1),
                               "spark_warm_vs_raw": round(runs[1] / raw, 3)}
    print(result)
    save_results("embed", result)


if __name__ == "__main__":
    main()
