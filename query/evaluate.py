"""Retrieval evaluation over a QA jsonl with gold (document, 0-based page) evidence.

Reads FinanceBench (``evidence: [{doc_name, evidence_page_num}]``) and LOFin (``evidences: [{doc_name,
page_num}]``). A gold document matches an evidence item by doc_id, doc_name (the LOFin-style alias) or source_name. Metrics per question,
averaged (definitions of ../shared/eval/financebench/README.md):

- DocRec@k: 1 if a gold document is among the documents of the top-k evidence items;
- PageRec@k: the fraction of gold pages found among the pages of the top-k items from a gold document;
- page precision@k: the fraction of the top-k items that are a gold (document, page);
- MRR: 1 / rank of the first gold (document, page) in the top 10 (0 when none);
- nDCG@10: binary gain of gold (document, page) items, ideal = min(#gold pages, 10).
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

METRICS = ("doc_recall", "page_recall", "page_precision", "mrr", "ndcg10")


@dataclass
class QA:
    id: str
    question: str
    gold: list[tuple[str, int]]  # (doc name, 0-based page)


class QaFileError(ValueError):
    """A QA or paraphrase file that cannot be read: the message names the file and line."""


def _rows(path: str | Path):
    """(line number, row) of a JSON-lines file, blank lines skipped; QaFileError naming the line otherwise."""
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise QaFileError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
                if not isinstance(row, dict):
                    raise QaFileError(f"{path}:{n}: a JSON object is expected, not {type(row).__name__}")
                yield n, row
    except UnicodeDecodeError as exc:
        raise QaFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_qa(path: str | Path) -> list[QA]:
    out = []
    for n, row in _rows(path):
        qid = str(row.get("financebench_id") or row.get("qid") or row.get("id") or n)
        try:
            if "evidence" in row:
                gold = [(e.get("doc_name") or row.get("doc_name"), int(e["evidence_page_num"]))
                        for e in row["evidence"]]
            elif "evidences" in row:
                gold = [(e["doc_name"], int(e["page_num"])) for e in row["evidences"]]
            else:
                raise QaFileError(f"{path}:{n}: no 'evidence' (FinanceBench) or 'evidences' (LOFin) field")
            question = row["question"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, QaFileError):
                raise
            raise QaFileError(f"{path}:{n}: malformed row ({type(exc).__name__}: {exc}); wanted 'question' and "
                              "evidence with a document name and a page number") from None
        if not isinstance(question, str) or not question.strip():
            raise QaFileError(f"{path}:{n}: 'question' is empty or not text")
        out.append(QA(qid, question, list(dict.fromkeys(gold))))
    if not out:
        raise QaFileError(f"{path}: no questions")
    return out


def reworded(qas: list[QA], path: str | Path) -> list[QA]:
    """The questions reworded (a paraphrase file: JSON lines of ``financebench_id``/``id`` and ``question``),
    each keeping its gold; every paraphrase must name a question of ``qas``."""
    by_id = {qa.id: qa for qa in qas}
    out = []
    for n, row in _rows(path):
        qid = str(row.get("financebench_id") or row.get("id"))
        if qid not in by_id:
            raise QaFileError(f"{path}:{n}: {qid} is not a question of the set it rewords")
        out.append(QA(qid, row["question"], by_id[qid].gold))
    return out


def score_question(qa: QA, ranked: list[dict], k: int) -> dict[str, float]:
    """``ranked``: evidence dicts (doc_id, source_name, page) best first."""
    gold_docs = {d for d, _ in qa.gold}
    gold_pages = set(qa.gold)

    def doc_of(e: dict) -> str | None:
        for name in (e.get("doc_id"), e.get("doc_name"), e.get("source_name")):
            if name in gold_docs:
                return name
        return None

    def is_gold(e: dict) -> bool:
        d = doc_of(e)
        return d is not None and (d, int(e["page"])) in gold_pages

    top = ranked[:k]
    found_pages = {(doc_of(e), int(e["page"])) for e in top if doc_of(e)}
    first = next((i for i, e in enumerate(ranked[:10]) if is_gold(e)), None)
    dcg = sum(1 / math.log2(i + 2) for i, e in enumerate(ranked[:10]) if is_gold(e))
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(gold_pages), 10)))
    return {"doc_recall": float(any(doc_of(e) for e in top)),
            "page_recall": len(found_pages & gold_pages) / len(gold_pages),
            "page_precision": sum(is_gold(e) for e in top) / k,
            "mrr": 0.0 if first is None else 1 / (first + 1),
            "ndcg10": dcg / idcg if idcg else 0.0}


@dataclass
class EvalRun:
    mode: str
    k: int
    questions: int
    metrics: dict[str, float]
    latency_ms: dict[str, float]
    per_question: list[dict] = field(default_factory=list)
    absent_documents: list[str] = field(default_factory=list)  # gold documents the index does not hold
    unanswerable: int = 0  # questions none of whose gold documents are indexed (not scored)


def present_gold(qa: QA, indexed: set[str]) -> QA:
    """The question with its gold restricted to indexed documents: DocRec and PageRec are both computed on
    this one gold set (a gold page of a document that is not indexed can be found by no retriever)."""
    return QA(qa.id, qa.question, [(d, p) for d, p in qa.gold if d in indexed])


def evaluate(retriever, qas: Iterable[QA], mode: str = "hierarchical", k: int = 5, out=None, progress=None,
             **option_overrides) -> EvalRun:
    from dataclasses import replace

    opts = replace(retriever.options, mode=mode, **option_overrides)
    docs = retriever.catalog.docs.values()
    indexed = {n for d in docs for n in (d.doc_id, d.doc_name, d.source_name) if n}
    asked = list(qas)
    absent = sorted({d for qa in asked for d, _ in qa.gold} - indexed)
    qas = [g for g in (present_gold(qa, indexed) for qa in asked) if g.gold]
    rows, latencies = [], []
    for qa in progress(qas, f"eval {mode}", len(qas)) if progress else qas:
        start = time.perf_counter()
        result = retriever.search(qa.question, k=max(k, 10), options=opts)
        latencies.append(1000 * (time.perf_counter() - start))
        ranked = [{"doc_id": e.doc_id, "doc_name": e.doc_name, "source_name": e.source_name, "page": e.page,
                   "chunk_id": e.chunk_id, "basis": e.basis, "score": e.score} for e in result.evidence]
        scores = score_question(qa, ranked, k)
        rows.append({"id": qa.id, "scores": scores, "evidence": ranked})
        if out is not None:
            out.write(json.dumps({"id": qa.id, "evidence": ranked}) + "\n")
    metrics = {m: round(statistics.fmean(r["scores"][m] for r in rows), 4) if rows else 0.0 for m in METRICS}
    latency = {"p50": round(statistics.median(latencies), 1) if latencies else 0.0,
               "p95": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1) if latencies else 0.0}
    return EvalRun(mode, k, len(rows), metrics, latency, rows, absent, len(asked) - len(qas))


def table(runs: list[EvalRun]) -> str:
    k = runs[0].k if runs else 5
    head = (f"| mode | questions | DocRec@{k} | PageRec@{k} | P@{k} | MRR | nDCG@10 | p50 ms | p95 ms |\n"
            "|---|---|---|---|---|---|---|---|---|")
    lines = [f"| {r.mode} | {r.questions} | " + " | ".join(f"{r.metrics[m]:.3f}" for m in METRICS)
             + f" | {r.latency_ms['p50']:.0f} | {r.latency_ms['p95']:.0f} |" for r in runs]
    notes = [f"{runs[0].unanswerable} question(s) not scored: none of their gold documents is indexed"] \
        if runs and runs[0].unanswerable else []
    if runs and runs[0].absent_documents:
        notes.append(f"{len(runs[0].absent_documents)} gold document(s) absent from the index (their pages count "
                     f"in neither DocRec nor PageRec): {', '.join(runs[0].absent_documents[:10])}"
                     + (" ..." if len(runs[0].absent_documents) > 10 else ""))
    return "\n".join([head, *lines, *notes])


def by_group(per_question: list[dict], groups: dict[str, str], metric: str = "page_recall") -> dict[str, float]:
    """Mean ``metric`` per group (question type, company) of one run's per-question scores."""
    values: dict[str, list[float]] = {}
    for row in per_question:
        values.setdefault(groups.get(row["id"], "?"), []).append(row["scores"][metric])
    return {g: round(statistics.fmean(v), 4) for g, v in sorted(values.items())}


