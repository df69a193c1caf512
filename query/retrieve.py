"""Hierarchical retrieval (HiREC): documents first, then pages and passages inside them, then curation.

1. *Analysis*: companies, fiscal years, quarters, forms (``query.analysis``).
2. *Documents*: hybrid search over cover summaries (k' candidates), restricted to the companies' documents
   when any were recognized, scored with metadata agreement (year, quarter, form) and passage votes; an
   optional cross-encoder reranks the candidates; the best ``doc_k`` are kept.
3. *Passages*: hybrid chunk search restricted to those documents, weighted by the document's rank, and
   optionally by FLAM Item weights (the question's lexicon terms) and by the Item trees (chunks under the
   best-matching summary/question nodes); the best chunk of each page stands for the page.
4. *Curation* (``query.curate``): relevance floor, near-duplicates, answerability, complementary queries.

Modes for evaluation: ``bm25``, ``dense`` and ``hybrid`` search chunks of the whole corpus in one step;
``hierarchical`` is the full pipeline above.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, Field

from indexing.backends import Filters, Hit, SearchBackend, open_backend
from indexing.backends.base import alias_name
from indexing.embedder import embed_texts
from query.analysis import QueryAnalysis, analyze
from query.catalog import Catalog, DocInfo
from schemas.index import INDEXES
from secplat.config import Settings

log = logging.getLogger(__name__)
MODES = ("bm25", "dense", "hybrid", "hierarchical")


@dataclass
class RetrievalOptions:
    mode: str = "hierarchical"
    doc_candidates: int = 100  # k'
    doc_k: int = 5  # k_D
    passage_window: int = 100
    fusion: str = "rrf"
    flam: bool = True  # weight passages by the Items the question's lexicon terms point to
    trees: bool = False  # boost chunks under the best-matching tree nodes
    statements: bool = True  # metric questions: the statements' own pages first (query.statements)
    curate: bool = True
    max_iterations: int = 3
    max_passages: int = 10
    relevance_floor: float = 0.25  # of the best passage's score
    reranker: str | None = None  # cross-encoder name or path


class Evidence(BaseModel):
    """One evidence item: a page of a document, represented by its best passage."""

    doc_id: str
    source_name: str | None
    company: str | None
    ticker: str | None
    form: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    item: str
    item_title: str
    page: int = Field(description="0-based page of the document's PDF")
    chunk_id: str
    text: str
    score: float
    reason: str = ""

    def as_dict(self) -> dict:
        return self.model_dump()


@dataclass
class SearchResult:
    question: str
    evidence: list[Evidence]
    analysis: dict = field(default_factory=dict)
    documents: list[dict] = field(default_factory=list)  # the selected documents with their scores
    iterations: list[dict] = field(default_factory=list)  # what each curation round did

    def as_dict(self) -> dict:
        return {"question": self.question, "analysis": self.analysis, "documents": self.documents,
                "iterations": self.iterations, "evidence": [e.as_dict() for e in self.evidence]}


class Retriever:
    """Reads only the published indexes, through their aliases. Thread-safe for concurrent queries."""

    def __init__(self, settings: Settings, backend: SearchBackend | None = None,
                 options: RetrievalOptions | None = None):
        self.settings = settings
        self.backend = backend or open_backend(settings)
        self.options = options or RetrievalOptions()
        self.catalog = Catalog(self.backend, settings.universe_csv)
        self._lexicon: list[dict] | None = None

    def alias(self, index: str) -> str:
        return alias_name(self.backend.prefix, index)

    def embed(self, text: str) -> np.ndarray:
        return embed_texts([text], self.settings.embedding_model, self.settings.embedding_backend)[0]

    # -- public
    def search(self, question: str, k: int = 5, filters: Filters | None = None,
               options: RetrievalOptions | None = None) -> SearchResult:
        from query.curate import curate

        opts = options or self.options
        if opts.mode not in MODES:
            raise ValueError(f"unknown mode {opts.mode!r}; modes: {', '.join(MODES)}")
        question = " ".join(question.split())
        if not question:
            return SearchResult(question, [])
        catalog = self.catalog.refresh()
        analysis = analyze(question, catalog.entities)
        vector = self.embed(question)
        if opts.mode != "hierarchical":
            hits = self._flat(question, vector, filters, opts, max(k, 10) * 3)
            return SearchResult(question, _pages(hits, catalog, "flat " + opts.mode)[:k], analysis.as_dict())
        docs = _diversify(self.rank_documents(question, vector, analysis, filters, opts), analysis, opts.doc_k)
        evidence = self.passages(question, vector, analysis, docs, filters, opts)
        result = SearchResult(question, evidence, analysis.as_dict(),
                              [{"doc_id": d.doc_id, "score": round(s, 4), "reason": r} for d, s, r in docs])
        if opts.curate:
            curate(self, result, analysis, vector, filters, opts, k)
        result.evidence = result.evidence[: max(k, 1) if not opts.curate else min(opts.max_passages, max(k, 1))]
        return result

    # -- steps
    def _flat(self, question: str, vector, filters, opts: RetrievalOptions, k: int) -> list[Hit]:
        spec = INDEXES["passages"]
        if opts.mode == "bm25":
            return self.backend.bm25(self.alias("passages"), spec, question, filters, k)
        if opts.mode == "dense":
            return self.backend.knn(self.alias("passages"), spec, vector, filters, k)
        return self.backend.hybrid(self.alias("passages"), spec, question, vector, filters, k, opts.fusion,
                                   window=opts.passage_window)

    def rank_documents(self, question: str, vector, analysis: QueryAnalysis, filters: Filters | None,
                       opts: RetrievalOptions) -> list[tuple[DocInfo, float, str]]:
        catalog = self.catalog
        allowed = _filter_docs(catalog.docs.values(), filters)
        if analysis.entities:
            keys = {e.key for e in analysis.entities}
            scoped = [d for d in allowed if d.entity in keys]
            allowed = scoped or allowed  # an entity without documents never empties the answer
        doc_filter = {"doc_id": sorted(d.doc_id for d in allowed)} if len(allowed) < len(catalog.docs) else None
        if doc_filter is not None and not doc_filter["doc_id"]:
            return []
        hits = self.backend.hybrid(self.alias("documents"), INDEXES["documents"], question, vector, doc_filter,
                                   opts.doc_candidates, opts.fusion)
        base = {h.id: 1.0 - i / max(1, len(hits)) for i, h in enumerate(hits)}  # rank-based, in [0, 1]
        # Passage votes: documents whose chunks answer the question directly.
        votes: dict[str, float] = {}
        passage_hits = self.backend.hybrid(self.alias("passages"), INDEXES["passages"], question, vector,
                                           doc_filter, 30, opts.fusion)
        for rank, h in enumerate(passage_hits):
            votes[h.source["doc_id"]] = votes.get(h.source["doc_id"], 0.0) + 1.0 / (rank + 3)
        top_vote = max(votes.values(), default=1.0)
        scored = []
        for d in allowed:
            if d.doc_id not in base and d.doc_id not in votes:
                continue
            score, reasons = 0.5 * base.get(d.doc_id, 0.0) + 0.5 * votes.get(d.doc_id, 0.0) / top_vote, []
            bonus, why = _metadata_bonus(d, analysis)
            scored.append((d, score + bonus, ", ".join([*reasons, *why]) or "text match"))
        scored.sort(key=lambda t: (-t[1], t[0].doc_id))
        if opts.reranker and scored:
            head = max(opts.doc_k * 4, 20)  # the reranker sees the best candidates only: it costs ~50 ms a pair
            scored = self._rerank_docs(question, scored[:head], opts.reranker) + scored[head:]
        return scored

    def passages(self, question: str, vector, analysis: QueryAnalysis, docs: list[tuple[DocInfo, float, str]],
                 filters: Filters | None, opts: RetrievalOptions) -> list[Evidence]:
        if not docs:
            return []
        # Rank within the document's company, so a comparison's second company is not discounted.
        seen: dict[str | None, int] = {}
        doc_weight = {}
        for d, _, _ in docs:
            doc_weight[d.doc_id] = 0.85 ** seen.get(d.entity, 0)
            seen[d.entity] = seen.get(d.entity, 0) + 1
        doc_filter = {**(filters or {}), "doc_id": list(doc_weight)}
        hits = self.backend.hybrid(self.alias("passages"), INDEXES["passages"], question, vector, doc_filter,
                                   opts.passage_window, opts.fusion, window=opts.passage_window)
        if not hits:
            return []
        top = hits[0].score or 1.0
        item_weights = self.flam_weights(question) if opts.flam else {}
        tree_chunks = self.tree_chunks(question, vector, list(doc_weight)) if opts.trees else set()
        rescored = []
        for h in hits:
            s = h.source
            score = (h.score / top) * doc_weight.get(s["doc_id"], 0.5)
            reasons = []
            w = item_weights.get(f"{s.get('form')}:{s.get('item')}")
            if w:
                score *= 1.0 + 0.5 * w
                reasons.append(f"FLAM weight {w:.2f} for Item {s.get('item')}")
            if h.id in tree_chunks:
                score *= 1.15
                reasons.append("under a matching tree node")
            rescored.append(Hit(h.id, score, {**s, "_reason": "; ".join(reasons)}))
        rescored.sort(key=lambda h: (-h.score, h.id))
        if opts.reranker:
            rescored = self._rerank_passages(question, rescored[:20], opts.reranker) + rescored[20:]
        if opts.statements:
            pinned = self.statement_pages(question, docs, filters, rescored[0].score if rescored else 1.0)
            rescored = pinned + rescored
        return _pages(rescored, self.catalog, "hybrid match in a selected document")

    def statement_pages(self, question: str, docs: list[tuple[DocInfo, float, str]], filters: Filters | None,
                        top: float) -> list[Hit]:
        """For a metric question, the pages of the statements it needs in the best document of each company
        (first page of each statement outside MD&A; lexical search on the statements' titles finds the
        candidates)."""
        from query.statements import QUERIES, best_statement_page, statements_for

        needed = statements_for(question)
        if not needed:
            return []
        best: dict[str | None, DocInfo] = {}
        for d, _, _ in docs:
            best.setdefault(d.entity, d)
        pinned = []
        for d in list(best.values())[:2]:
            for statement in needed:
                hits = self.backend.bm25(self.alias("passages"), INDEXES["passages"], QUERIES[statement],
                                         {**(filters or {}), "doc_id": d.doc_id}, 100)
                found = best_statement_page(statement, [h.source for h in hits])
                if found:
                    page, source = found
                    h = next(h for h in hits if h.source is source)
                    pinned.append(Hit(h.id, top * (1.02 - 0.01 * len(pinned)),
                                      {**source, "_page": page, "_reason": f"the {statement} (asked for)"}))
        return pinned

    # -- FLAM and trees
    def flam_weights(self, question: str) -> dict[str, float]:
        """'<form>:<item>' -> mean weight over the lexicon terms the question contains."""
        if self._lexicon is None:
            alias = self.alias("lexicon")
            self._lexicon = (self.backend.scan(alias, INDEXES["lexicon"], ["term", "item_weights"])
                             if self.backend.alias_target(alias) else [])
        text = " " + " ".join(w.lower() for w in question.replace("-", " ").split()) + " "
        matched = [t for t in self._lexicon if f" {t['term']} " in text]
        totals: dict[str, float] = {}
        for t in matched:
            for key, w in (t["item_weights"].items() if isinstance(t["item_weights"], dict) else t["item_weights"]):
                totals[key] = totals.get(key, 0.0) + w / len(matched)
        return totals

    def tree_chunks(self, question: str, vector, doc_ids: list[str]) -> set[str]:
        alias = self.alias("tree_nodes")
        if not self.backend.alias_target(alias):
            return set()
        hits = self.backend.hybrid(alias, INDEXES["tree_nodes"], question, vector,
                                   {"doc_id": doc_ids, "level": 1}, 6, "rrf")
        return {c for h in hits[:3] for c in (h.source.get("chunk_ids") or [])}

    # -- optional cross-encoder
    def _rerank_docs(self, question, scored, model):
        rows = {r["doc_id"]: r for r in self.backend.get(self.alias("documents"), INDEXES["documents"],
                                                         [d.doc_id for d, _, _ in scored])}
        scores = _cross_encoder(model).predict([(question, rows.get(d.doc_id, {}).get("cover_summary", ""))
                                                for d, _, _ in scored])
        return sorted([(d, float(s) + b, r + ", reranked") for (d, b, r), s in zip(scored, scores, strict=True)],
                      key=lambda t: -t[1])

    def _rerank_passages(self, question, hits: list[Hit], model) -> list[Hit]:
        scores = _cross_encoder(model).predict([(question, h.source["text"]) for h in hits])
        return [Hit(h.id, float(s), {**h.source, "_reason": "cross-encoder"})
                for h, s in sorted(zip(hits, scores, strict=True), key=lambda t: -t[1])]


@functools.lru_cache(maxsize=2)
def _cross_encoder(name_or_path: str):
    from sentence_transformers import CrossEncoder

    from secplat.models import offline, resolve_model

    offline()
    return CrossEncoder(resolve_model(name_or_path), device="cpu", num_labels=1)  # one relevance logit


def _diversify(scored: list, analysis: QueryAnalysis, k: int) -> list:
    """The best ``k`` documents, taken round-robin over the named companies when there are several."""
    keys = [e.key for e in analysis.entities]
    if len(keys) < 2:
        return scored[:k]
    queues = {key: [t for t in scored if t[0].entity == key] for key in keys}
    out: list = []
    while len(out) < k and any(queues.values()):
        for key in keys:
            if queues[key] and len(out) < k:
                out.append(queues[key].pop(0))
    rest = [t for t in scored if t not in out]
    return out + rest[: k - len(out)]


def _filter_docs(docs, filters: Filters | None) -> list[DocInfo]:
    out = list(docs)
    for name, value in (filters or {}).items():
        values = set(value) if isinstance(value, (list, tuple, set)) else {value}
        if name in DocInfo.__dataclass_fields__:
            out = [d for d in out if getattr(d, name) in values]
    return out


def _metadata_bonus(d: DocInfo, a: QueryAnalysis) -> tuple[float, list[str]]:
    bonus, why = 0.0, []
    if a.entities and d.entity in {e.key for e in a.entities}:
        why.append("company named in the question")
    if a.years and d.fiscal_year:
        latest = max(a.years)
        if d.fiscal_year == latest:
            bonus += 0.6
            why.append(f"fiscal {latest}")
        elif d.fiscal_year in a.years:
            bonus += 0.4
            why.append(f"fiscal {d.fiscal_year}")
        elif d.fiscal_year == latest + 1:
            bonus += 0.15
            why.append(f"fiscal {d.fiscal_year} (reports {latest} as prior year)")
    if a.quarters:
        if d.fiscal_period and d.fiscal_period.upper() in {f"Q{q}" for q in a.quarters}:
            bonus += 0.3
            why.append(f"quarter {d.fiscal_period}")
    elif a.years and d.form == "10-K":
        bonus += 0.1  # a fiscal-year question without a quarter is most often answered by the annual report
    if a.forms and d.form in a.forms:
        bonus += 0.3
        why.append(d.form)
    return bonus, why


def evidence_page(chunk: dict) -> int:
    """The page holding most of a chunk. A text chunk is verbatim page text: the tail of ``page_start`` from
    ``char_start``, a newline, ..., the head of ``page_end`` up to ``char_end``; a chunk that starts with the
    last lines of one page and runs on into the next (a statement's title and table) belongs to the next."""
    if chunk.get("_page") is not None:
        return int(chunk["_page"])
    start = int(chunk.get("page_start") or 0)
    end = int(chunk.get("page_end") or start)
    if end <= start or chunk.get("kind", "text") != "text":
        return start
    on_last = int(chunk.get("char_end") or 0)
    on_first = len(chunk.get("text") or "") - on_last - (end - start)
    if end - start > 1:  # the middle pages are wholly inside: the chunk's body is there
        return start + 1 if on_first < on_last else end - 1
    return end if on_last > on_first else start


def _pages(hits: list[Hit], catalog: Catalog, reason: str) -> list[Evidence]:
    """One evidence item per (document, page): the page's best chunk."""
    seen: set[tuple[str, int]] = set()
    out = []
    for h in hits:
        s = h.source
        page = evidence_page(s)
        if (s["doc_id"], page) in seen:
            continue
        seen.add((s["doc_id"], page))
        info = catalog.docs.get(s["doc_id"])
        out.append(Evidence(
            doc_id=s["doc_id"], source_name=s.get("source_name") or (info.source_name if info else None),
            company=s.get("company"), ticker=s.get("ticker"), form=s.get("form"), fiscal_year=s.get("fiscal_year"),
            fiscal_period=s.get("fiscal_period"), item=s.get("item", ""), item_title=s.get("item_title", ""),
            page=page, chunk_id=h.id, text=s.get("text", ""), score=round(float(h.score), 6),
            reason=s.get("_reason") or reason))
    return out
