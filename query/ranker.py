"""The learned page ranker: the hand-set page order's signals as features of a model trained on questions
the corpus made about itself (``indexing/ranker_pairs.py``), never on a QA file.

For each candidate page of a rules-ranked result (the first ``CANDIDATES``), :func:`page_features` reads
what the pipeline already knows: the page's rank and relative score under the rules, whether a statement,
note or fact pinned it, its document's rank and score, its position in the document, its share of
figures, the question's words on it, whether its year and Item are the ones asked for. A logistic
regression (standardized features, fixed solver: the same pairs give the same coefficients) learns how to
weigh them; :class:`PageRanker` reorders the candidates by it, its order blended with the rules'
(:func:`blended`). Trained per release (``train``, on the retriever serving that release), stored as JSON
beside it (``kernel.layout.ranker_key``), read by the release's snapshot: a query answers with the model of
its release, or by the rules when it has none.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from domain.sec_items import MDNA_ITEMS
from domain.text import figures_share, words
from query.api import FIGURE_PINS, SECTION_PINS

CANDIDATES = 20  # pages the model reorders (the rules' first ones); the rest keep the rules' order
# The model's share of a page's place (:func:`blended`), the rules' the rest: chosen on the dev sets between
# 0.3 and 0.5 (0.5 lost a random-page question on each of the two sets; docs/retrieval-quality.md).
MODEL_SHARE = 0.3
VERSION = 3  # 2: the pins read from the evidence's typed basis; 3: what a question asking what drove a change reads
FEATURES = ("rule_rank", "rule_score", "pin_statement", "pin_fact", "doc_rank", "doc_score", "page_position",
            "figures", "figures_asked", "overlap", "year_match", "item_match", "text_length", "prose_asked",
            "mdna_asked")


def page_features(question: str, plan: dict, documents: list[dict], evidence: list[dict],
                  page_counts: dict[str, int]) -> list[list[float]]:
    """One row of FEATURES per evidence item (plain dicts: ``Evidence.as_dict``, ``SearchResult.documents``,
    ``SearchResult.plan``)."""
    asked = set(words(question))
    years = set(plan.get("years") or []) | ({plan["target_year"]} if plan.get("target_year") else set())
    items = set((plan.get("evidence") or {}).get("items") or [])
    figure = 1.0 if (plan.get("evidence") or {}).get("figure") else 0.0
    narrative = 1.0 if plan.get("narrative") else 0.0
    doc_rank = {d["doc_id"]: i for i, d in enumerate(documents)}
    doc_top = max((d["score"] for d in documents), default=1.0) or 1.0
    doc_score = {d["doc_id"]: d["score"] / doc_top for d in documents}
    top = max((e["score"] for e in evidence), default=1.0) or 1.0
    rows = []
    for i, e in enumerate(evidence):
        basis = e.get("basis") or "match"
        text = e.get("text") or ""
        figures = figures_share(text)
        rank = doc_rank.get(e["doc_id"])
        rows.append([
            1.0 / (1 + i),
            max(-1.0, min(2.0, e["score"] / top)),
            1.0 if basis in SECTION_PINS else 0.0,  # a statement's, a note's or the cover's pin
            1.0 if basis in FIGURE_PINS else 0.0,
            1.0 / (1 + rank) if rank is not None else 0.0,
            doc_score.get(e["doc_id"], 0.0),
            e["page"] / max(1, page_counts.get(e["doc_id"], 0) or e["page"] + 1),
            figures,
            figures * figure,
            len(asked & set(words(text))) / len(asked) if asked else 0.0,
            0.5 if not years else 1.0 if e.get("fiscal_year") in years else 0.0,
            1.0 if e.get("item") in items else 0.0,
            math.log1p(len(text)) / 8.0,
            (1.0 - min(1.0, 5 * figures)) * narrative,  # prose, for a question asking what drove a change
            narrative if e.get("item") in MDNA_ITEMS else 0.0,  # MD&A, where results are explained
        ])
    return rows


class TrainingError(RuntimeError):
    """Nothing to train on, or the release changed under the training (one line)."""


@dataclass(frozen=True)
class PageRanker:
    """A trained model: feature means and scales, coefficients, intercept; ``release`` it was trained for."""

    release: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    trained: dict

    def scores(self, rows: list[list[float]]) -> list[float]:
        return [self.intercept + sum(c * (x - m) / s for c, x, m, s in zip(self.coef, row, self.mean, self.scale,
                                                                          strict=True)) for row in rows]

    def order(self, rows: list[list[float]]) -> list[int]:
        """Candidate positions best first by the model alone (ties keep the rules' order)."""
        scores = self.scores(rows)
        return sorted(range(len(rows)), key=lambda i: (-scores[i], i))

    def blended_order(self, rows: list[list[float]]) -> list[int]:
        """Candidate positions best first by the model's order blended with the rules' (:func:`blended`)."""
        return blended(self.order(rows))

    def to_json(self) -> bytes:
        """Stable bytes: the same model always serializes alike (floats rounded to 12 significant digits)."""
        data = {"version": VERSION, "release": self.release, "features": list(FEATURES),
                "mean": [_r(x) for x in self.mean], "scale": [_r(x) for x in self.scale],
                "coef": [_r(x) for x in self.coef], "intercept": _r(self.intercept), "trained": self.trained}
        return json.dumps(data, indent=1, sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> PageRanker:
        data = json.loads(raw)
        if data.get("version") != VERSION or data.get("features") != list(FEATURES):
            raise ValueError(f"a format {data.get('version')} model; this code reads format {VERSION}: "
                             "retrain with `secplat train-ranker`")
        return cls(data["release"], tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]),
                   data["intercept"], data.get("trained", {}))


