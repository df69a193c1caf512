"""Pinned pages: the pages a question's plan names in its best documents (statements, notes, MD&A sections,
MD&A's discussion of results, the cover) and the pages printing the iXBRL facts it names, placed just above
the best passage. Stage 4 of ``query.retrieve``'s pipeline."""

from __future__ import annotations

from collections.abc import Callable

from domain.periods import PERIOD_WORDS
from domain.sec_items import MDNA_ITEMS, STATEMENT_ITEMS
from domain.statements import HEADING_WINDOW, Section
from domain.text import typed_lower, words
from kernel import timing
from kernel.search import Filters, Hit, SearchReader
from query import scoring
from query.catalog import DocInfo
from query.concepts import concept_map
from query.facts import describe, fact_pages, question_facts, synonym_concepts
from query.parts import named_parts, part_heading, part_row
from query.question import Question
from query.scoring import ScoredDoc
from query.statements import (
    QUERIES,
    best_heading_page,
    best_section_page,
    best_statement_page,
    continuation,
    echo_page,
    non_gaap,
    row_page,
    titled_last,
)
from schemas.chunks import next_chunk_id
from schemas.index import INDEXES

NARRATIVE_PINS = 2  # MD&A pages pinned for a question asking what drove a change
PINNED_DOCUMENTS = 2  # pins look in the best document of each company, for this many companies
PART_SECTION_TABLES = 3  # chunks read after a part's section heading for the table of its results
FACT_PAGES = 2  # pages pinned for printing the facts asked, in one company's document
ECHO_SEARCH = 30  # passages of the document searched for the facts' figures printed again


def several_companies(companies: int) -> bool:
    """Whether the documents chosen are several companies' (``companies``: how many companies' best
    documents were chosen): then each company's best page must stand among the first five, so pins take
    fewer pages of any one company (:func:`fact_page_limit`, :func:`pins_run_on`)."""
    return companies >= 2


def fact_page_limit(companies: int) -> int:
    """Fact pages pinned in one company's document: ``FACT_PAGES``, or one when several companies are named,
    so that each company's best page stands among the first five, not two of one company's beside one of the
    other's (Home Depot's and Lowe's net sales: four statement pages, neither MD&A's discussion)."""
    return 1 if several_companies(companies) else FACT_PAGES


def pins_run_on(companies: int) -> bool:
    """Whether a pinned page's next page is pinned too (a statement, note or MD&A section running on). Not
    when several companies are named: each company's first pages are then the other pins and its best
    passage, not the second page of one of its pins (Alphabet's legal-matters note over two pages put
    its Item 3 page, and Apple's, below the fifth)."""
    return not several_companies(companies)


