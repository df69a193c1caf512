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
import threading

import numpy as np

from domain.companies import EntityIndex
from domain.text import clean_question, terms
from kernel import timing
from kernel.company_directory import read_directory
from kernel.embedder import cross_encoder
from kernel.models import ModelMismatch, same_model
from kernel.resources import Resources
from kernel.search import Filters, Hit
from kernel.search.base import check_filters
from query import scoring
from query.analysis import Entity, QueryAnalysis, analyze
from query.api import MODES, RANKERS, Evidence, RetrievalOptions, SearchResult
from query.catalog import Catalog, DocInfo
from query.coverage import period_notes, taken_notes
from query.curate import Searcher, curate
from query.facts import (
    Fact,
    FactsError,
    FactsRequest,
    find_facts,
)
from query.initials import (
    INITIALS_HITS,
    OWNER_CHECKED,
    printed_initials,
    read_initials,
    spelled_question,
    written_initials,
)
from query.page_order import page_order, question_kind
from query.pins import Pins
from query.plan import (
    QueryPlan,
    follow_up_plan,
    make_plan,
    names_filing,
    reports_span,
    short_form,
    spelled_out,
)
from query.question import Question, page_vector
from query.ranker import CANDIDATES, PageRanker, page_features
from query.report_body import body_first
from query.scoring import ScoredDoc
from query.snapshot import Snapshot, load_ranker
from schemas.index import INDEXES

log = logging.getLogger(__name__)
__all__ = ["MODES", "Evidence", "Question", "RetrievalOptions", "Retriever", "SearchResult"]


