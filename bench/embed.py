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
from indexing.spark import IndexOptions, spark_session
from kernel.embedder import embed_texts, load_model
from kernel.layout import dataset_key, dataset_parts, state_key
from kernel.models import EmbeddingSpec
from kernel.storage import open_lake, read_parquet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--doc", default="KO_2023_10K")
    parser.add_argument("--backends", default="torch,onnx-int8")
    args = parser.parse_args()
    lake = open_lake(str(args.lake))
    part = next(p for p in dataset_parts(lake, "documents")
                if read_parquet(lake, dataset_key("documents", p)).column("doc_id")[0].as_py() == args.doc)
    backends = [b for b in args.backends.split(",") if b]
    result: dict = {"doc": args.doc}
    with tempfile.TemporaryDirectory() as tmp:
        for ds in ("documents", "chunks"):
            (Path(tmp) / "datasets" / ds).mkdir(parents=True)
            shutil.copy(args.lake / dataset_key(ds, part), Path(tmp) / dataset_key(ds, part))
        options = IndexOptions(spark_master="local[2]")
        spark = spark_session(options)
        small = open_lake(tmp)
        texts = [r.embed_text for r in passage_inputs(spark, small, [part])
                 .orderBy("chunk_id").select("embed_text").collect()]
        result["chunks"] = len(texts)
        for backend in backends:
            load_model(None, backend, 2)
            start = time.perf_counter()
            embed_texts(texts, None, backend, 32, 2)
            raw = len(texts) / (time.perf_counter() - start)
            runs = []
            backend_options = IndexOptions(EmbeddingSpec(backend=backend), spark_master="local[2]")
            for _ in range(2):
                small.delete(state_key("embed"))
                start = time.perf_counter()
                report = run_embeddings(small, backend_options, spark)
                runs.append(report.passages / (time.perf_counter() - start))
            result[backend] = {"raw_chunks_per_s": round(raw, 1), "spark_cold_chunks_per_s": round(runs[0], 1),
                               "spark_warm_chunks_per_s": round(runs[1], 1),
                               "spark_warm_vs_raw": round(runs[1] / raw, 3)}
    print(result)
    save_results("embed", result)


if __name__ == "__main__":
    main()
