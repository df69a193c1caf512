"""Hierarchical retrieval (HiREC): documents first, then pages and passages inside them, then curation.

1. *Analysis*: companies, fiscal years, quarters, forms (``query.analysis``).
2. *Documents*: hybrid search over cover summaries (k' candidates), restricted to the companies' documents
   when any were recognized, scored with metadata agreement (year, quarter, form) and passage votes; an
   optional cross-encoder reranks the candidates; the best ``doc_k`` are kept.
3. *Passages*: hybrid chunk search restricted to those documents, weighted by the document's rank, and
   optionally by FLAM Item weights (the question's lexicon terms) and by the Item trees (chunks under the
   best-matching summary/question nodes); the best chunk of each page stands for the page.
4. *Curation* (``query.curate``): relevance floor, near-duplicates, answerability, complementary queries.

This module orchestrates: what to search, in which order. Scores and page attribution are
``query.scoring``; the public models are ``query.api``.

Modes for evaluation: ``bm25``, ``dense`` and ``hybrid`` search chunks of the whole corpus in one step;
``hierarchical`` is the full pipeline above.
"""

from __future__ import annotations

import logging

import numpy as np

from kernel import llm
from kernel.embedder import cross_encoder, embed_texts
from kernel.models import ModelMismatch, same_model
from kernel.search import Filters, Hit, SearchBackend, open_backend
from kernel.search.base import alias_name
from kernel.settings import Settings
from query import scoring, timing
from query.analysis import QueryAnalysis, analyze
from query.api import MODES, Evidence, RetrievalOptions, SearchResult
from query.catalog import Catalog, DocInfo
from query.concepts import concept_map
from query.curate import Searcher, curate
from query.facts import (
    Fact,
    FactsError,
    FactsRequest,
    describe,
    fact_pages,
    find_facts,
    question_facts,
    synonym_concepts,
)
from query.plan import QueryPlan, make_plan
from query.scoring import ScoredDoc
from query.statements import CLOSINGS, QUERIES, best_heading_page, best_statement_page
from schemas.index import INDEXES

log = logging.getLogger(__name__)
__all__ = ["MODES", "Evidence", "RetrievalOptions", "Retriever", "SearchResult"]


