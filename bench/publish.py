"""Publishing benchmark on the embedded engine: bulk-load rows/s and on-disk size per index, hybrid query
latency p50/p95.

    python -m bench.publish --lake DIR [--questions FILE.jsonl] [--queries 200]

Needs a lake with index datasets (``secplat index``). Loads each index into a fresh engine directory (the
lake's own published indexes are not touched), then runs hybrid (BM25 + kNN, RRF) passage queries with
and without a ticker filter. Query vectors are embedded up front, so latency is the engine's alone; the
embedding time per question is reported separately. Writes bench/results/publish.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from bench import save_results
from indexing.publish import read_index_data
from kernel.embedder import embed_texts
from kernel.search import serve_version
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend
from kernel.storage import open_lake
from schemas.index import INDEXES

QUESTIONS = [
    "What was the company's total revenue in the last fiscal year?",
    "How did operating income change compared with the prior year?",
    "What are the main risk factors related to supply chain disruptions?",
    "Describe any material legal proceedings.",
    "What is the company's dividend policy and share repurchase program?",
    "How much cash and cash equivalents did the company hold at year end?",
    "What were capital expenditures during the year?",
    "What is the effective tax rate and why did it change?",
    "Which segments contributed the most to net sales growth?",
    "What goodwill impairment charges were recorded?",
]


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, help="jsonl with a 'question' field (e.g. FinanceBench)")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    lake = open_lake(str(args.lake))
    questions = QUESTIONS
    if args.questions:
        questions = [json.loads(line)["question"] for line in args.questions.open()]
    result: dict = {"indexes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        backend = EmbeddedBackend(Path(tmp) / "search")
        for name, spec in INDEXES.items():
            parts = read_index_data(lake, spec)
            if not parts:
                continue
            table = pa.concat_tables(parts.values())
            dims = len(table.column("vector")[0].as_py()) if spec.has_vector else None
            start = time.perf_counter()
            version = backend.create_version(spec, dims, {"model": "bench"})
            rows = backend.load(version, spec, table.to_batches(max_chunksize=2000))
            serve_version(backend, name, version)
            took = time.perf_counter() - start
            result["indexes"][name] = {"rows": rows, "seconds": round(took, 1), "rows_per_s": round(rows / took),
                                       "disk_mb": round(_du(Path(tmp) / "search" / f"{version}.lance") / 2**20, 1)}
        embed_texts([], None, "torch", 32, 2)  # loads the model before the clock starts
        start = time.perf_counter()
        vectors = embed_texts(questions, None, "torch", 32, 2)
        result["question_embedding_ms"] = round(1000 * (time.perf_counter() - start) / len(questions), 1)
        spec = INDEXES["passages"]
        alias = alias_name(backend.prefix, "passages")
        tickers = sorted(set(pa.concat_tables(read_index_data(lake, spec).values()).column("ticker")
                             .drop_null().to_pylist())) or [None]
        for label, with_filter in (("hybrid", False), ("hybrid_ticker_filter", True)):
            latencies = []
            for i in range(args.queries):
                q = i % len(questions)
                filters = {"ticker": tickers[i % len(tickers)]} if with_filter and tickers[0] else None
                start = time.perf_counter()
                backend.hybrid(alias, spec, questions[q], vectors[q], filters, k=10)
                latencies.append(1000 * (time.perf_counter() - start))
            result[label] = {"queries": len(latencies), "p50_ms": round(statistics.median(latencies), 1),
                             "p95_ms": round(_pct(latencies, 0.95), 1)}
    print(json.dumps(result, indent=1))
    save_results("publish", result)


if __name__ == "__main__":
    main()