class Retriever:
    """Reads only the published indexes, of the release live when each query starts (a new release is
    picked up by the next query, without restart). Thread-safe for concurrent queries."""

    def __init__(self, resources: Resources, options: RetrievalOptions | None = None):
        self.resources = resources
        self.backend = resources.timed_backend
        self.options = options or RetrievalOptions(ranker=resources.settings.page_ranker)
        self._universe = resources.settings.universe_if_any()
        self.pins = Pins(self.backend)  # stage 4
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
                pairs = scoring.taken(docs, [d.doc for d in docs], q.plan)
                newest, before = [d for d, _ in pairs], {d.doc_id: b for d, b in pairs}
                result.evidence = scoring.second_document(result.evidence, scoring.second_scores(docs, q.plan, before))
                result.evidence = result.evidence[:min(opts.max_passages, max(k, 1)) if opts.curate else max(k, 1)]
                result.company_pages = company_pages(q.plan, entity_of, result.evidence)
                result.period_taken = taken_notes(q.plan.target_year, q.plan.analysis.quarters, newest, before,
                                                  result.evidence)
        result.timings = timings
        # a span named by its last day and found by that day (E) is no fiscal year's, whatever number it carries
        found = (snap.catalog.docs.get(e.doc_id) for e in result.evidence)
        year = None if any(d and reports_span(q.plan, d.form, d.period_end) for d in found) else q.plan.target_year
        result.missing_periods = period_notes(year, q.plan.analysis.quarters, result.evidence,
                                              snap.catalog.docs, [e.key for e in q.plan.analysis.entities])
        result.unindexed = [_company(e) for e in snap.catalog.entities.unindexed(text)]
        result.inferred_companies = q.plan.analysis.inferred
        result.ambiguous_names = [ambiguity(word, found, snap.catalog.entities.searchable)
                                  for word, found in snap.catalog.entities.ambiguous(text)]
        return result

    # -- stage 1: the plan, built once
    def plan(self, text: str, filters: Filters | None, opts: RetrievalOptions, snap: Snapshot | None = None) -> Question:
        with timing.stage("analyze"):
            snap = snap or self.snapshot()
            self.check_model(snap.catalog)
            text = spelled_out(text)  # "rev" read as "revenue": what the spelled-out question finds, at every step
            analysis = analyze(text, snap.catalog.entities)
            _parents(analysis, snap.catalog.entities)
            self._product_owner(analysis, filters, snap)
            text, names = self._initials(analysis, filters, snap)
            if names:
                spelled = analyze(text, snap.catalog.entities)
                spelled.entities, spelled.inferred = analysis.entities, analysis.inferred  # the company read before
                analysis = spelled
            plan = make_plan(analysis)
            plan.rules += [f"{i} read as {n}, as the filings of {analysis.entities[0].name} print it"
                           for i, n in names.items()]
        with timing.stage("embed"):
            vector, pages = self._vectors(text, plan)
        return Question(text, plan, vector, filters, opts, snap, page_vector=pages)

    def _vectors(self, text: str, plan: QueryPlan) -> tuple[np.ndarray, np.ndarray]:
        """The question's vector and its page vector (``query.question.page_vector``), the question and its
        lexical text embedded in one call of the model."""
        vectors = self.resources.embedder.embed(list(dict.fromkeys([text, plan.lexical])))
        return vectors[0], page_vector(vectors)

    def _product_owner(self, analysis: QueryAnalysis, filters: Filters | None, snap: Snapshot) -> None:
        """A question naming no company but words no company's name takes ("Humira",
        ``EntityIndex.unnamed``): when one company's filings print most of the passages holding them, it is
        the company asked about, added to the analysis with the note that says so (``analysis.inferred``)."""
        unnamed = [] if analysis.entities else snap.catalog.entities.unnamed(analysis.question)
        if not unnamed:
            return
        words = " ".join(unnamed)
        runs = snap.catalog.entities.unnamed_runs(analysis.question)
        key = scoring.owner(self._printers(words, runs, filters, snap, scoring.OWNER_HITS))
        entity = snap.catalog.entities.entities.get(key) if key else None
        if entity is not None:
            analysis.entities = [entity]
            analysis.inferred = [f"{words}: no company named; the evidence is {entity.name}'s, whose filings print it"]

    def _initials(self, analysis: QueryAnalysis, filters: Filters | None, snap: Snapshot) -> tuple[str, dict[str, str]]:
        """The names the question's capitals stand for in its one company's filings (``query.initials``): its
        initials not read as that company ("J&J"; a ticker may be another's initials: "CI" is Cigna's and
        Caterpillar's Construction Industries) and no short form, read off the passages a search of the
        company's documents for the question finds; a name only that company's filings print
        (:meth:`_owned`), not one every filer does ("Chief Executive Officer")."""
        keys = {e.key for e in analysis.entities}
        if len(keys) != 1:
            return analysis.question, {}
        entities, docs = snap.catalog.entities, snap.catalog.docs
        asked = [i for i in written_initials(analysis.question) if i not in analysis.written and not short_form(i)
                 and not keys & {e.key for e in entities.find(i)}]
        if not asked:
            return analysis.question, {}
        allowed = set((filters or {}).get("doc_id", docs))
        scope = {**(filters or {}), "doc_id": [d for d, doc in docs.items() if doc.entity in keys and d in allowed]}
        if not scope["doc_id"]:
            return analysis.question, {}
        hits = self.backend.bm25(snap.target("passages"), INDEXES["passages"], analysis.question, scope,
                                 INITIALS_HITS)
        texts = [h.source.get("text") or "" for h in hits]
        company = analysis.entities[0]
        names = {i: name for i in asked
                 if (name := read_initials(i, texts, company.name)) and self._owned(name, company.key, filters, snap)}
        return spelled_question(analysis.question, names, {i for i in names if printed_initials(i, texts)}), names

    def _owned(self, name: str, key: str, filters: Filters | None, snap: Snapshot) -> bool:
        """Whether ``name`` is one company's own: of the passages of the whole corpus whose text prints it
        (their text alone: a company field saying "United" is no print of "United States"), that company's
        hold the share ``scoring.owner`` asks. A segment's name is its company's; "Chief Executive Officer"
        every filer's."""
        printers = self._printers(name, [name], filters, snap, OWNER_CHECKED, ("text",), printing_only=True)
        return scoring.owner(printers) == key

    def _printers(self, text: str, names: list[str], filters: Filters | None, snap: Snapshot, k: int,
                  fields: tuple[str, ...] | None = None, printing_only: bool = False) -> list[str | None]:
        """The companies of the ``k`` passages a BM25 search for ``text`` finds, for ``scoring.owner``: each
        hit's, None for one printing none of ``names`` (``scoring.prints_any``); with ``printing_only``, the
        printing hits' alone. What a product's owner (:meth:`_product_owner`) and a name's (:meth:`_owned`)
        are read from."""
        hits = self.backend.bm25(snap.target("passages"), INDEXES["passages"], text, filters, k, fields=fields)
        docs = snap.catalog.docs
        found = [(h.source["doc_id"] in docs and scoring.prints_any(h.source.get("text"), names), h.source["doc_id"])
                 for h in hits]
        if printing_only:
            return [docs[d].entity for printing, d in found if printing]
        return [docs[d].entity if printing else None for printing, d in found]

    def follow_up(self, parent: Question, entity: Entity | None, year: int | None) -> Question:
        """A complementary query for curation: the parent's plan narrowed to one company (and year), its text
        naming the company when the question does not."""
        text = parent.text
        if entity and entity.name.lower() not in text.lower():
            text = f"{entity.name} {text}"
        plan = follow_up_plan(parent.plan, entity, year)
        vector, pages = self._vectors(text, plan)
        return Question(text, plan, vector, parent.filters, parent.opts, parent.snap, page_vector=pages)

    def flat(self, q: Question, k: int) -> list[Evidence]:
        spec, alias, opts = INDEXES["passages"], q.snap.target("passages"), q.opts
        if opts.mode == "bm25":
            hits = self.backend.bm25(alias, spec, q.plan.lexical, q.filters, k)
        elif opts.mode == "dense":
            hits = self.backend.knn(alias, spec, q.vector, q.filters, k)
        else:
            hits = self.backend.hybrid(alias, spec, q.plan.lexical, q.vector, q.filters, k, opts.fusion,
                                       dense_weight=opts.dense_weight, window=opts.passage_window)
        return scoring.pages(hits, q.snap.catalog, "flat " + opts.mode, asked=terms(q.text))

    def _load_ranker(self, release: str, first: bool = True) -> PageRanker | None:
        return load_ranker(self.resources.lake, release, first)

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
        scored = scoring.score_documents(allowed, doc_hits, passage_hits, tiers, plan)
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
                             q.opts.page_coverage, terms(q.text))

    def rank_pages(self, q: Question, docs: list[ScoredDoc], evidence: list[Evidence],
                   model: PageRanker) -> list[Evidence]:
        """The rules' first pages reordered by the release's learned ranker blended with the rules' order
        (``query.ranker.blended``)."""
        if len(evidence) < 2:
            return evidence
        head = evidence[:CANDIDATES]
        rows = page_features(q.text, q.plan.as_dict(), [{"doc_id": d.doc.doc_id, "score": d.score} for d in docs],
                             [e.as_dict() for e in head],
                             {d.doc.doc_id: d.doc.page_count for d in docs})
        return [head[i] for i in model.blended_order(rows)] + evidence[CANDIDATES:]

    def passages(self, q: Question, docs: list[ScoredDoc]) -> list[Hit]:
        """Chunks of the chosen documents, rescored by document weight (FLAM and trees when on)."""
        plan, opts = q.plan, q.opts
        doc_weight = scoring.document_weights(docs, plan)
        doc_filter = {**(q.filters or {}), "doc_id": list(doc_weight)}
        hits = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], plan.lexical, q.page_vector,
                                   doc_filter, opts.passage_window, opts.fusion,
                                   dense_weight=opts.dense_weight, window=opts.passage_window)
        if not hits:
            return []
        hits = self._read_whole(q, docs[0].doc, hits)
        item_weights = scoring.flam_weights(q.snap.lexicon(), q.text) if opts.flam else {}
        tree_chunks = self.tree_chunks(q, list(doc_weight)) if opts.trees else set()
        rescored = scoring.rescore_passages(hits, doc_weight, item_weights, tree_chunks, plan.items, opts.item_boost)
        reports = [d.doc.doc_id for d in docs if scoring.current_report(d.doc)]
        rescored = body_first(rescored, reports, q.text, plan.cover, plan.lexical)
        if opts.reranker:
            rescored = self._rerank_passages(q.text, rescored[:20], opts.reranker) + rescored[20:]
        return rescored

    def _read_whole(self, q: Question, doc: DocInfo, hits: list[Hit]) -> list[Hit]:
        """The first document, when a short 8-K (:func:`scoring.short_filing`), is read whole: its other
        passages join the hits just below its best one, so its Item's page is not outranked by other documents'
        pages that share the question's date or words (its exhibit list printed them); one the question names
        by its day, with its form or asking no figure, at the top (:func:`query.plan.names_filing`,
        :func:`scoring.read_whole`)."""
        named = names_filing(q.plan, doc.form, doc.period_end)
        if not scoring.short_filing(doc) or not (named or any(h.source["doc_id"] == doc.doc_id for h in hits)):
            return hits
        own = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], q.plan.lexical, q.page_vector,
                                  {**(q.filters or {}), "doc_id": doc.doc_id}, scoring.SHORT_FILING_PAGES * 2,
                                  q.opts.fusion, dense_weight=q.opts.dense_weight)
        return scoring.read_whole(hits, doc.doc_id, own, named)

    # -- stage 5: curation's view of this pipeline
    def _searcher(self, q: Question) -> Searcher:
        """What curation may ask of this retriever for one question: follow-ups and stages 2-4 over them."""
        settings = self.resources.settings
        return Searcher(follow_up=lambda entity, year: self.follow_up(q, entity, year),
                        rank_documents=self.rank_documents, find_pages=self.evidence,
                        llm=self.resources.llm if settings.llm_curation else None)

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
        return sorted([d._replace(score=float(s) + d.score, why=d.why + ", reranked")
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


def _parents(analysis: QueryAnalysis, entities: EntityIndex) -> None:
    """A company named with no indexed filing whose name opens with an indexed company's ("Honeywell
    Aerospace", "GE Vernova": spun off under the parent's name, ``EntityIndex.parents``): the parent's
    filings, which reported it as a segment, are searched too, and a note says so."""
    for written, parent in entities.parents(analysis.question):
        if all(e.key != parent.key for e in analysis.entities):
            analysis.entities = [*analysis.entities, parent]
            analysis.inferred = [*analysis.inferred, f"{written}: no indexed filing; the evidence is from the "
                                 f"filings of {parent.name}, whose name it opens with"]