def blended(model_order: list[int], share: float = MODEL_SHARE) -> list[int]:
    """Positions 0..n-1 (the rules' order) sorted by ``(1 - share)`` times the rules' place plus ``share``
    times the model's (``model_order``: positions, the model's best first); ties to the rules. A Borda count
    of the two: a page moves only as far as the model disagrees, so where the rules are sure the model cannot
    overturn them, and a page the model puts far ahead still climbs."""
    place = {i: n for n, i in enumerate(model_order)}
    return sorted(range(len(model_order)), key=lambda i: ((1 - share) * i + share * place[i], i))


def _r(x: float) -> float:
    return float(f"{x:.12g}")


def fit(rows: list[list[float]], labels: list[int], release: str, trained: dict) -> PageRanker:
    """Logistic regression over standardized features (lbfgs, fixed iterations and tolerance: deterministic)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(rows, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=1.0, solver="lbfgs", max_iter=2000, tol=1e-8, class_weight="balanced")
    model.fit((x - mean) / scale, np.asarray(labels))
    return PageRanker(release, tuple(float(v) for v in mean), tuple(float(v) for v in scale),
                      tuple(float(v) for v in model.coef_[0]), float(model.intercept_[0]), trained)


def training_rows(pairs: Iterable[dict], search: Callable[[str], tuple[str, dict, list[dict], list[dict]]],
                  page_counts: dict[str, int], progress=None) -> tuple[list[list[float]], list[int], dict]:
    """Features and labels from the rules' candidates for each training question: ``search(question)`` gives
    (clean question, plan, documents, evidence) with the rules; the question's page is the positive, every
    other candidate a negative (hard ones: the same filing's other pages, the company's other filings).
    Questions whose page is not among the candidates teach nothing and are counted, not used."""
    rows, labels = [], []
    used = missed = 0
    pairs = list(pairs)
    for pair in progress(pairs, "train", len(pairs)) if progress else pairs:
        question, plan, documents, evidence = search(pair["question"])
        evidence = evidence[:CANDIDATES]
        hits = [1 if (e["doc_id"], e["page"]) == (pair["doc_id"], pair["page"]) else 0 for e in evidence]
        if not any(hits):
            missed += 1
            continue
        used += 1
        rows += page_features(question, plan, documents, evidence, page_counts)
        labels += hits
    digest = hashlib.sha256(json.dumps(sorted(p["pair_id"] for p in pairs)).encode()).hexdigest()[:16]
    return rows, labels, {"questions": len(pairs), "used": used, "not_in_candidates": missed, "pairs_sha": digest}
