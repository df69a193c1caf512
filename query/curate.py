"""Evidence curation (HiREC), without an LLM by default.

Each round: drop passages below a relevance floor (a fraction of the round's best score), drop near
duplicates, then check answerability: every company the question names needs evidence from its own
documents, and for a comparison across fiscal years every year needs a document of that year or a passage
that reports it. For each gap a complementary query runs, scoped to the missing company's (and year's)
documents, and its best passages join the evidence; at most ``max_iterations`` rounds and
``max_passages`` passages. The answer keeps one passage per requirement at the top, so a comparison's
second company is never pushed out of the first k. With ``LLM_CURATION`` and an endpoint configured, the
LLM may further drop passages it judges irrelevant (its failure leaves the deterministic result).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.text import lower_words
from kernel import llm
from query.analysis import Entity, QueryAnalysis
from query.api import SEARCH_BASES, Evidence, RetrievalOptions, SearchResult
from query.catalog import Catalog
from query.plan import QueryPlan

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Need:
    entity: Entity | None
    year: int | None

    @property
    def label(self) -> str:
        return " ".join(x for x in ((self.entity.name if self.entity else None),
                                    (f"fiscal {self.year}" if self.year else None)) if x)


@dataclass
class Searcher:
    """What curation may ask of retrieval, and nothing more: a follow-up question for a company (and year),
    its ranked documents, and its evidence pages in some of them (``query.retrieve``'s stages 2-4)."""

    follow_up: Callable[[Entity | None, int | None], Any]  # -> a query.question.Question
    rank_documents: Callable[[Any], list]
    find_pages: Callable[[Any, list], list[Evidence]]
    llm: llm.TextModel | None = None  # LLM_CURATION: a model to filter with


def needs_of(analysis: QueryAnalysis) -> list[Need]:
    if len(analysis.entities) > 1:
        return [Need(e, None) for e in analysis.entities]
    entity = analysis.entities[0] if analysis.entities else None
    if len(analysis.years) > 1:
        return [Need(entity, y) for y in analysis.years]
    return [Need(entity, None)] if entity else []


def _satisfies(ev, need: Need, catalog) -> bool:
    info = catalog.docs.get(ev.doc_id)
    if need.entity and (not info or info.entity != need.entity.key):
        return False
    if need.year is None:
        return True
    return ev.fiscal_year == need.year or str(need.year) in ev.text


def _floor(evidence: list, ratio: float) -> list:
    if not evidence:
        return evidence
    top = max(e.score for e in evidence)
    return [e for i, e in enumerate(evidence) if i == 0 or e.score >= ratio * top]


def _dedupe(evidence: list, threshold: float = 0.9) -> list:
    """Evidence whose text all but repeats an earlier item's is dropped, unless it is the same chunk standing
    for another page (a chunk that runs from one page's foot into the next, a statement's title, then its
    table, may be pinned for both pages, and they are two pages, not one text twice) or a pinned page (a
    table MD&A prints as the statement does is two pages a reader may cite, pinned for what they print)."""
    kept, shingles = [], []
    for e in evidence:
        tokens = set(lower_words(e.text))
        if e.basis in SEARCH_BASES and any(chunk != e.chunk_id and len(tokens & s) / max(1, len(tokens | s))
                                           >= threshold for chunk, s in shingles):
            continue
        kept.append(e)
        shingles.append((e.chunk_id, tokens))
    return kept


def curate(result: SearchResult, plan: QueryPlan, opts: RetrievalOptions, catalog: Catalog,
           search: Searcher) -> None:
    """Rewrite ``result.evidence`` in place and record each round in ``result.iterations``."""
    evidence = _dedupe(_floor(result.evidence, opts.relevance_floor))
    needs = needs_of(plan.analysis)
    asked: set[Need] = set()
    for round_no in range(1, opts.max_iterations + 1):
        missing = [n for n in needs if not any(_satisfies(e, n, catalog) for e in evidence)]
        step = {"iteration": round_no, "evidence": len(evidence), "missing": [n.label for n in missing]}
        result.iterations.append(step)
        todo = [n for n in missing if n not in asked]
        if not todo:
            break
        step["complementary_queries"] = []
        for need in todo:
            asked.add(need)
            found = _complementary(search, need, opts)
            step["complementary_queries"].append({"for": need.label, "found": len(found)})
            evidence = _dedupe(evidence + found)
    evidence = _requirements_first(evidence, needs, catalog)[: opts.max_passages]
    result.evidence = _llm_filter(search.llm, result.question, evidence)


def _complementary(search: Searcher, need: Need, opts: RetrievalOptions) -> list[Evidence]:
    """The question again, scoped to the missing company's (and year's) documents: its best two."""
    question = search.follow_up(need.entity, need.year)
    docs = search.rank_documents(question)
    if need.entity:
        docs = [d for d in docs if d.doc.entity == need.entity.key]
    if need.year:
        docs = [d for d in docs if d.doc.fiscal_year in (need.year, need.year + 1)] or docs
    found = search.find_pages(question, docs[:2])
    found = _floor(found, opts.relevance_floor)[:2]
    for e in found:
        e.reason = f"complementary query for {need.label}; " + e.reason
        e.complementary = True
    return found


def _requirements_first(evidence: list, needs: list[Need], catalog) -> list:
    """The best passage for each requirement first (in the question's order), then the rest by rank."""
    head = []
    for need in needs:
        best = next((e for e in evidence if _satisfies(e, need, catalog) and e not in head), None)
        if best is not None:
            head.append(best)
    return head + [e for e in evidence if e not in head]


def _llm_filter(model: llm.TextModel | None, question: str, evidence: list) -> list:
    if model is None or not evidence:
        return evidence
    listing = "\n".join(f"[{i}] ({e.doc_id} p.{e.page}) {e.text[:700]}" for i, e in enumerate(evidence))
    try:
        reply = model.complete(
            "You select evidence for a question about SEC filings. Answer with a JSON list of the numbers of "
            "the passages that help answer it, most useful first, and nothing else.",
            f"Question: {question}\n\nPassages:\n{listing}", max_tokens=64)
        keep = [int(i) for i in json.loads(reply[reply.index("["): reply.rindex("]") + 1])]
    except (llm.LlmError, ValueError, TypeError) as exc:
        log.warning("LLM curation skipped: %s", exc)
        return evidence
    chosen = [evidence[i] for i in dict.fromkeys(keep) if 0 <= i < len(evidence)]
    return chosen or evidence
