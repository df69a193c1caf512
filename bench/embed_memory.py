"""Peak memory of the embedding job on 1x and 4x inputs: it must not grow with the corpus.

    python -m bench.embed_memory --lake DIR [--docs 4] [--backend torch]

Takes the first ``--docs`` and ``4 * --docs`` segmented documents of a lake (sorted by part name), runs
the embedding job on each set in a fresh process (driver, Spark JVM, Python workers), and samples the
summed resident memory of that process tree every 0.2 s. Writes bench/results/embed_memory.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from bench import save_results


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):  # a worker may exit between listing and reading
            total += p.memory_info().rss
    return total


def measure(lake: Path, parts: list[str], backend: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        for ds in ("documents", "chunks"):
            (Path(tmp) / "datasets" / ds).mkdir(parents=True)
            for part in parts:
                shutil.copy(lake / "datasets" / ds / part, Path(tmp) / "datasets" / ds / part)
        code = ("from shell.client import run; from kernel.settings import load_settings; "
                f"print(run('index', load_settings(lake_root={tmp!r}, spark_master='local[2]', "
                f"embedding_backend={backend!r})).embeddings.passages)")
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ps, peak = psutil.Process(proc.pid), 0
        while proc.poll() is None:
            peak = max(peak, tree_rss(ps))
            time.sleep(0.2)
        if proc.returncode:
            raise SystemExit(f"embedding job failed with exit code {proc.returncode}")
        passages = int(proc.stdout.read().split()[-1])
    return {"documents": len(parts), "passages": passages, "seconds": round(time.perf_counter() - start, 1),
            "peak_rss_mb": round(peak / 2**20)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--backend", default="torch")
    args = parser.parse_args()
    parts = sorted(p.name for p in (args.lake / "datasets" / "chunks").glob("*.parquet"))
    if len(parts) < 4 * args.docs:
        raise SystemExit(f"{args.lake} has {len(parts)} segmented documents; 4x needs {4 * args.docs}")
    result = {"backend": args.backend, "1x": measure(args.lake, parts[: args.docs], args.backend),
              "4x": measure(args.lake, parts[: 4 * args.docs], args.backend)}
    result["peak_ratio_4x_vs_1x"] = round(result["4x"]["peak_rss_mb"] / result["1x"]["peak_rss_mb"], 2)
    print(json.dumps(result, indent=1))
    save_results("embed_memory", result)


if __name__ == "__main__":
    main()
