"""The page order's choice on the dev sets: the rules, the learned model on every question, and the default
(the model for the kinds of question ``query/page_order.yaml`` gives it), overall, per question class, per
kind, leave-one-company-out and on paraphrases.

    python -m bench.retrieval_classes --lake <lake> --questions bench/data/edgar_dev.jsonl \
        [--paraphrases bench/data/edgar_dev_paraphrases.jsonl] [--name edgar_dev]
    python -m bench.retrieval_classes --choose bench/results/classes_edgar_dev.json bench/results/classes_fb_dev.json

A question's class is its ``class`` field (``bench/data/edgar_dev.jsonl``) or FinanceBench's
``question_type``; its company is ``company``; its kind is ``query.page_order.question_kind`` of its plan.
``--choose`` reads the per-question scores of several runs (both dev sets) and chooses, kind by kind, the
page order by the rule of ``choose_table`` (the model where it wins on each set), with a leave-one-company-out estimate of that choice
(each company's questions scored by the table chosen on the other companies'). Writes
bench/results/classes_<name>.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from bench import save_results
from kernel.settings import load_settings
from query.evaluate import by_group, evaluate, read_qa, reworded
from query.page_order import KINDS, question_kind
from shell.client import open_retriever

RANKERS = ("rules", "learned-all", "learned")  # learned: the default, the model by kind
ORDER_COLUMN = {"learned": "learned-all", "rules": "rules"}  # a table's order -> the run that measured it


def groups_of(path: Path) -> dict[str, dict[str, str]]:
    """id -> class and id -> company, from the QA file's own fields."""
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    ids = [str(r.get("financebench_id") or r.get("qid") or r.get("id")) for r in rows]
    return {"class": {i: r.get("class") or r.get("question_type") or "?" for i, r in zip(ids, rows, strict=True)},
            "company": {i: r.get("company") or "?" for i, r in zip(ids, rows, strict=True)}}


def group_table(runs: dict[str, list[dict]], groups: dict[str, str], name: str) -> list[str]:
    """One Markdown row per group: its size and each ranker's DocRec / PageRec."""
    sizes: dict[str, int] = {}
    for row in next(iter(runs.values())):
        sizes[groups.get(row["id"], "?")] = sizes.get(groups.get(row["id"], "?"), 0) + 1
    doc = {n: by_group(rows, groups, "doc_recall") for n, rows in runs.items()}
    page = {n: by_group(rows, groups) for n, rows in runs.items()}
    lines = [f"| {name} | questions | " + " | ".join(f"{n} DocRec / PageRec" for n in runs) + " |",
             "|---|---|" + "---|" * len(runs)]
    for g in sorted(sizes):
        lines.append(f"| {g} | {sizes[g]} | " + " | ".join(f"{doc[n][g]:.3f} / {page[n][g]:.3f}" for n in runs) + " |")
    return lines


def measure(args) -> None:
    qas = read_qa(args.questions)
    groups = groups_of(args.questions)
    retriever = open_retriever(load_settings(lake_root=str(args.lake)))
    groups["kind"] = {qa.id: question_kind(retriever.plan(qa.question, None, retriever.options).plan) for qa in qas}
    runs, result = {}, {"questions": len(qas), "kind": groups["kind"], "company": groups["company"],
                        "class": groups["class"]}
    for ranker in RANKERS:
        run = evaluate(retriever, qas, "hierarchical", 5, ranker=ranker)
        runs[ranker] = run.per_question
        result[ranker] = {**run.metrics, "per_question": {r["id"]: r["scores"] for r in run.per_question}}
        print(f"{ranker:>12}: {run.questions} questions DocRec {run.metrics['doc_recall']:.3f} PageRec "
              f"{run.metrics['page_recall']:.3f} MRR {run.metrics['mrr']:.3f}", flush=True)
    result["class_table"] = group_table(runs, groups["class"], "class")
    result["kind_table"] = group_table(runs, groups["kind"], "kind")
    print("\n".join(result["class_table"]) + "\n\n" + "\n".join(result["kind_table"]))
    if args.paraphrases:
        para = reworded(qas, args.paraphrases)
        ids = {qa.id for qa in para}
        result["paraphrases"] = {}
        for ranker in RANKERS:
            orig = evaluate(retriever, [qa for qa in qas if qa.id in ids], "hierarchical", 5, ranker=ranker)
            new = evaluate(retriever, para, "hierarchical", 5, ranker=ranker)
            result["paraphrases"][ranker] = {"original": orig.metrics, "paraphrased": new.metrics}
            print(f"{ranker:>12} paraphrases ({len(para)}): original {orig.metrics['doc_recall']:.3f} / "
                  f"{orig.metrics['page_recall']:.3f}, reworded {new.metrics['doc_recall']:.3f} / "
                  f"{new.metrics['page_recall']:.3f}", flush=True)
    save_results(f"classes_{args.name or args.questions.stem}", result)


