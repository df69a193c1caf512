"""The page ranker's choice on a dev set: rules against learned, overall, per question class, per company,
leave-one-company-out and on paraphrases.

    python -m bench.retrieval_classes --lake <lake> --questions bench/data/edgar_dev.jsonl \
        [--paraphrases bench/data/edgar_dev_paraphrases.jsonl] [--name edgar_dev]

A question's class is its ``class`` field (``bench/data/edgar_dev.jsonl``) or FinanceBench's
``question_type``; its company is ``company``. For each ranker: DocRec@5 / PageRec@5 overall and per class
(the issue's rule: the default must not lose to the rules on a class of 5 or more questions), then the
leave-one-company-out estimate of choosing between the two by the other companies' questions, then the
paraphrases (same gold, other words) scored with each ranker. Writes bench/results/classes_<name>.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench import save_results
from kernel.settings import load_settings
from query.evaluate import by_group, evaluate, leave_one_group_out, read_qa, reworded
from shell.client import open_retriever

RANKERS = ("rules", "learned")


def groups_of(path: Path) -> dict[str, dict[str, str]]:
    """id -> class and id -> company, from the QA file's own fields."""
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    ids = [str(r.get("financebench_id") or r.get("qid") or r.get("id")) for r in rows]
    return {"class": {i: r.get("class") or r.get("question_type") or "?" for i, r in zip(ids, rows, strict=True)},
            "company": {i: r.get("company") or "?" for i, r in zip(ids, rows, strict=True)}}


def class_table(runs: dict[str, list[dict]], classes: dict[str, str]) -> list[str]:
    """One Markdown row per class: its size and each ranker's DocRec / PageRec."""
    sizes: dict[str, int] = {}
    for row in next(iter(runs.values())):
        sizes[classes.get(row["id"], "?")] = sizes.get(classes.get(row["id"], "?"), 0) + 1
    doc = {name: by_group(rows, classes, "doc_recall") for name, rows in runs.items()}
    page = {name: by_group(rows, classes) for name, rows in runs.items()}
    lines = ["| class | questions | " + " | ".join(f"{n} DocRec / PageRec" for n in runs) + " |",
             "|---|---|" + "---|" * len(runs)]
    for c in sorted(sizes):
        lines.append(f"| {c} | {sizes[c]} | " + " | ".join(f"{doc[n][c]:.3f} / {page[n][c]:.3f}" for n in runs) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--paraphrases", type=Path, default=None)
    parser.add_argument("--name", default=None, help="results name (default: the questions file's stem)")
    args = parser.parse_args()
    qas = read_qa(args.questions)
    groups = groups_of(args.questions)
    retriever = open_retriever(load_settings(lake_root=str(args.lake)))
    runs, result = {}, {"questions": len(qas)}
    for ranker in RANKERS:
        run = evaluate(retriever, qas, "hierarchical", 5, ranker=ranker)
        runs[ranker] = run.per_question
        result[ranker] = {**run.metrics, "by_class_page": by_group(run.per_question, groups["class"]),
                          "by_class_doc": by_group(run.per_question, groups["class"], "doc_recall"),
                          "per_question": {r["id"]: r["scores"] for r in run.per_question}}
        print(f"{ranker:>8}: {run.questions} questions DocRec {run.metrics['doc_recall']:.3f} PageRec "
              f"{run.metrics['page_recall']:.3f} MRR {run.metrics['mrr']:.3f}", flush=True)
    table = class_table(runs, groups["class"])
    print("\n".join(table))
    loco = leave_one_group_out(runs, groups["company"])
    result["loco"] = loco
    print(f"leave-one-company-out choice of ranker: DocRec {loco['metrics']['doc_recall']:.3f} PageRec "
          f"{loco['metrics']['page_recall']:.3f}")
    if args.paraphrases:
        para = reworded(qas, args.paraphrases)
        ids = {qa.id for qa in para}
        result["paraphrases"] = {}
        for ranker in RANKERS:
            orig = evaluate(retriever, [qa for qa in qas if qa.id in ids], "hierarchical", 5, ranker=ranker)
            new = evaluate(retriever, para, "hierarchical", 5, ranker=ranker)
            result["paraphrases"][ranker] = {"original": orig.metrics, "paraphrased": new.metrics}
            print(f"{ranker:>8} paraphrases ({len(para)}): original {orig.metrics['doc_recall']:.3f} / "
                  f"{orig.metrics['page_recall']:.3f}, reworded {new.metrics['doc_recall']:.3f} / "
                  f"{new.metrics['page_recall']:.3f}", flush=True)
    result["class_table"] = table
    save_results(f"classes_{args.name or args.questions.stem}", result)


if __name__ == "__main__":
    main()
