"""Hierarchical retrieval (HiREC) as one pipeline of named stages over one query plan.

``Retriever.search`` runs, each stage a method taking the question (its plan, vector, filters and options:
:class:`Question`) and what the stage before produced; ``--explain`` books each under its name:

1. ``plan`` (timed as ``analyze`` and ``embed``): companies, years, quarters and forms (``query.analysis``),
   the plan's concepts, evidence and document rules (``query.plan``), the question's vector; built once.
2. ``documents``: hybrid search over cover summaries (k' candidates), restricted to the named companies'
   documents, scored by rank, passage votes and the plan's tiers (``query.scoring``); an optional
   cross-encoder reranks them; the best ``doc_k`` kept (round-robin over named companies).
3. ``passages``: hybrid chunk search restricted to those documents, rescored by document weight (and
   optionally FLAM Item weights and the Item trees).
4. ``pins`` (timed as ``statements`` and ``facts``): the pages the plan's evidence names (statements,
   notes, cover) and the pages printing the named iXBRL facts, first; then one evidence item per page.
5. ``curate`` (``query.curate``): relevance floor, near-duplicates, answerability; each complementary
   query is a follow-up :class:`Question` whose plan derives from this one's and runs stages 2-4.

Modes for evaluation: ``bm25``, ``dense`` and ``hybrid`` search chunks of the whole corpus in one step;
``hierarchical`` is the pipeline above. Scores and page attribution are ``query.scoring``; the public
models ``query.api``; the clients come in a ``kernel.resources.Resources``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from domain.sec_items import MDNA_ITEMS
from domain.statements import Section
from domain.text import clean_question
from kernel import timing
from kernel.company_directory import read_directory
from kernel.embedder import cross_encoder
from kernel.layout import ranker_key
from kernel.models import ModelMismatch, same_model
from kernel.resources import Resources
from kernel.search import Filters, Hit, SearchBackend
from kernel.search.base import NotPublished, Release, check_filters
from query import scoring
from query.analysis import Entity, analyze
from query.api import MODES, RANKERS, Evidence, RetrievalOptions, SearchResult
from query.catalog import Catalog, DocInfo
from query.concepts import concept_map
from query.coverage import period_notes, taken_notes
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
from query.page_order import page_order, question_kind
from query.plan import QueryPlan, follow_up_plan, make_plan
from query.ranker import CANDIDATES, PageRanker, page_features
from query.scoring import ScoredDoc
from query.statements import CLOSINGS, QUERIES, best_heading_page, best_section_page, best_statement_page
from schemas.index import INDEXES

log = logging.getLogger(__name__)
__all__ = ["MODES", "Evidence", "Question", "RetrievalOptions", "Retriever", "SearchResult"]
NARRATIVE_PINS = 2  # MD&A pages pinned for a question asking what drove a change
PINNED_DOCUMENTS = 2  # pins look in the best document of each company, for this many companies
RANKER_RECHECK_S = 10.0  # how often a release without a page ranker looks for one


class Snapshot:
    """What one release serves, as a query reads it: each index's target, the document catalog, whether
    facts are published, and the FLAM lexicon (read on first use). Built once per release; a query holds
    the snapshot it started with, so a publish during it changes nothing it reads."""

    def __init__(self, backend: SearchBackend, release: Release | None, universe_csv: str | None,
                 load_ranker: Callable[[str, bool], PageRanker | None] | None = None,
                 previous: Snapshot | None = None, directory: tuple[dict, ...] = ()):
        """``previous``: the snapshot of the release before, whose catalog this one's is built from;
        ``directory``: the lake's company directory (EDGAR's names of the companies)."""
        self.release = release
        self.id = release.id if release else None
        self.targets = dict(release.targets) if release else {}
        self.catalog = Catalog(backend, universe_csv, self.targets.get("documents"),
                               previous.catalog if previous is not None else None, directory)
        self.has_facts = all(n in self.targets for n in ("facts", "concepts"))
        self._backend = backend
        self._lexicon: list[dict] | None = None
        self._load_ranker = load_ranker
        self._ranker: tuple[PageRanker | None, float] = (None, -math.inf)  # (model, when last looked for)
        self._lock = threading.Lock()

    def target(self, index: str) -> str:
        target = self.targets.get(index)
        if target is None:
            raise NotPublished(f"no {index} index is published: run `secplat index` and `secplat publish`")
        return target

    def lexicon(self) -> list[dict]:
        """The release's FLAM lexicon: terms and Item weights (empty when none is published)."""
        with self._lock:
            if self._lexicon is None:
                self._lexicon = (self._backend.scan(self.targets["lexicon"], INDEXES["lexicon"],
                                                    ["term", "item_weights"]) if "lexicon" in self.targets else [])
            return self._lexicon

    def ranker(self) -> PageRanker | None:
        """The learned page ranker trained for this release, or None (the rules rank its pages). A release
        goes live before its model is trained (the train stage follows publish): without one, the snapshot
        looks again every ``RANKER_RECHECK_S``, so a server picks the model up without a new release."""
        with self._lock:
            model, checked = self._ranker
            now = time.monotonic()
            if model is None and self._load_ranker and self.id and now - checked >= RANKER_RECHECK_S:
                model = self._load_ranker(self.id, checked == -math.inf)  # says so the first time only
                self._ranker = (model, now)
            return model


