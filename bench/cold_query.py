"""A first query in a new process, as an analyst runs the CLI: `secplat query` end to end, and where its time
goes (imports, opening the index, loading the model, the first restricted search, the search itself).

    python -m bench.cold_query --lake DIR --questions FILE.jsonl [--n 5]

Each question runs in a fresh process twice: once as ``secplat query "<question>"`` timed from outside (wall
time, what a person waits), once as a probe that times the phases in the same order the CLI meets them.
The index's per-fragment pieces (``kernel.search.embedded.fragment_cache``) are what the publish left; the first run
after removing them pays the pieces once (``--no-cache`` measures that case). Writes
bench/results/cold_query.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import save_results

PROBE = """
import json, sys, time
marks = [("start", time.perf_counter())]
def lap(name): marks.append((name, time.perf_counter()))
from shell.client import open_retriever
from kernel.settings import load_settings
from query import Retriever
lap("import")
retriever = open_retriever(load_settings(lake_root=sys.argv[1]))
retriever.catalog
lap("open index")
retriever.embed("warm")
lap("model load")
result = retriever.search(sys.argv[2])
lap("search")
print(json.dumps({"phases": {n: round(1000 * (t - marks[i][1])) for i, (n, t) in enumerate(marks[1:])},
                  "stages": result.timings}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--no-cache", action="store_true", help="remove the stored pieces before each run")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines()[: args.n]]
    secplat = str(Path(sys.executable).with_name("secplat"))
    walls, probes = [], []
    for q in questions:
        if args.no_cache:
            shutil.rmtree(args.lake / "search" / ".cache", ignore_errors=True)
        start = time.perf_counter()
        subprocess.run([secplat, "query", q, "--lake", str(args.lake)], check=True, capture_output=True)
        walls.append(1000 * (time.perf_counter() - start))
        if args.no_cache:
            shutil.rmtree(args.lake / "search" / ".cache", ignore_errors=True)
        out = subprocess.run([sys.executable, "-c", PROBE, str(args.lake), q], check=True, capture_output=True,
                             text=True).stdout
        probes.append(json.loads(out.strip().splitlines()[-1]))
    phases = {name: round(statistics.median(p["phases"][name] for p in probes)) for name in probes[0]["phases"]}
    first = {k: round(statistics.median(p["stages"].get(k, 0.0) for p in probes)) for k in
             ("embed", "documents", "passages", "curate", "total")}
    result = {"questions": len(questions), "cache": not args.no_cache,
              "cli_wall_ms": {"median": round(statistics.median(walls)), "max": round(max(walls))},
              "phases_ms_median": phases, "first_search_stages_ms_median": first}
    print(json.dumps(result, indent=1))
    save_results("cold_query", result)


if __name__ == "__main__":
    main()
