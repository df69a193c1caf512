"""A serving process for ``bench.query --scale``: what ``secplat serve`` does with a published store, timed from
inside, in a process of its own (so its memory is a server's, not the builder's).

    python -m bench.serve_probe --lake L --search DIR --questions Q [--n 50] [--follow]

Warms (``Retriever.warm``: what a server does before taking traffic), asks every question once untimed,
then times them (hierarchical, the defaults), and reads its resident memory. With ``--follow`` it then
prints one ``ready`` line and asks questions in a loop, each answer recorded with its release, until it
has answered ``AFTER`` questions from a release newer than the one it started with (or ``LIMIT_S``
passed): what a running server does while a nightly publish goes live. Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from kernel.settings import load_settings
from shell.client import open_retriever

AFTER, LIMIT_S = 20, 1800


def rss_mb() -> float:
    """Resident memory of this process now (VmRSS), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def percentiles(latencies: list[float]) -> dict:
    latencies = sorted(latencies)
    return {"p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1)}


def follow(retriever, questions: list[str]) -> dict:
    """Questions in a loop through a release switch: each (start, end, ms, release)."""
    first = retriever.snapshot().id
    asked, after, started = [], 0, time.monotonic()
    print(json.dumps({"ready": first}), flush=True)
    while after < AFTER and time.monotonic() - started < LIMIT_S:
        question = questions[len(asked) % len(questions)]
        begin, tick = time.time(), time.perf_counter()
        result = retriever.search(question, 5)
        asked.append((begin, time.time(), 1000 * (time.perf_counter() - tick), result.release))
        after += result.release != first
    return {"release_before": first, "asked": asked}


def stage_gap(timings: dict[str, float]) -> float:
    """How far a query's disjoint stage times (the keys without a dot) are from its total, as a share."""
    stages = sum(v for k, v in timings.items() if "." not in k and k != "total")
    return round(abs(stages - timings["total"]) / timings["total"], 4) if timings.get("total") else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--search", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--follow", action="store_true")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.open()][: args.n]
    retriever = open_retriever(load_settings(lake_root=str(args.lake), search_path=str(args.search)))
    started = time.perf_counter()
    retriever.warm()
    warm_s = round(time.perf_counter() - started, 1)
    for q in questions:  # warm-up: model, catalog, each filter column's postings
        retriever.search(q, 5)
    latencies, stages, gaps = [], {}, []
    for q in questions:
        result = retriever.search(q, 5)
        latencies.append(result.timings["total"])
        gaps.append(stage_gap(result.timings))
        for key, ms in result.timings.items():
            stages[key] = stages.get(key, 0.0) + ms
    out = {"warm_s": warm_s, "rss_mb": rss_mb(), **percentiles(latencies),
           "stages_ms": {k: round(v / len(questions), 1) for k, v in sorted(stages.items(), key=lambda kv: -kv[1])
                         if k != "total"},
           "stage_sum_gap_max": max(gaps, default=0.0)}
    if args.follow:
        out.update(follow(retriever, questions), rss_after_mb=rss_mb())
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
