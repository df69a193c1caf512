"""Retrieval quality of the int8 ONNX embeddings against fp32, on FinanceBench questions.

    python -m bench.embed_quality --lake DIR --financebench DIR [--docs 15] [--backends torch,onnx-int8]

Needs a lake with the FinanceBench PDFs converted and segmented (``secplat convert --pdf-dir``, ``secplat
segment``). For each dev question on the first ``--docs`` gold documents (sorted by name), the gold
document's passages are ranked by cosine similarity to the question, with each backend embedding the same
strings the embedding job embeds. Reported per backend: page hit@5 (a top-5 passage spans a gold evidence
page), MRR of the first passage on a gold page, and the mean overlap of the top-10 passages with fp32's.
Writes bench/results/embed_quality.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bench import save_results
from indexing.embed_job import passage_inputs
from indexing.index.options import IndexOptions
from indexing.spark import spark_session
from kernel.embedder import embed_texts
from kernel.layout import dataset_key, dataset_parts
from kernel.storage import open_lake, read_parquet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--financebench", type=Path, required=True)
    parser.add_argument("--docs", type=int, default=15)
    parser.add_argument("--backends", default="torch,onnx-int8")
    args = parser.parse_args()
    backends = args.backends.split(",")
    questions = [json.loads(line) for line in (args.financebench / "questions_dev.jsonl").open()]
    docs = sorted({q["doc_name"] for q in questions})[: args.docs]
    questions = [q for q in questions if q["doc_name"] in docs]
    lake = open_lake(str(args.lake))
    parts = {read_parquet(lake, dataset_key("documents", p)).column("doc_id")[0].as_py(): p
             for p in dataset_parts(lake, "documents")}
    spark = spark_session(IndexOptions(spark_master="local[2]"))
    rows = (passage_inputs(spark, lake, [parts[d] for d in docs])
            .select("doc_id", "chunk_id", "page_start", "page_end", "embed_text").orderBy("chunk_id").collect())
    by_doc: dict[str, list] = {}
    for r in rows:
        by_doc.setdefault(r.doc_id, []).append(r)
    result: dict = {"documents": len(docs), "questions": len(questions), "passages": len(rows)}
    ranks: dict[str, list[list[int]]] = {}
    for backend in backends:
        start = time.perf_counter()
        vectors = {d: embed_texts([r.embed_text for r in by_doc[d]], None, backend, 32, 2) for d in docs}
        took = time.perf_counter() - start
        qv = embed_texts([q["question"] for q in questions], None, backend, 32, 2)
        hits, rr, ranks[backend] = 0, 0.0, []
        for q, v in zip(questions, qv, strict=True):
            order = list(np.argsort(-(vectors[q["doc_name"]] @ v), kind="stable"))
            ranks[backend].append(order[:10])
            gold = {e["evidence_page_num"] for e in q["evidence"]}
            passages = by_doc[q["doc_name"]]
            on_gold = [i for i, j in enumerate(order)
                       if any(passages[j].page_start <= g <= passages[j].page_end for g in gold)]
            hits += bool(on_gold and on_gold[0] < 5)
            rr += 1 / (on_gold[0] + 1) if on_gold else 0.0
        result[backend] = {"page_hit_at_5": round(hits / len(questions), 3), "mrr": round(rr / len(questions), 3),
                           "passages_per_s": round(len(rows) / took, 1)}
    base = backends[0]
    for backend in backends[1:]:
        overlap = [len(set(a) & set(b)) / 10 for a, b in zip(ranks[base], ranks[backend], strict=True)]
        result[backend][f"top10_overlap_with_{base}"] = round(float(np.mean(overlap)), 3)
    print(json.dumps(result, indent=1))
    save_results("embed_quality", result)


if __name__ == "__main__":
    main()