def leave_one_group_out(runs: dict[str, list[dict]], groups: dict[str, str],
                        metric: str = "page_recall") -> dict:
    """An honest estimate of tuning by choosing among configurations: for each group (a company), the
    configuration with the best mean ``metric`` over the *other* groups' questions is scored on this
    group's questions. ``runs``: configuration -> per-question scores (``EvalRun.per_question``).
    Returns the pooled mean of every metric, the spread of the per-group means, and the choice per group."""
    names = list(runs)
    scores = {name: {row["id"]: row["scores"] for row in rows} for name, rows in runs.items()}
    ids = list(scores[names[0]])
    held: dict[str, dict] = {}
    chosen: dict[str, str] = {}
    for group in sorted({groups.get(i, "?") for i in ids}):
        train = [i for i in ids if groups.get(i, "?") != group]
        # the best mean over the other groups; ties: the earlier (simpler) configuration
        best = max(names, key=lambda name, train=train: (
            statistics.fmean(scores[name][i][metric] for i in train) if train else 0.0, -names.index(name)))
        chosen[group] = best
        for i in ids:
            if groups.get(i, "?") == group:
                held[i] = scores[best][i]
    pooled = {m: round(statistics.fmean(s[m] for s in held.values()), 4) for m in METRICS}
    per_group = {g: statistics.fmean(held[i][metric] for i in ids if groups.get(i, "?") == g) for g in chosen}
    spread = {"min": round(min(per_group.values()), 4), "max": round(max(per_group.values()), 4),
              "stdev": round(statistics.pstdev(per_group.values()), 4)}
    return {"metrics": pooled, "spread": spread, "chosen": chosen}
