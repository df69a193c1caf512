"""Retrieval tuning on the dev questions only, with an honest estimate of what tuning buys.

    python -m bench.tune_retrieval --lake <FinanceBench lake> [--questions questions_dev.jsonl]

Runs a small grid of retrieval options (fusion weights, Item boost, FLAM, trees) on the dev questions,
prints each configuration's DocRec@5 / PageRec@5 overall and per question type, then a leave-one-company-
out estimate: for each company, the configuration best on the other companies' questions is scored on
that company's questions (pooled mean and spread over companies). The rules of the query plan and the
concept map are not refitted per fold (they are written, not fitted): the estimate covers what the grid
chooses, not what was learnt from reading the dev questions. Last, the paraphrase check: every dev question
reworded by hand with other vocabulary (``bench/data/paraphrases_dev.jsonl``, same gold), scored with the
default options beside the originals; PageRec@5 on the paraphrases should be within 0.05. Run it on the
141-document index (pdfs + distractors) and on the 74-document one. Writes bench/results/tune_retrieval.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from bench import save_results
from kernel.settings import load_settings, shared_dir
from query.evaluate import by_group, evaluate, leave_one_group_out, read_qa, reworded
from shell.client import open_retriever

FLAT_GRID = [{"dense_weight": w} for w in (0.5, 0.6, 0.7, 0.8, 0.9)]
PARAPHRASES = Path(__file__).with_name("data") / "paraphrases_dev.jsonl"
HIER_GRID = [{"dense_weight": w, "item_boost": b, "flam": f, "trees": t}
             for w, b, f, t in itertools.product((0.5, 0.6, 0.7), (1.0, 1.3), (True, False), (False, True))]


def name_of(config: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in config.items())


def run_grid(retriever, qas, mode: str, grid: list[dict], groups: dict[str, dict[str, str]]) -> dict:
    runs, rows = {}, []
    for config in grid:
        run = evaluate(retriever, qas, mode, 5, **config)
        runs[name_of(config)] = run.per_question
        rows.append({"config": config, **run.metrics, "latency_ms": run.latency_ms,
                     "page_recall_by_type": by_group(run.per_question, groups["type"]),
                     "doc_recall_by_type": by_group(run.per_question, groups["type"], "doc_recall")})
        print(f"{mode:>12} {name_of(config):<60} DocRec {run.metrics['doc_recall']:.3f} "
              f"PageRec {run.metrics['page_recall']:.3f}  {row_types(rows[-1])}", flush=True)
    loco = leave_one_group_out(runs, groups["company"])
    print(f"{mode:>12} leave-one-company-out: DocRec {loco['metrics']['doc_recall']:.3f} PageRec "
          f"{loco['metrics']['page_recall']:.3f} (per company min {loco['spread']['min']:.2f}, max "
          f"{loco['spread']['max']:.2f}, stdev {loco['spread']['stdev']:.2f})")
    return {"grid": rows, "loco": loco}


def row_types(row: dict) -> str:
    return " ".join(f"{t[:6]} {v:.2f}" for t, v in row["page_recall_by_type"].items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = shared_dir() / "eval" / "financebench" / "questions_dev.jsonl" if shared_dir() else None
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=default)
    parser.add_argument("--modes", default="hybrid,hierarchical")
    parser.add_argument("--paraphrases", type=Path, default=PARAPHRASES, help="reworded dev questions, same gold")
    parser.add_argument("--ranker", choices=("rules", "learned"), default="learned",
                        help="the hierarchical page order every configuration uses (learned, the default: the "
                             "release's model, trained by `secplat run` or `secplat train-ranker`)")
    args = parser.parse_args()
    qas = read_qa(args.questions)
    raw = [json.loads(line) for line in args.questions.open(encoding="utf-8") if line.strip()]
    groups = {"type": {str(r["financebench_id"]): r["question_type"] for r in raw},
              "company": {str(r["financebench_id"]): r["company"] for r in raw}}
    retriever = open_retriever(load_settings(lake_root=str(args.lake)))
    result = {}
    for mode in args.modes.split(","):
        grid = FLAT_GRID if mode != "hierarchical" else [{**c, "ranker": args.ranker} for c in HIER_GRID]
        result[mode] = run_grid(retriever, qas, mode, grid, groups)
    result["paraphrases"] = paraphrase_check(retriever, qas, reworded(qas, args.paraphrases), groups, args.ranker)
    save_results(f"tune_retrieval_{args.ranker}", result)


def paraphrase_check(retriever, qas, paraphrases, groups: dict[str, dict[str, str]], ranker: str = "learned") -> dict:
    """Default options (with ``ranker``) on the originals and on their paraphrases, overall and per type."""
    ids = {qa.id for qa in paraphrases}
    out = {}
    for name, questions in (("original", [qa for qa in qas if qa.id in ids]), ("paraphrased", paraphrases)):
        run = evaluate(retriever, questions, "hierarchical", 5, ranker=ranker)
        out[name] = {**run.metrics, "page_recall_by_type": by_group(run.per_question, groups["type"]),
                     "latency_ms": run.latency_ms}
        print(f"{name:>12} default options, {len(questions)} questions: DocRec {run.metrics['doc_recall']:.3f} "
              f"PageRec {run.metrics['page_recall']:.3f}  {row_types(out[name])}", flush=True)
    gap = out["original"]["page_recall"] - out["paraphrased"]["page_recall"]
    print(f"paraphrase gap (PageRec original - paraphrased): {gap:+.3f} ({'within' if gap <= 0.05 else 'OUTSIDE'} 0.05)")
    return {**out, "page_recall_gap": round(gap, 4)}


if __name__ == "__main__":
    main()
