"""OpenSearch against the embedded engine on the same lake, in the same run: publish rate (passages/s of a
rebuild publish, gate included), hierarchical query p50/p95 from each engine, and the cluster's resident
memory.

    python -m bench.opensearch --lake DIR --questions FILE.jsonl [--url URL] [--n 50]

The lake must be indexed (``secplat index``); it is published with ``--rebuild`` to each engine: to the
cluster at ``--url`` (default: ``OPENSEARCH_URL``; none: one node started by ``infra/opensearch/cluster``
under a temporary folder and stopped after) under the prefix ``bench``, and to a fresh embedded store in a
temporary folder (the lake's own published store is not touched). Queries run through the query module
(``Retriever``, the rules' page order on both: no ranker is trained for these releases), warmed first.
Resident memory: the node JVMs' RSS after the queries (``infra/opensearch`` nodes on this machine only).
Writes bench/results/opensearch.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench import save_results
from bench.query import _run
from kernel.resources import Resources
from kernel.settings import load_settings
from query import RetrievalOptions, Retriever
from shell.runner import run_stage

ROOT = Path(__file__).resolve().parents[1]


def node_rss_mb() -> float | None:
    """Resident memory of this machine's OpenSearch node JVMs (the project's launcher), MB."""
    import psutil

    total = 0
    for proc in psutil.process_iter(["cmdline", "memory_info"]):
        if "secplat.opensearch.NodeMain" in " ".join(proc.info["cmdline"] or []):
            total += proc.info["memory_info"].rss
    return round(total / 2**20) if total else None


def publish(settings) -> dict:
    start = time.perf_counter()
    report = run_stage("publish", Resources(settings), rebuild=True)
    took = time.perf_counter() - start
    passages = next(o.rows for o in report.indexes if o.index == "passages")
    return {"release": report.release, "seconds": round(took, 1), "passages": passages,
            "passages_per_s": round(passages / took)}


def queries(settings, questions: list[str]) -> dict:
    retriever = Retriever(Resources(settings))
    return _run(retriever, questions, RetrievalOptions(ranker="rules"))


def measure(lake: Path, url: str, questions: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        engines = {"embedded": load_settings(lake_root=str(lake), search_path=str(Path(tmp) / "search")),
                   "opensearch": load_settings(lake_root=str(lake), opensearch_url=url, search_prefix="bench")}
        out = {name: {"publish": publish(s)} for name, s in engines.items()}
        for name, s in engines.items():
            out[name]["hierarchical"] = queries(s, questions)
    out["opensearch"]["cluster_rss_mb"] = node_rss_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--url", default=os.environ.get("OPENSEARCH_URL"))
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.open()][: args.n]
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "OPENSEARCH_DATA": data, "OPENSEARCH_PORT": os.environ.get("OPENSEARCH_PORT", "9250")}
        cluster = str(ROOT / "infra" / "opensearch" / "cluster")
        url = args.url or subprocess.run([cluster, "start"], env=env, check=True, capture_output=True,
                                         text=True).stdout.strip().splitlines()[-1]
        try:
            result = {"lake": str(args.lake), "questions": len(questions), **measure(args.lake, url, questions)}
        finally:
            if not args.url:
                subprocess.run([cluster, "stop"], env=env, check=False, capture_output=True)
    print(json.dumps(result, indent=1))
    save_results("opensearch", result)


if __name__ == "__main__":
    main()