class Retriever:
    """Reads only the published indexes, through their aliases. Thread-safe for concurrent queries."""

    def __init__(self, settings: Settings, backend: SearchBackend | None = None,
                 options: RetrievalOptions | None = None):
        self.settings = settings
        self.embedding = settings.embedding()
        self.backend = timing.instrument(backend or open_backend(settings))
        self.options = options or RetrievalOptions()
        self.catalog = Catalog(self.backend, settings.universe_csv)
        self._lexicon: list[dict] | None = None
        self._has_facts = False

    def alias(self, index: str) -> str:
        return alias_name(self.backend.prefix, index)

    def embed(self, text: str) -> np.ndarray:
        return embed_texts([text], self.embedding.model, self.embedding.backend)[0]

    def warm(self) -> None:
        """Load the engine's in-memory search structures for the published indexes before the first query
        (a server before taking traffic, a benchmark before timing)."""
        for name in ("documents", "passages"):
            if self.backend.alias_target(self.alias(name)):
                self.backend.warm(self.alias(name), INDEXES[name])

    def check_model(self, catalog: Catalog) -> None:
        """Questions must be embedded by the model the published vectors came from: comparing vectors of two
        models gives confident nonsense, so a mismatch is refused, naming both."""
        published = catalog.model
        if published and not same_model(published, self.embedding.model):
            raise ModelMismatch(f"the published indexes were embedded with {published!r}, but EMBEDDING_MODEL is "
                                f"{self.embedding.model!r}: query with EMBEDDING_MODEL={published} (or publish "
                                "an index built with the configured model)")

    # -- public
    def facts(self, request: FactsRequest) -> list[Fact]:
        """Reported figures by company, concept (or words) and fiscal period, with their pages (query.facts)."""
        for name in ("facts", "concepts"):
            if not self.backend.alias_target(self.alias(name)):
                raise FactsError(f"no {name} index is published ({self.alias(name)}): run `secplat index` and "
                                 "`secplat publish` over a lake with iXBRL filings")
        return find_facts(self.backend, self.backend.prefix, request)

    def search(self, question: str, k: int = 5, filters: Filters | None = None,
               options: RetrievalOptions | None = None) -> SearchResult:
        opts = options or self.options
        if opts.mode not in MODES:
            raise ValueError(f"unknown mode {opts.mode!r}; modes: {', '.join(MODES)}")
        question = " ".join(question.split())
        if not question:
            return SearchResult(question, [])
        with timing.clock() as timings:
            result = self._search(question, k, filters, opts)
        result.timings = timings
        return result

    def _search(self, question: str, k: int, filters: Filters | None, opts: RetrievalOptions) -> SearchResult:
        with timing.stage("analyze"):
            catalog = self.catalog.refresh()
            self.check_model(catalog)
            analysis = analyze(question, catalog.entities)
            plan = make_plan(analysis)
        with timing.stage("embed"):
            vector = self.embed(question)
        if opts.mode != "hierarchical":
            with timing.stage("flat"):
                hits = self._flat(plan.lexical, vector, filters, opts, max(k, 10) * 3)
                return SearchResult(question, scoring.pages(hits, catalog, "flat " + opts.mode)[:k], plan.as_dict())
        with timing.stage("documents"):
            docs = scoring.diversify(self.rank_documents(question, vector, analysis, filters, opts), analysis,
                                     opts.doc_k)
        with timing.stage("passages"):
            evidence = self.passages(question, vector, analysis, docs, filters, opts)
        result = SearchResult(question, evidence, plan.as_dict(),
                              [{"doc_id": d.doc_id, "score": round(s, 4), "reason": r} for d, s, r in docs])
        if opts.curate:
            with timing.stage("curate"):
                curate(result, analysis, opts, catalog, self._searcher(vector, filters, opts))
        result.evidence = result.evidence[: max(k, 1) if not opts.curate else min(opts.max_passages, max(k, 1))]
        return result

    def _searcher(self, vector, filters: Filters | None, opts: RetrievalOptions) -> Searcher:
        """What curation may ask of this retriever for one question (its vector, filters and options bound)."""
        return Searcher(
            rank_documents=lambda q, analysis: self.rank_documents(q, vector, analysis, filters, opts),
            find_pages=lambda q, analysis, docs: self.passages(q, self.embed(q), analysis, docs, filters, opts),
            llm=(lambda: llm.from_settings(self.settings)) if self.settings.llm_curation else None)

    # -- steps
    def _flat(self, question: str, vector, filters, opts: RetrievalOptions, k: int) -> list[Hit]:
        spec = INDEXES["passages"]
        if opts.mode == "bm25":
            return self.backend.bm25(self.alias("passages"), spec, question, filters, k)
        if opts.mode == "dense":
            return self.backend.knn(self.alias("passages"), spec, vector, filters, k)
        return self.backend.hybrid(self.alias("passages"), spec, question, vector, filters, k, opts.fusion,
                                   dense_weight=opts.dense_weight, window=opts.passage_window)

    def rank_documents(self, question: str, vector, analysis: QueryAnalysis, filters: Filters | None,
                       opts: RetrievalOptions) -> list[ScoredDoc]:
        plan = make_plan(analysis)
        catalog = self.catalog
        allowed = scoring.filter_docs(catalog.docs.values(), filters)
        if analysis.entities:
            keys = {e.key for e in analysis.entities}
            scoped = [d for d in allowed if d.entity in keys]
            allowed = scoped or allowed  # an entity without documents never empties the answer
        doc_filter = {"doc_id": sorted(d.doc_id for d in allowed)} if len(allowed) < len(catalog.docs) else None
        if doc_filter is not None and not doc_filter["doc_id"]:
            return []
        doc_hits = self.backend.hybrid(self.alias("documents"), INDEXES["documents"], plan.lexical, vector, doc_filter,
                                       opts.doc_candidates, opts.fusion, dense_weight=opts.dense_weight)
        passage_hits = self.backend.hybrid(self.alias("passages"), INDEXES["passages"], plan.lexical, vector,
                                           self._voters(allowed, doc_hits, doc_filter, plan, opts), 30, opts.fusion,
                                           dense_weight=opts.dense_weight)
        scored = scoring.score_documents(allowed, doc_hits, passage_hits, plan)
        if opts.reranker and scored:
            head = max(opts.doc_k * 4, 20)  # the reranker sees the best candidates only: it costs ~50 ms a pair
            scored = self._rerank_docs(question, scored[:head], opts.reranker) + scored[head:]
        return scored

    @staticmethod
    def _voters(allowed: list[DocInfo], doc_hits: list[Hit], doc_filter: Filters | None, plan: QueryPlan,
                opts: RetrievalOptions) -> Filters | None:
        """The documents whose passages vote: all the allowed ones up to ``vote_docs``, else the best by plan
        tier and then by the document search's rank, so the vote costs a few documents' rows however many
        filings the named companies have."""
        if doc_filter is None or len(allowed) <= opts.vote_docs:
            return doc_filter
        rank = {h.id: n for n, h in enumerate(doc_hits)}
        tiers = scoring.document_tiers(allowed, plan)
        best = sorted(allowed, key=lambda d: (tiers[d.doc_id][0], rank.get(d.doc_id, len(rank)), d.doc_id))
        return {"doc_id": [d.doc_id for d in best[:opts.vote_docs]]}

    def passages(self, question: str, vector, analysis: QueryAnalysis, docs: list[ScoredDoc],
                 filters: Filters | None, opts: RetrievalOptions) -> list[Evidence]:
        if not docs:
            return []
        plan = make_plan(analysis)
        doc_weight = scoring.document_weights(docs, plan)
        doc_filter = {**(filters or {}), "doc_id": list(doc_weight)}
        hits = self.backend.hybrid(self.alias("passages"), INDEXES["passages"], plan.lexical, vector, doc_filter,
                                   opts.passage_window, opts.fusion,
                                   dense_weight=opts.dense_weight, window=opts.passage_window)
        if not hits:
            return []
        item_weights = scoring.flam_weights(self.lexicon(), question) if opts.flam else {}
        tree_chunks = self.tree_chunks(question, vector, list(doc_weight)) if opts.trees else set()
        rescored = scoring.rescore_passages(hits, doc_weight, item_weights, tree_chunks, plan.items, opts.item_boost)
        if opts.reranker:
            rescored = self._rerank_passages(question, rescored[:20], opts.reranker) + rescored[20:]
        if opts.statements:
            with timing.stage("statements"):
                pinned = self.statement_pages(plan, docs, filters, rescored[0].score if rescored else 1.0)
            rescored = pinned + rescored
        if opts.facts:
            with timing.stage("facts"):
                rescored = self.fact_pins(plan, docs, filters, rescored[0].score if rescored else 1.0) + rescored
        return scoring.pages(rescored, self.catalog, "hybrid match in a selected document", opts.page_coverage)

    def statement_pages(self, plan: QueryPlan, docs: list[ScoredDoc], filters: Filters | None,
                        top: float) -> list[Hit]:
        """The pages the plan's evidence names, in the best document of each company (two at most), pinned
        first: each statement's first page outside MD&A (found by its title over a table of figures), and its
        next page when the statement does not close on the first; each note's heading page; the cover."""
        best: dict[str | None, DocInfo] = {}
        for d, _, _ in docs:
            best.setdefault(d.entity, d)
        pinned: list[Hit] = []

        def pin(source: dict, chunk_id: str, page: int, reason: str) -> None:
            pinned.append(Hit(chunk_id, top * (1.02 - 0.01 * len(pinned)),
                              {**source, "_page": page, "_reason": reason}))

        for d in list(best.values())[:2]:
            scope = {**(filters or {}), "doc_id": d.doc_id}
            for statement in plan.statements:
                hits = self._bm25_passages(QUERIES[statement], scope, 100)
                found = best_statement_page(statement, [h.source for h in hits])
                if found:
                    page, source = found
                    pin(source, source["chunk_id"], page, f"the {statement} (asked for)")
                    following = self._continuation(statement, scope, page)
                    if following is not None:
                        pin(following, following["chunk_id"], page + 1, f"the {statement}, continued")
            for name in plan.notes:
                note = concept_map().notes[name]
                hits = self._bm25_passages(note.query, scope, 50)
                found = best_heading_page(note.title, [h.source for h in hits])
                if found:
                    page, source = found
                    pin(source, source["chunk_id"], page, f"the note on {name} ({', '.join(plan.concepts)})")
            if plan.cover:
                hits = self._bm25_passages(plan.lexical, {**scope, "page_start": 0}, 1)
                if hits:
                    pin(hits[0].source, hits[0].id, 0, "the cover page (registered securities)")
        return pinned

    def fact_pins(self, plan: QueryPlan, docs: list[ScoredDoc], filters: Filters | None, top: float) -> list[Hit]:
        """Metric questions over iXBRL filings: in the best document of each company (two at most), the pages
        that print the facts the question names, pinned first with the facts as the reason. Documents without
        facts (PDFs, filings before iXBRL) pin nothing: the statements' pages and the search stand."""
        if not self._facts_published():
            return []
        best: dict[str | None, DocInfo] = {}
        for d, _, _ in docs:
            best.setdefault(d.entity, d)
        names = [e.name for e in plan.analysis.entities] + [n for d in best.values() for n in (d.company, d.ticker)]
        metric = not plan.narrative and (plan.figure or bool(synonym_concepts(plan.core)))
        pins: list[Hit] = []
        for d in list(best.values())[:2] if metric else []:
            found = question_facts(self.backend, self.backend.prefix, plan.core, names, d.doc_id)
            for page, facts in fact_pages(found, plan.target_year or d.fiscal_year):
                scope = {**(filters or {}), "doc_id": d.doc_id, "page_start": [page - 1, page]}
                hits = [h for h in self._bm25_passages(plan.lexical, scope, 20)
                        if int(h.source["page_start"]) <= page <= int(h.source["page_end"])]
                if hits:
                    pins.append(Hit(hits[0].id, top * (1.05 - 0.01 * len(pins)),
                                    {**hits[0].source, "_page": page, "_reason": f"reports {describe(facts)}"}))
        return pins

    def _facts_published(self) -> bool:
        """Whether facts are served; asked again until they are (a server may outlive the first publish)."""
        if not self._has_facts:
            self._has_facts = all(self.backend.alias_target(self.alias(n)) for n in ("facts", "concepts"))
        return self._has_facts

    def _bm25_passages(self, text: str, scope: Filters, k: int) -> list[Hit]:
        return self.backend.bm25(self.alias("passages"), INDEXES["passages"], text, scope, k)

    def _continuation(self, statement: str, scope: Filters, page: int) -> dict | None:
        """A chunk of the next page when the statement does not close on ``page`` (a balance sheet's
        liabilities, a cash flow statement's financing activities), else None."""
        hits = self._bm25_passages(f"{QUERIES[statement]} total net cash", {**scope, "page_start": [page, page + 1]},
                                   40)
        on_page = " ".join(h.source.get("text") or "" for h in hits if int(h.source["page_start"]) == page)
        following = [h.source for h in hits if int(h.source["page_start"]) == page + 1]
        if not on_page or not following or CLOSINGS[statement].search(on_page):
            return None
        return following[0]

    # -- FLAM and trees
    def lexicon(self) -> list[dict]:
        """The published FLAM lexicon's terms and Item weights (read once per process)."""
        if self._lexicon is None:
            alias = self.alias("lexicon")
            self._lexicon = (self.backend.scan(alias, INDEXES["lexicon"], ["term", "item_weights"])
                             if self.backend.alias_target(alias) else [])
        return self._lexicon

    def flam_weights(self, question: str) -> dict[str, float]:
        """'<form>:<item>' -> mean weight over the lexicon terms the question contains."""
        return scoring.flam_weights(self.lexicon(), question)

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
        scores = cross_encoder(model).predict([(question, rows.get(d.doc_id, {}).get("cover_summary", ""))
                                               for d, _, _ in scored])
        return sorted([(d, float(s) + b, r + ", reranked") for (d, b, r), s in zip(scored, scores, strict=True)],
                      key=lambda t: -t[1])

    def _rerank_passages(self, question, hits: list[Hit], model) -> list[Hit]:
        scores = cross_encoder(model).predict([(question, h.source["text"]) for h in hits])
        return [Hit(h.id, float(s), {**h.source, "_reason": "cross-encoder"})
                for h, s in sorted(zip(hits, scores, strict=True), key=lambda t: -t[1])]