@dataclass(frozen=True)
class Question:
    """What every stage reads: the text searched, its plan, its vector, the caller's filters and options,
    and the release snapshot every engine call of this query reads."""

    text: str
    plan: QueryPlan
    vector: np.ndarray
    filters: Filters | None
    opts: RetrievalOptions
    snap: Snapshot


class Retriever:
    """Reads only the published indexes, of the release live when each query starts (a new release is
    picked up by the next query, without restart). Thread-safe for concurrent queries."""

    def __init__(self, resources: Resources, options: RetrievalOptions | None = None):
        self.resources = resources
        self.backend = resources.timed_backend
        self.options = options or RetrievalOptions(ranker=resources.settings.page_ranker)
        self._universe = resources.settings.universe_if_any()
        self._snap: Snapshot | None = None
        self._snap_lock = threading.Lock()

    def snapshot(self) -> Snapshot:
        """The live release's snapshot: one cheap check of the live release per call, a new snapshot when it
        changed (the engine then frees what it kept for the old one's targets)."""
        release = self.backend.live_release()
        rid = release.id if release else None
        snap = self._snap
        if snap is not None and snap.id == rid:
            return snap
        with self._snap_lock:
            snap = self._snap
            if snap is None or snap.id != rid:
                directory = tuple(r.model_dump() for r in read_directory(self.resources.lake).values())
                snap = Snapshot(self.backend, release, self._universe, self._load_ranker, snap, directory)
                self._snap = snap
                self.backend.retain(set(snap.targets.values()))
        return snap

    @property
    def catalog(self) -> Catalog:
        return self.snapshot().catalog

    def embed(self, text: str) -> np.ndarray:
        return self.resources.embedder.embed_one(text)

    def warm(self) -> None:
        """Load the engine's in-memory search structures for the published indexes before the first query
        (a server before taking traffic, a benchmark before timing)."""
        snap = self.snapshot()
        for name in ("documents", "passages"):
            if name in snap.targets:
                self.backend.warm(snap.targets[name], INDEXES[name])

    def check_model(self, catalog: Catalog) -> None:
        """Questions must be embedded by the model the published vectors came from: comparing vectors of two
        models gives confident nonsense, so a mismatch is refused, naming both."""
        published, configured = catalog.model, self.resources.embedder.spec.model
        if published and not same_model(published, configured):
            raise ModelMismatch(f"the published indexes were embedded with {published!r}, but EMBEDDING_MODEL is "
                                f"{configured!r}: query with EMBEDDING_MODEL={published} (or publish "
                                "an index built with the configured model)")

    # -- public
    def facts(self, request: FactsRequest) -> list[Fact]:
        """Reported figures by company, concept (or words) and fiscal period, with their pages (query.facts)."""
        snap = self.snapshot()
        for name in ("facts", "concepts"):
            if name not in snap.targets:
                raise FactsError(f"no {name} index is published: run `secplat index` and "
                                 "`secplat publish` over a lake with iXBRL filings")
        return find_facts(self.backend, snap.targets, request)

    def search(self, question: str, k: int = 5, filters: Filters | None = None,
               options: RetrievalOptions | None = None) -> SearchResult:
        """The pipeline: plan -> documents -> passages -> pins -> curate (module docstring)."""
        opts = options or self.options
        if opts.mode not in MODES:
            raise ValueError(f"unknown mode {opts.mode!r}; modes: {', '.join(MODES)}")
        if opts.ranker not in RANKERS:
            raise ValueError(f"unknown ranker {opts.ranker!r}; rankers: {', '.join(RANKERS)}")
        text = clean_question(question)
        if not text:
            return SearchResult(text, [])
        with timing.clock() as timings:
            snap = self.snapshot()
            filters = document_filters(snap.catalog, filters)  # FilterError names a bad field or value
            if filters is not None and filters.get("doc_id") == []:
                return SearchResult(text, [], release=snap.id)
            q = self.plan(text, filters, opts, snap)
            if opts.mode != "hierarchical":
                with timing.stage("flat"):
                    result = SearchResult(text, self.flat(q, max(k, 10) * 3)[:k], q.plan.as_dict(), release=snap.id)
            else:
                with timing.stage("documents"):
                    docs = self.documents(q)
                with timing.stage("passages"):
                    evidence = self.evidence(q, docs)
                model = snap.ranker() if page_order(q.plan, opts.ranker) == "learned" else None
                if model is not None:
                    with timing.stage("rank"):
                        evidence = self.rank_pages(q, docs, evidence, model)
                entity_of = {d.doc.doc_id: d.doc.entity for d in docs}
                evidence = scoring.company_turns(evidence, entity_of, [e.key for e in q.plan.analysis.entities])
                result = SearchResult(text, evidence, {**q.plan.as_dict(), "kind": question_kind(q.plan)},
                                      [{"doc_id": d.doc.doc_id, "score": round(d.score, 4), "reason": d.why}
                                       for d in docs], release=snap.id,
                                      page_order="learned" if model is not None else "rules")
                if opts.curate:
                    with timing.stage("curate"):
                        curate(result, q.plan, opts, snap.catalog, self._searcher(q))
                result.evidence = result.evidence[:min(opts.max_passages, max(k, 1)) if opts.curate else max(k, 1)]
                result.company_pages = company_pages(q.plan, entity_of, result.evidence)
                newest = scoring.newest_reports((d.doc for d in docs), scoring.newest_forms(q.plan))
                result.period_taken = taken_notes(
                    q.plan.target_year, q.plan.analysis.quarters, newest,
                    {d.doc_id: scoring.previous_report(d, [t.doc for t in docs]) for d in newest}, result.evidence)
        result.timings = timings
        result.missing_periods = period_notes(q.plan.target_year, q.plan.analysis.quarters, result.evidence,
                                              snap.catalog.docs, [e.key for e in q.plan.analysis.entities])
        result.unindexed = [_company(e) for e in snap.catalog.entities.unindexed(text)]
        result.ambiguous_names = [ambiguity(word, found, snap.catalog.entities.searchable)
                                  for word, found in snap.catalog.entities.ambiguous(text)]
        return result

    # -- stage 1: the plan, built once
    def plan(self, text: str, filters: Filters | None, opts: RetrievalOptions, snap: Snapshot | None = None) -> Question:
        with timing.stage("analyze"):
            snap = snap or self.snapshot()
            self.check_model(snap.catalog)
            plan = make_plan(analyze(text, snap.catalog.entities))
        with timing.stage("embed"):
            vector = self.embed(text)
        return Question(text, plan, vector, filters, opts, snap)

    def follow_up(self, parent: Question, entity: Entity | None, year: int | None) -> Question:
        """A complementary query for curation: the parent's plan narrowed to one company (and year), its text
        naming the company when the question does not."""
        text = parent.text
        if entity and entity.name.lower() not in text.lower():
            text = f"{entity.name} {text}"
        return Question(text, follow_up_plan(parent.plan, entity, year), self.embed(text), parent.filters,
                        parent.opts, parent.snap)

    def flat(self, q: Question, k: int) -> list[Evidence]:
        spec, alias, opts = INDEXES["passages"], q.snap.target("passages"), q.opts
        if opts.mode == "bm25":
            hits = self.backend.bm25(alias, spec, q.plan.lexical, q.filters, k)
        elif opts.mode == "dense":
            hits = self.backend.knn(alias, spec, q.vector, q.filters, k)
        else:
            hits = self.backend.hybrid(alias, spec, q.plan.lexical, q.vector, q.filters, k, opts.fusion,
                                       dense_weight=opts.dense_weight, window=opts.passage_window)
        return scoring.pages(hits, q.snap.catalog, "flat " + opts.mode)

    def _load_ranker(self, release: str, first: bool = True) -> PageRanker | None:
        """The release's model; without one (or with one this code refuses), a warning the first time."""
        try:
            model = PageRanker.from_json(self.resources.lake.read_bytes(ranker_key(release)))
        except FileNotFoundError:
            if first:
                log.warning("no page ranker trained for release %s yet (the train stage, `secplat train-ranker`): "
                            "the rules rank pages until it is", release)
            return None
        except ValueError as exc:
            if first:
                log.warning("page ranker of release %s refused (%s): the rules rank pages", release, exc)
            return None
        if not first:
            log.info("page ranker of release %s found: the learned ranker orders pages from now on", release)
        return model

    # -- stage 2: documents
    def documents(self, q: Question) -> list[ScoredDoc]:
        """The best ``doc_k`` documents (round-robin over the named companies); with no period named, each
        company's report before its newest too (``scoring.with_previous``)."""
        scored = self.rank_documents(q)
        return scoring.with_previous(scoring.diversify(scored, q.plan.analysis, q.opts.doc_k), scored, q.plan)

    def rank_documents(self, q: Question) -> list[ScoredDoc]:
        """Every candidate document, scored: the document search's rank, the passage votes, the plan's tiers."""
        plan, opts, catalog = q.plan, q.opts, q.snap.catalog
        allowed = scoring.filter_docs(catalog.docs.values(), q.filters)
        if plan.analysis.entities:
            keys = {e.key for e in plan.analysis.entities}
            allowed = [d for d in allowed if d.entity in keys] or allowed  # never empties the answer
        doc_filter = {"doc_id": sorted(d.doc_id for d in allowed)} if len(allowed) < len(catalog.docs) else None
        if doc_filter is not None and not doc_filter["doc_id"]:
            return []
        tiers = scoring.document_tiers(allowed, plan)
        doc_hits = self.backend.hybrid(q.snap.target("documents"), INDEXES["documents"], plan.lexical, q.vector,
                                       doc_filter, opts.doc_candidates, opts.fusion, dense_weight=opts.dense_weight)
        # the passage vote costs a few documents' rows, a named company or not: never a corpus-wide search
        voters = scoring.voters(allowed, tiers, [h.id for h in doc_hits], opts.vote_docs)
        passage_hits = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], plan.lexical, q.vector,
                                           {"doc_id": voters}, 30, opts.fusion, dense_weight=opts.dense_weight)
        scored = scoring.score_documents(allowed, doc_hits, passage_hits, tiers)
        if opts.reranker and scored:
            head = max(opts.doc_k * 4, 20)  # the reranker sees the best candidates only: it costs ~50 ms a pair
            scored = self._rerank_docs(q, scored[:head], opts.reranker) + scored[head:]
        return scored

    # -- stages 3 and 4: passages, then pins, then one evidence item per page
    def evidence(self, q: Question, docs: list[ScoredDoc]) -> list[Evidence]:
        """The pages of the chosen documents: the pinned ones first, then the passages' pages by score."""
        if not docs:
            return []
        hits = self.passages(q, docs)
        if not hits:
            return []
        return scoring.pages(self.pins(q, docs, hits) + hits, q.snap.catalog, "hybrid match in a selected document",
                             q.opts.page_coverage)

    def rank_pages(self, q: Question, docs: list[ScoredDoc], evidence: list[Evidence],
                   model: PageRanker) -> list[Evidence]:
        """The rules' first pages reordered by the release's learned ranker (``query.ranker``)."""
        if len(evidence) < 2:
            return evidence
        head = evidence[:CANDIDATES]
        rows = page_features(q.text, q.plan.as_dict(), [{"doc_id": d.doc.doc_id, "score": d.score} for d in docs],
                             [e.as_dict() for e in head],
                             {d.doc.doc_id: d.doc.page_count for d in docs})
        return [head[i] for i in model.order(rows)] + evidence[CANDIDATES:]

    def passages(self, q: Question, docs: list[ScoredDoc]) -> list[Hit]:
        """Chunks of the chosen documents, rescored by document weight (FLAM and trees when on)."""
        plan, opts = q.plan, q.opts
        doc_weight = scoring.document_weights(docs, plan)
        doc_filter = {**(q.filters or {}), "doc_id": list(doc_weight)}
        hits = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], plan.lexical, q.vector, doc_filter,
                                   opts.passage_window, opts.fusion,
                                   dense_weight=opts.dense_weight, window=opts.passage_window)
        if not hits:
            return []
        item_weights = scoring.flam_weights(q.snap.lexicon(), q.text) if opts.flam else {}
        tree_chunks = self.tree_chunks(q, list(doc_weight)) if opts.trees else set()
        rescored = scoring.rescore_passages(hits, doc_weight, item_weights, tree_chunks, plan.items, opts.item_boost)
        if opts.reranker:
            rescored = self._rerank_passages(q.text, rescored[:20], opts.reranker) + rescored[20:]
        return rescored

    def pins(self, q: Question, docs: list[ScoredDoc], hits: list[Hit]) -> list[Hit]:
        """Pinned pages, scored just above the best passage: the statements' and notes' (the plan's evidence),
        then the facts' above those."""
        pinned: list[Hit] = []
        best = _best_per_company(docs)  # every company's; pins look in the first PINNED_DOCUMENTS
        if q.opts.statements:
            with timing.stage("statements"):
                pinned = self.statement_pins(q, best, hits[0].score)
        if q.opts.facts:
            with timing.stage("facts"):
                pinned = self.fact_pins(q, best, (pinned or hits)[0].score) + pinned
        return pinned

    def statement_pins(self, q: Question, best: list[DocInfo], top: float) -> list[Hit]:
        """The pages the plan's evidence names in the best documents: each statement's first page outside MD&A
        (found by its title over a table of figures), and its next page when the statement does not close on
        the first; each note's heading page; the cover."""
        plan = q.plan
        pinned: list[Hit] = []

        def pin(source: dict, chunk_id: str, page: int, basis: str, reason: str) -> None:
            pinned.append(Hit(chunk_id, top * (1.02 - 0.01 * len(pinned)),
                              {**source, "_page": page, "_basis": basis, "_reason": reason}))

        for d in best[:PINNED_DOCUMENTS]:
            scope = {**(q.filters or {}), "doc_id": d.doc_id}
            for statement in plan.statements:
                found = best_statement_page(statement, [h.source for h in self._bm25(q, QUERIES[statement], scope, 100)])
                if found:
                    page, source = found
                    pin(source, source["chunk_id"], page, "statement", f"the {statement} (asked for)")
                    following = self._continuation(q, statement, scope, page)
                    if following is not None:
                        pin(following, following["chunk_id"], page + 1, "continuation", f"the {statement}, continued")
            for name in plan.notes:
                note = concept_map().notes[name]
                found = best_heading_page(note.title, [h.source for h in self._bm25(q, note.query, scope, 50)])
                if found:
                    page, source = found
                    pin(source, source["chunk_id"], page, "note", f"the note on {name} ({', '.join(plan.concepts)})")
            for name in plan.sections:
                self._section_pins(q, concept_map().sections[name], scope, pin)
            if plan.narrative:
                self._narrative_pins(q, scope, pin)
            if plan.cover:
                hits = self._bm25(q, plan.lexical, {**scope, "page_start": 0}, 1)
                if hits:
                    pin(hits[0].source, hits[0].id, 0, "cover", "the cover page (registered securities)")
        return pinned

    def _section_pins(self, q: Question, section: Section, scope: Filters, pin: Callable) -> None:
        """An MD&A section's opening page and the page after it (a section opened low on a page runs on)."""
        scope = {**scope, "item": list(section.items)}
        found = best_section_page(section, [h.source for h in self._bm25(q, section.query, scope, 30)])
        if not found:
            return
        page, source = found
        pin(source, source["chunk_id"], page, "section", f"the MD&A section {section.name}")
        after = self._bm25(q, section.query, {**scope, "page_start": page + 1}, 1)
        if after:
            pin(after[0].source, after[0].id, page + 1, "section", f"the MD&A section {section.name}, continued")

    def _narrative_pins(self, q: Question, scope: Filters, pin: Callable) -> None:
        """What drove a change is told in MD&A's discussion of results, which statement and note pages outrank
        on the figures' words: the best ``NARRATIVE_PINS`` MD&A pages of the document for the question."""
        hits = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], q.plan.lexical, q.vector,
                                   {**scope, "item": sorted(MDNA_ITEMS)}, 20, q.opts.fusion,
                                   dense_weight=q.opts.dense_weight)
        pages: dict[int, Hit] = {}
        for h in hits:
            pages.setdefault(scoring.evidence_page(h.source), h)
        texts = {page: h.source.get("text") or "" for page, h in pages.items()}
        for page in scoring.explaining_first(texts, q.plan.core)[:NARRATIVE_PINS]:
            h = pages[page]
            pin(h.source, h.id, page, "section", "MD&A's discussion of results (the question asks what drove them)")

    def fact_pins(self, q: Question, best: list[DocInfo], top: float) -> list[Hit]:
        """Metric questions over iXBRL filings: in each best document, the pages that print the facts the
        question names, with the facts as the reason (the companies' names are no concept words). Documents without facts (PDFs, filings before iXBRL) pin
        nothing: the statements' pages and the search stand."""
        plan = q.plan
        metric = not plan.narrative and (plan.figure or bool(synonym_concepts(plan.core)))
        if not metric or not q.snap.has_facts:
            return []
        names = [e.name for e in plan.analysis.entities] + [n for d in best for n in (d.company, d.ticker)]
        pins: list[Hit] = []
        for d in best[:PINNED_DOCUMENTS]:
            found = question_facts(self.backend, q.snap.targets, plan.core, names, d.doc_id)
            for page, facts in fact_pages(found, plan.target_year or d.fiscal_year):
                scope = {**(q.filters or {}), "doc_id": d.doc_id, "page_start": [page - 1, page]}
                hits = [h for h in self._bm25(q, plan.lexical, scope, 20)
                        if int(h.source["page_start"]) <= page <= int(h.source["page_end"])]
                if hits:
                    pins.append(Hit(hits[0].id, top * (1.05 - 0.01 * len(pins)),
                                    {**hits[0].source, "_page": page, "_basis": "fact",
                                     "_reason": f"reports {describe(facts)}"}))
        return pins

    # -- stage 5: curation's view of this pipeline
    def _searcher(self, q: Question) -> Searcher:
        """What curation may ask of this retriever for one question: follow-ups and stages 2-4 over them."""
        settings = self.resources.settings
        return Searcher(follow_up=lambda entity, year: self.follow_up(q, entity, year),
                        rank_documents=self.rank_documents, find_pages=self.evidence,
                        llm=self.resources.llm if settings.llm_curation else None)

    # -- engine helpers
    def _bm25(self, q: Question, text: str, scope: Filters, k: int) -> list[Hit]:
        return self.backend.bm25(q.snap.target("passages"), INDEXES["passages"], text, scope, k)

    def _continuation(self, q: Question, statement: str, scope: Filters, page: int) -> dict | None:
        """A chunk of the next page when the statement does not close on ``page`` (a balance sheet's
        liabilities, a cash flow statement's financing activities), else None."""
        hits = self._bm25(q, f"{QUERIES[statement]} total net cash", {**scope, "page_start": [page, page + 1]}, 40)
        on_page = " ".join(h.source.get("text") or "" for h in hits if int(h.source["page_start"]) == page)
        following = [h.source for h in hits if int(h.source["page_start"]) == page + 1]
        if not on_page or not following or CLOSINGS[statement].search(on_page):
            return None
        return following[0]

    # -- FLAM and trees
    def tree_chunks(self, q: Question, doc_ids: list[str]) -> set[str]:
        if "tree_nodes" not in q.snap.targets:
            return set()
        hits = self.backend.hybrid(q.snap.targets["tree_nodes"], INDEXES["tree_nodes"], q.text, q.vector,
                                   {"doc_id": doc_ids, "level": 1}, 6, "rrf")
        return {c for h in hits[:3] for c in (h.source.get("chunk_ids") or [])}

    # -- optional cross-encoder
    def _rerank_docs(self, q: Question, scored: list[ScoredDoc], model: str) -> list[ScoredDoc]:
        rows = {r["doc_id"]: r for r in self.backend.get(q.snap.target("documents"), INDEXES["documents"],
                                                         [d.doc.doc_id for d in scored])}
        scores = cross_encoder(model).predict([(q.text, rows.get(d.doc.doc_id, {}).get("cover_summary", ""))
                                               for d in scored])
        return sorted([ScoredDoc(d.doc, float(s) + d.score, d.why + ", reranked")
                       for d, s in zip(scored, scores, strict=True)], key=lambda t: -t.score)

    def _rerank_passages(self, text: str, hits: list[Hit], model: str) -> list[Hit]:
        scores = cross_encoder(model).predict([(text, h.source["text"]) for h in hits])
        return [Hit(h.id, float(s), {**h.source, "_basis": "reranker", "_reason": "cross-encoder"})
                for h, s in sorted(zip(hits, scores, strict=True), key=lambda t: -t[1])]