class Pins:
    """The pins of one engine: ``Pins(backend)(question, documents, passage hits)``."""

    def __init__(self, backend: SearchReader):
        self.backend = backend

    def __call__(self, q: Question, docs: list[ScoredDoc], hits: list[Hit]) -> list[Hit]:
        """Pinned pages, scored just above the best passage: the statements' and notes' (the plan's evidence),
        then the facts' above those."""
        pinned: list[Hit] = []
        best = _best_per_company(docs)  # every company's; pins look in the first PINNED_DOCUMENTS
        if q.opts.statements:
            with timing.stage("statements"):
                pinned = self.statement_pins(q, best, hits)
        if q.opts.facts:
            with timing.stage("facts"):
                taken = {(h.source["doc_id"], int(h.source["_page"])) for h in pinned}
                pinned = self.fact_pins(q, best, (pinned or hits)[0].score, taken) + pinned
        return pinned

    def statement_pins(self, q: Question, best: list[DocInfo], hits: list[Hit]) -> list[Hit]:
        """The pages the plan's evidence names in the best documents: each statement's first page outside MD&A
        (found by its title over a table of figures), and its next page when the statement does not close on
        the first; each note's heading page; the cover."""
        plan = q.plan
        pinned: list[Hit] = []
        top = hits[0].score
        run_on = pins_run_on(len(best))

        def pin(source: dict, chunk_id: str, page: int, basis: str, reason: str) -> None:
            pinned.append(Hit(chunk_id, top * (1.02 - 0.01 * len(pinned)),
                              {**source, "_page": page, "_basis": basis, "_reason": reason}))

        for d in best[:PINNED_DOCUMENTS]:
            scope = {**(q.filters or {}), "doc_id": d.doc_id}
            if plan.figure and q.opts.rows:
                self._part_pin(q, d, scope, pin)
            for statement in plan.statements:
                chunks = [h.source for h in self._bm25(q, QUERIES[statement], scope, 100)]
                found = best_statement_page(statement, chunks, self._following(q, statement, chunks))
                if found:
                    page, source = found
                    pin(source, source["chunk_id"], page, "statement", f"the {statement} (asked for)")
                    following = self._continuation(q, statement, scope, page) if run_on else None
                    if following is not None:
                        pin(following, following["chunk_id"], page + 1, "continuation", f"the {statement}, continued")
            for name in plan.notes:
                note = concept_map().notes[name]
                found = best_heading_page(note.title, [h.source for h in self._bm25(q, note.query, scope, 50)])
                if found:
                    page, source, offset = found
                    pin(source, source["chunk_id"], page, "note", f"the note on {name} ({', '.join(plan.concepts)})")
                    if run_on and offset > HEADING_WINDOW:
                        self._note_continued(q, note, scope, page, pin)
            if plan.figure and q.opts.rows:
                self._row_pin(q, scope, [h for h in hits if h.source["doc_id"] == d.doc_id],
                              [h for h in pinned if h.source["doc_id"] == d.doc_id], pin, d is best[0])
            for name in plan.sections:
                self._section_pins(q, concept_map().sections[name], scope, pin, run_on)
            if plan.narrative:
                self._narrative_pins(q, scope, pin)
            if plan.cover:
                hits = self._bm25(q, plan.lexical, {**scope, "page_start": 0}, 1)
                if hits:
                    pin(hits[0].source, hits[0].id, 0, "cover", "the cover page (registered securities)")
        return pinned

    def _row_pin(self, q: Question, scope: Filters, doc_hits: list[Hit], doc_pins: list[Hit], pin: Callable,
                 first: bool) -> None:
        """A figure no pinned statement prints (an effective tax rate, a margin) is read off the table whose row
        it heads, in MD&A's summary or a note: the best such page of the document for the question (among its
        passages found, else, in the first document, the metric's own words' matches), unless a pinned statement's page prints that
        row (the statement is then its page)."""
        metric = concept_map().metric(q.plan.core, q.plan.concepts)
        if not metric:
            return
        percent = q.plan.percent
        rows = [(page, h) for h in doc_hits if (page := row_page(metric, h.source, percent)) is not None] or \
            [(page, h) for h in (self._bm25(q, " ".join(metric), scope, 50) if first else [])
             if (page := row_page(metric, h.source, percent)) is not None]
        if not rows:
            return
        if not non_gaap(q.plan.core):  # a GAAP figure asked: a non-GAAP reconciliation's row comes last
            rows.sort(key=lambda t: non_gaap(t[1].source.get("text")))
        statements = {int(h.source["_page"]) for h in doc_pins if h.source.get("_basis") in ("statement", "continuation")}
        if any(p in statements for p, _ in rows) or self._prints_row(q, scope, metric, statements):
            return
        taken = {int(h.source["_page"]) for h in doc_pins}
        for page, h in rows:
            if page not in taken:
                pin(h.source, h.id, page, "row", "prints the figure asked as a table's row")
                return

    def _part_pin(self, q: Question, d: DocInfo, scope: Filters, pin: Callable) -> None:
        """A figure of a part the question names (a segment's revenue, a product's sales) is printed by MD&A's
        table of parts, which neither the consolidated statements nor the search's prose outrank it with:
        the MD&A page of the document whose table row the part labels (:func:`query.parts.part_row`;
        a document without MD&A, a release, anywhere in it), the label naming most of the part, then the
        first page: MD&A tabulates the parts of the whole before each segment's own (NIKE Direct's sales,
        the brand's, before each geography's)."""
        cues = concept_map().metric_cues(q.plan.core, q.plan.concepts)
        parts = _asked_parts(q, d) if cues else frozenset()
        if not parts:
            return
        titled = typed_lower(q.plan.core)
        asked = frozenset(words(q.plan.core))
        hits = self._bm25(q, q.plan.lexical, {**scope, "item": sorted(MDNA_ITEMS)}, 30) or \
            self._bm25(q, q.plan.lexical, scope, 30)  # a release has no MD&A: its tables are the document's
        rows = [(found, h) for h in hits if (found := part_row(asked, parts, cues, h.source, titled))]
        if rows:
            (page, _, label), h = min(rows, key=lambda t: (-t[0][1], t[0][0]))
            pin(h.source, h.id, page, "row", f"prints the part asked as a table's row ({label!r})")
        self._part_section(q, parts, cues, hits, pin)

    def _part_section(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit], pin: Callable) -> None:
        """A part's own MD&A section (its heading closing a text chunk, :func:`query.parts.part_heading`)
        prints the part's figure in the table after its heading, on a row labelled by the metric alone
        ("Revenue | $1,953"): the first such section among the search's MD&A chunks, its table's page."""
        for h in hits:
            heading = part_heading(parts, h.source)
            if heading is None:
                continue
            for table in self._next_chunks(q, h.source, PART_SECTION_TABLES):
                page = next((p for cue in cues if (p := row_page(cue, table)) is not None), None)
                if page is not None:
                    pin(table, table["chunk_id"], page, "row", f"the section {heading!r} prints the figure asked")
                    return

    def _next_chunks(self, q: Question, chunk: dict, n: int) -> list[dict]:
        """The ``n`` chunks after ``chunk`` in its Item, in order (one lookup by id)."""
        ids = [i for ahead in range(1, n + 1) if (i := next_chunk_id(chunk, ahead)) is not None]
        found = {f["chunk_id"]: f for f in self.backend.get(q.snap.target("passages"), INDEXES["passages"], ids)}
        return [found[i] for i in ids if i in found]

    def _prints_row(self, q: Question, scope: Filters, metric: tuple[str, ...], pages: set[int]) -> bool:
        """Whether one of these pages prints the metric's row, of percentages if the question asks a share (its
        chunks, the ones running on from the page before included: a statement's table often starts above its
        page)."""
        for page in sorted(pages):
            hits = self._bm25(q, " ".join(metric), {**scope, "page_start": [page - 1, page]}, 10)
            if any(row_page(metric, h.source, q.plan.percent) == page for h in hits):
                return True
        return False

    def _note_continued(self, q: Question, note: Section, scope: Filters, page: int, pin: Callable) -> None:
        """A note opened below the top of its page (a filing runs its notes on) goes on over the next page,
        which holds what it says: pinned after its heading's page, as an MD&A section's is."""
        after = self._bm25(q, note.query, {**scope, "page_start": page + 1}, 1)
        if after:
            pin(after[0].source, after[0].id, page + 1, "note", f"the note on {note.name}, continued")

    def _section_pins(self, q: Question, section: Section, scope: Filters, pin: Callable, run_on: bool) -> None:
        """A section's opening page (MD&A's, or Item 1's human capital) and, if ``run_on``, the page after it
        (a section opened low on a page runs on)."""
        scope = {**scope, "item": list(section.items)}
        found = best_section_page(section, [h.source for h in self._bm25(q, section.query, scope, 30)])
        if not found:
            return
        page, source = found
        pin(source, source["chunk_id"], page, "section", f"the section {section.name}")
        after = self._bm25(q, section.query, {**scope, "page_start": page + 1}, 1) if run_on else []
        if after:
            pin(after[0].source, after[0].id, page + 1, "section", f"the section {section.name}, continued")

    def _narrative_pins(self, q: Question, scope: Filters, pin: Callable) -> None:
        """What drove a change is told in MD&A's discussion of results, which statement and note pages outrank
        on the figures' words: the best ``NARRATIVE_PINS`` MD&A pages of the document for the question."""
        hits = self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], q.plan.lexical, q.vector,
                                   {**scope, "item": sorted(MDNA_ITEMS)}, 20, q.opts.fusion,
                                   dense_weight=q.opts.dense_weight)
        pages: dict[int, Hit] = {}
        texts: dict[int, str] = {}  # every chunk of the page among the hits: the explaining one may not be its best
        for h in hits:
            page = scoring.evidence_page(h.source)
            pages.setdefault(page, h)
            texts[page] = "\n".join(filter(None, (texts.get(page), h.source.get("text"))))
        for page in scoring.explaining_first(texts, q.plan.core)[:NARRATIVE_PINS]:
            h = pages[page]
            pin(h.source, h.id, page, "section", "MD&A's discussion of results (the question asks what drove them)")

    def fact_pins(self, q: Question, best: list[DocInfo], top: float,
                  taken: frozenset[tuple[str, int]] | set[tuple[str, int]] = frozenset()) -> list[Hit]:
        """Metric questions over iXBRL filings: in each best document, the pages that print the facts the
        question names (:func:`fact_page_limit` of them), with the facts as the reason (the companies' names
        are no concept words). Documents without facts (PDFs, filings before iXBRL) pin nothing: the
        statements' pages and the search stand. ``taken``: (document, page) pinned already, which a
        figure printed again does not pin twice."""
        plan = q.plan
        metric = not plan.narrative and (plan.figure or bool(synonym_concepts(plan.core)))
        if not metric or not q.snap.has_facts:
            return []
        names = [e.name for e in plan.analysis.entities] + plan.analysis.written + \
            [n for d in best for n in (d.company, d.ticker)]
        pins: list[Hit] = []
        fact_limit = fact_page_limit(len(best))
        for d in best[:PINNED_DOCUMENTS]:
            found = question_facts(self.backend, q.snap.targets, plan.core, names, d.doc_id)
            pages = fact_pages(found, plan.target_year or d.fiscal_year, fact_limit)
            for page, facts in pages:
                scope = {**(q.filters or {}), "doc_id": d.doc_id, "page_start": [page - 1, page]}
                hits = [h for h in self._bm25(q, plan.lexical, scope, 20)
                        if int(h.source["page_start"]) <= page <= int(h.source["page_end"])]
                if hits:
                    pins.append(Hit(hits[0].id, top * (1.05 - 0.01 * len(pins)),
                                    {**hits[0].source, "_page": page, "_basis": "fact",
                                     "_reason": f"reports {describe(facts)}"}))
            if pages and not several_companies(len(best)):
                self._echo_pin(q, d, pages, pins, top, taken)
        return pins

    def _echo_pin(self, q: Question, d: DocInfo, pages: list[tuple[int, list[dict]]], pins: list[Hit],
                  top: float, taken: frozenset[tuple[str, int]] | set[tuple[str, int]]) -> None:
        """The amount asked, printed again off the pages its facts are tagged on: MD&A's summary table or a
        segment note's total (untagged in most filings), which answer as well as the statement and are where
        many readers look: the document's first other page printing one of the facts' figures as a cell
        (:func:`query.statements.echo_page`), outside the statements' Item first (a 10-Q's other statements
        print net income again before its MD&A does)."""
        facts = [f for _, found in pages for f in found]
        if _asked_parts(q, d) and not any(f.get("dimensions") for f in facts):
            return  # a part asked, the whole's figures found: their reprint is not the part's
        displays = {str(f.get("display") or "") for f in facts}
        tagged = {p for p, _ in pages} | {p for doc, p in taken if doc == d.doc_id}
        scope = {**(q.filters or {}), "doc_id": d.doc_id}
        hits = self._bm25(q, f"{q.plan.lexical} {' '.join(sorted(displays))}", scope, ECHO_SEARCH)
        asked = frozenset(words(q.plan.core))
        echoes = [(page, h) for h in hits
                  if (page := echo_page(displays, asked, h.source)) is not None and page not in tagged]
        if echoes:
            page, h = min(echoes, key=lambda t: (t[1].source.get("item") in STATEMENT_ITEMS, t[0]))
            pins.append(Hit(h.id, top * (1.05 - 0.01 * len(pins)),
                            {**h.source, "_page": page, "_basis": "fact",
                             "_reason": "prints the figure asked again (the facts' amount, off their tagged pages)"}))

    def _following(self, q: Question, statement: str, chunks: list[dict]) -> dict[str, dict]:
        """chunk_id -> the chunk after it, for the chunks that name the statement near their end (an HTML
        statement's title ends a text chunk, its table is the next one): one lookup by id."""
        after = {nxt: c["chunk_id"] for c in chunks
                 if titled_last(statement, c) and (nxt := next_chunk_id(c)) is not None}
        if not after:
            return {}
        found = self.backend.get(q.snap.target("passages"), INDEXES["passages"], sorted(after))
        return {after[f["chunk_id"]]: f for f in found if f.get("chunk_id") in after}

    def _bm25(self, q: Question, text: str, scope: Filters, k: int) -> list[Hit]:
        return self.backend.bm25(q.snap.target("passages"), INDEXES["passages"], text, scope, k)

    def _continuation(self, q: Question, statement: str, scope: Filters, page: int) -> dict | None:
        """A chunk of the next page when the statement runs on to it (``query.statements.continuation``)."""
        hits = self._bm25(q, f"{QUERIES[statement]} total net cash", {**scope, "page_start": [page, page + 1]}, 40)
        return continuation(statement, page, [h.source for h in hits])


def _asked_parts(q: Question, d: DocInfo) -> frozenset[str]:
    """The parts of the company the question names (:func:`query.parts.named_parts`), its companies' names,
    periods and the metric's own words aside (``d``: the document, whose company's names are no part)."""
    names = [e.name for e in q.plan.analysis.entities] + [d.company or "", d.ticker or ""]  # not its businesses
    ignore = concept_map().metric_words(q.plan.core, q.plan.concepts) | PERIOD_WORDS | \
        frozenset(w for n in names for w in words(n))
    titled = typed_lower(q.plan.core)  # the lexical query prints periods in capitals ("Q2 2023")
    return named_parts(q.plan.lexical.lower() if titled else q.plan.lexical, ignore)


def _best_per_company(docs: list[ScoredDoc]) -> list[DocInfo]:
    """The best document of each company, companies in rank order."""
    best: dict[str | None, DocInfo] = {}
    for d in docs:
        best.setdefault(d.doc.entity, d.doc)
    return list(best.values())
