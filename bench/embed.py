"""Embedding benchmark: chunks/s of the raw model vs the Spark job on the same real 10-K, fp32 and int8.

    python -m bench.embed --lake DIR [--doc KO_2023_10K] [--backends torch,onnx-int8]

Needs a segmented lake (``secplat segment``). Both sides embed the same strings: the job's ``embed_text``
(chunk text behind its short document/Item prefix). Raw: the backend in this process, 2 threads, batch 32,
model already loaded. Spark: the embedding job on a lake holding just that document, ``local[2]``, cold
(first run: Python workers start and load the model) and warm (second run, workers reused). For onnx-int8,
the raw side also times the previous recipe on the same session and texts, side by side: batches of 32
padded to their longest text, whose vectors depended on their batch-mates (``batched_chunks_per_s``).
Writes bench/results/embed.json.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import save_results
from indexing.embed_job import passage_inputs, run_embeddings
from indexing.index.options import IndexOptions
from indexing.spark import spark_session
from kernel.embedder import embed_texts, worker_embedder
from kernel.layout import dataset_key, dataset_parts, state_key
from kernel.models import EmbeddingSpec
from kernel.storage import open_lake, read_parquet


def batched_int8(model, texts: list[str], batch_size: int = 32) -> np.ndarray:
    """The onnx-int8 recipe before vectors were made batch-invariant: texts sorted by length, batches padded to
    their longest (each text's activations quantized with its batch-mates'). For comparison only."""
    encodings = model._tok.encode_batch(texts)
    order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
    out = np.zeros((len(texts), model._dim), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        width = max(len(encodings[i].ids) for i in rows)
        feed = {name: np.zeros((len(rows), width), dtype=np.int64) for name in ("input_ids", "attention_mask",
                                                                                 "token_type_ids")}
        for r, i in enumerate(rows):
            e, n = encodings[i], len(encodings[i].ids)
            feed["input_ids"][r, :n], feed["attention_mask"][r, :n], feed["token_type_ids"][r, :n] = \
                e.ids, e.attention_mask, e.type_ids
        out[rows] = model._session.run(None, {k: v for k, v in feed.items() if k in model._inputs})[0]
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


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
            model = worker_embedder(EmbeddingSpec(backend=backend), 2).model
            start = time.perf_counter()
            vectors = embed_texts(texts, None, backend, 32, 2)
            raw = len(texts) / (time.perf_counter() - start)
            if backend == "onnx-int8":
                start = time.perf_counter()
                before = batched_int8(model, texts)
                result["onnx-int8 batched (before)"] = {
                    "raw_chunks_per_s": round(len(texts) / (time.perf_counter() - start), 1),
                    "min_cosine_to_per_text": round(float((before * vectors).sum(axis=1).min()), 4)}
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