FILING_ITEM = "filing_item"  # a filter on the 8-K Items a document's filing reported (catalog-side)


def document_filters(catalog: Catalog, filters: Filters | None) -> Filters | None:
    """The caller's filters checked against the passages' schema, with ``filing_item`` (an 8-K's Item:
    its cover and its exhibits) turned into the documents that have it."""
    filters = dict(filters or {})
    items = filters.pop(FILING_ITEM, None)
    checked: dict = check_filters(INDEXES["passages"], filters)
    if items is None:
        return checked or None
    wanted = {str(i).strip() for i in (items if isinstance(items, list | tuple | set) else [items])}
    docs = sorted(d.doc_id for d in catalog.docs.values() if wanted & set(d.filing_items))
    if "doc_id" in checked:
        docs = [d for d in docs if d in set(checked["doc_id"])]
    return {**checked, "doc_id": docs}  # empty: no document has those Items, no evidence


def _company(entity: Entity, note: str = "") -> str:
    tickers = ", ".join(sorted(entity.tickers))
    inside = ", ".join(p for p in (tickers, note) if p)
    return f"{entity.name} ({inside})" if inside else entity.name


def ambiguity(word: str, entities: list[Entity], searchable: set[str] | None) -> str:
    """One line naming the companies a word fits, those with indexed filings first."""
    return f"{word}: " + ", ".join(_company(e, "" if searchable is None or e.key in searchable else "no indexed filing")
                                   for e in entities)


def company_pages(plan: QueryPlan, entity_of: dict[str, str | None], evidence: list[Evidence]) -> list[str]:
    """Several companies named: one line each for ``--explain``, its best page and that page's rank (or that
    it has none among the evidence). ``entity_of``: doc_id -> company key of the chosen documents."""
    named = plan.analysis.entities
    if len(named) < 2:
        return []
    lines = []
    for e in named:
        at = next((n for n, ev in enumerate(evidence, start=1) if entity_of.get(ev.doc_id) == e.key), None)
        lines.append(f"{e.name}: best page {evidence[at - 1].doc_id} page {evidence[at - 1].page}, rank {at}"
                     if at else f"{e.name}: no page among the evidence (no indexed filing matched)")
    return lines


def _best_per_company(docs: list[ScoredDoc]) -> list[DocInfo]:
    """The best document of each company, companies in rank order."""
    best: dict[str | None, DocInfo] = {}
    for d in docs:
        best.setdefault(d.doc.entity, d.doc)
    return list(best.values())