MIN_CLASS = 5  # a class of this many questions or more must not lose to the rules under the table


def choose_table(questions: list[dict], exclude: str | None = None) -> dict[str, str]:
    """kind -> "learned" or "rules", leaving out ``exclude``'s (a company's) questions: the model where its
    mean DocRec@5 + PageRec@5 on the kind's questions beats the rules' on every dev set that has such
    questions (a kind it wins in one question style and loses in another stays with the rules; ties and
    kinds without questions too); then, smallest gain first, a kind goes back to the rules while with it a
    class of ``MIN_CLASS`` or more questions (of either set) scores below the rules."""
    rows = [q for q in questions if q["company"] != exclude]
    gains, table = {}, {}
    for kind in KINDS:
        mine = [q for q in rows if q["kind"] == kind]
        gains[kind] = statistics.fmean(q["learned-all+doc"] - q["rules+doc"] for q in mine) if mine else 0.0
        per_set = [statistics.fmean(q["learned-all+doc"] - q["rules+doc"] for q in mine if q["set"] == s)
                   for s in sorted({q["set"] for q in mine})]
        table[kind] = "learned" if per_set and min(per_set) > 0 else "rules"
    for kind in sorted((k for k in KINDS if table[k] == "learned"), key=lambda k: gains[k]):
        if _a_class_loses(rows, table):
            table[kind] = "rules"
    return table


def _a_class_loses(rows: list[dict], table: dict[str, str]) -> bool:
    classes: dict[tuple[str, str], list[dict]] = {}
    for q in rows:
        classes.setdefault((q["set"], q["class"]), []).append(q)
    for members in classes.values():
        if len(members) < MIN_CLASS:
            continue
        for metric in ("", "+doc"):
            chosen = sum(q[ORDER_COLUMN[table[q["kind"]]] + metric] for q in members)
            if chosen < sum(q["rules" + metric] for q in members) - 1e-9:
                return True
    return False


def choose(paths: list[Path]) -> None:
    questions = []
    for path in paths:
        data = json.loads(path.read_text())
        for qid in data["rules"]["per_question"]:
            questions.append({"set": path.stem, "id": qid, "kind": data["kind"][qid], "class": data["class"][qid],
                              "company": f"{path.stem}:{data['company'][qid]}",
                              **{r: data[r]["per_question"][qid]["page_recall"] for r in ("rules", "learned-all")},
                              **{f"{r}+doc": data[r]["per_question"][qid]["page_recall"]
                                 + data[r]["per_question"][qid]["doc_recall"] for r in ("rules", "learned-all")}})
    table = choose_table(questions)
    print("kind choice on all dev questions:", json.dumps(table))
    print("PageRec@5 below; the choice weighs DocRec@5 + PageRec@5")
    held: dict[str, float] = {}
    for company in sorted({q["company"] for q in questions}):
        fold = choose_table(questions, exclude=company)
        for q in questions:
            if q["company"] == company:
                held[f"{q['set']}:{q['id']}"] = q[ORDER_COLUMN[fold[q["kind"]]]]
    for s in sorted({q["set"] for q in questions}):
        mine = [q for q in questions if q["set"] == s]
        print(f"{s}: {len(mine)} questions, PageRec rules {statistics.fmean(q['rules'] for q in mine):.3f}, "
              f"model everywhere {statistics.fmean(q['learned-all'] for q in mine):.3f}, by kind "
              f"{statistics.fmean(q[ORDER_COLUMN[table[q['kind']]]] for q in mine):.3f}, by kind leave-one-company-out "
              f"{statistics.fmean(held[s + ':' + q['id']] for q in mine):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lake", type=Path)
    parser.add_argument("--questions", type=Path)
    parser.add_argument("--paraphrases", type=Path, default=None)
    parser.add_argument("--name", default=None, help="results name (default: the questions file's stem)")
    parser.add_argument("--choose", type=Path, nargs="+", help="results of measure runs: choose the kind table")
    args = parser.parse_args()
    if args.choose:
        choose(args.choose)
    elif args.lake and args.questions:
        measure(args)
    else:
        parser.error("--lake and --questions, or --choose RESULTS...")


if __name__ == "__main__":
    main()
