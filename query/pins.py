"""Pinned pages: the pages a question's plan names in its best documents (statements, notes, MD&A sections,
MD&A's discussion of results, the cover, a part's row and section: ``query.part_pins``) and the pages printing
the iXBRL facts it names (``query.fact_pins``), placed just above the best passage. Stage 4 of
``query.retrieve``'s pipeline; how many pages each kind takes is ``query.pin_policy``'s."""

from __future__ import annotations

import functools
from collections.abc import Callable

from domain.periods import FORECAST_TERMS
from domain.sec_items import MDNA_ITEMS
from domain.statements import HEADING_WINDOW, Section, part_heads
from domain.text import terms, words
from kernel import timing
from kernel.search import Filters, Hit, SearchReader
from query import scoring
from query.catalog import DocInfo
from query.concepts import concept_map
from query.counts import Counted, count_row_page, count_sentence_page
from query.defined import definition_at
from query.fact_pins import FactPinned, FactPins
from query.facts import part_named
from query.line_items import line_item, line_item_page
from query.part_pins import PartPins
from query.pin_policy import PinReader, pins_run_on
from query.plan import QueryPlan
from query.question import Question
from query.region_pins import RegionPins
from query.scoring import ScoredDoc
from query.stated import measure, stated_page
from query.statements import (
    OPENING_CHUNKS,
    QUERIES,
    best_heading_page,
    best_section_page,
    best_statement_page,
    continuation,
    in_narrative,
    non_gaap,
    page_position,
    ratio_rows,
    row_page,
    titled_last,
    unstated_rank,
)
from query.sum_pins import SumPins
from schemas.chunks import chunk_id, next_chunk_id
from schemas.index import INDEXES

STATEMENT_MATCHES = 100  # a statement's title is looked for among this many matches of its words ...
STATEMENT_MATCHES_MORE = 400  # ... and among this many when those show it in MD&A alone, or nowhere
NARRATIVE_PINS = 2  # MD&A pages pinned for a question asking what drove a change
PART_HEADINGS = 20  # passages searched by a part's name for the pages it heads
PAGE_PASSAGES = 12  # passages read per page for its whole text (a page holds about five to ten)
COVER_PAGES = (0, 1)  # a 10-K's or 10-Q's cover: its first page and the one it runs on to
FORECAST_WHAT = 2  # words of what is forecast a sentence found by the year and a verb alone must share with the question
DEFINITION_PINS = 2  # pages pinned that define the term a question asks about
COUNT_SEARCH = 50  # passages of a document searched for the row or sentence counting what is asked
FORECAST_PINS = 2  # pages pinned that state an expectation of the year a forecast is asked of


def looks_further(found: tuple[int, dict] | None, matched: int, asked: int) -> bool:
    """Whether a statement's page is looked for among more of its words' matches: the search filled the
    ``asked`` count (``matched``; fewer means the document has no more) and its matches showed the statement
    (not a summary of its lines) in MD&A alone (a table MD&A titles "Analysis of the Consolidated Statements of
    Income") or nowhere."""
    return matched >= asked and (found is None or in_narrative(found[1]))


class Pins(PinReader):
    """The pins of one engine: ``Pins(backend)(question, documents, passage hits)``: the statements', notes',
    sections' and rows' pages here, a part's (``query.part_pins``) and the facts' (``query.fact_pins``)."""

    def __init__(self, backend: SearchReader):
        super().__init__(backend)
        self.parts = PartPins(backend)
        self.regions = RegionPins(backend)
        self.sums = SumPins(backend)
        self.facts = FactPins(backend)

    def __call__(self, q: Question, docs: list[ScoredDoc], hits: list[Hit]) -> list[Hit]:
        """Pinned pages, scored just above the best passage: the statements' and notes' (the plan's evidence),
        then the facts' above those; the regions' table of a comparison, and a part's own pages where the facts
        found the whole's figure alone (the company's revenue for "Abbott's diagnostics sales"), above the facts
        (:func:`with_facts`)."""
        pinned: list[Hit] = []
        best = _best_per_company(docs)  # every company's; pins look in PinReader._pinned's
        if q.opts.statements:
            with timing.stage("statements"):
                pinned = self.statement_pins(q, best, hits)
        if q.opts.facts:
            with timing.stage("facts"):
                taken = {(h.source["doc_id"], int(h.source["_page"])) for h in pinned}
                facts = self.facts(q, best, (pinned or hits)[0].score, taken)
                pinned = with_facts(pinned, facts)
        return pinned

    def statement_pins(self, q: Question, best: list[DocInfo], hits: list[Hit]) -> list[Hit]:
        """The pages the plan's evidence names in the best documents: each statement's first page outside MD&A
        (found by its title over a table of figures), and its next page when the statement does not close on
        the first; each note's heading page; the cover."""
        plan = q.plan
        pinned: list[Hit] = []
        top = hits[0].score
        run_on = pins_run_on(len(best))
        unplaced = unplaced_figure(plan)
        summed_up = measure(plan.lexical) if unplaced else ()  # read at MD&A's opening
        item = line_item(plan.lexical) if unplaced else ()  # read off a statement's row

        def pin(source: dict, chunk_id: str, page: int, basis: str, reason: str, mark: str = "") -> None:
            pinned.append(Hit(chunk_id, pin_score(top, len(pinned)),
                              {**source, "_page": page, "_basis": basis, "_reason": reason} | ({mark: True} if mark else {})))

        part_pin, compared_pin = functools.partial(pin, mark=PART), functools.partial(pin, mark=COMPARED)

        for d in self._pinned(q, best):
            scope = {**(q.filters or {}), "doc_id": d.doc_id}
            if plan.defines:  # first: the question asks the sentence, not a figure
                self._definition_pin(q, scope, plan.defines, pin)
            if plan.regions and q.opts.rows:  # a table's rows, as the parts' pins: the rows option rules both
                self.regions(q, d, scope, compared_pin)
            if plan.operates:
                self.regions.operations(q, scope, pin, q.opts.rows)
            if plan.shares and q.opts.rows:
                self.sums(q, d, scope, pin)
            if plan.figure and q.opts.rows:
                self.parts(q, d, scope, part_pin)
            if plan.narrative:  # what drove a change is told in MD&A, before a statement's or a note's figures
                self._narrative_pins(q, scope, pin)
            for statement in plan.statements:
                found = self._statement_pages(q, statement, scope)
                for i, (page, source) in enumerate(found):  # the statement itself after the summary of its lines
                    pin(source, source["chunk_id"], page, "statement", f"the {statement} (asked for)" + ", itself" * i)
                if found:
                    page = found[0][0]
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
                self.parts(q, d, scope, part_pin, before_measure=True)  # a part said before its measure: a statement's line too
                self._row_pin(q, scope, [h for h in hits if h.source["doc_id"] == d.doc_id],
                              [h for h in pinned if h.source["doc_id"] == d.doc_id], pin, d is best[0])
            for name in plan.sections:
                self._section_pins(q, concept_map().sections[name], scope, pin, run_on)
            if plan.forecast is not None:
                self._forecast_pins(q, scope, plan.forecast, pin)
            if plan.cover:
                self._cover_pin(q, scope, pin)
            if item:
                self._line_item_pin(q, scope, item, pin)
            if plan.counted:
                self._count_pins(q, scope, plan.counted, pin)
            if summed_up:
                self._stated_pin(q, d.doc_id, summed_up, pin)
        return [Hit(h.id, pin_score(top, n), h.source) for n, h in enumerate(rows_before_notes(pinned))]

    def _statement_pages(self, q: Question, statement: str, scope: Filters) -> list[tuple[int, dict]]:
        """(page, chunk) of the statement in one document (:func:`best_statement_page`) among the best
        ``STATEMENT_MATCHES`` matches of its words, a summary of its lines counting (a bank's "Selected income
        statement data" prints the quarter's figures first); then, when that page is a summary, in MD&A or
        none, the statement itself, looked for among ``STATEMENT_MATCHES_MORE`` matches when the first show it
        only in MD&A or nowhere: a long filing's statement title may end a chunk of prose (a PDF's auditor's
        report running on to it) that many passages saying "income" outrank (Pfizer's 2021 10-K: 112th, after
        its segment note's "Selected Income Statement Information")."""
        chunks, following = self._statement_matches(q, statement, scope, STATEMENT_MATCHES)
        shown = best_statement_page(statement, chunks, following, summaries=True)
        found = best_statement_page(statement, chunks, following)
        if looks_further(found, len(chunks), STATEMENT_MATCHES):
            found = best_statement_page(statement, *self._statement_matches(
                q, statement, scope, STATEMENT_MATCHES_MORE)) or found
        pages = [shown] if shown else []
        return pages + [found] if found and (not shown or found[0] != shown[0]) else pages

    def _statement_matches(self, q: Question, statement: str, scope: Filters, k: int
                           ) -> tuple[list[dict], dict[str, dict]]:
        """The best ``k`` matches of a statement's words in one document and the chunks after those whose title
        ends them (:meth:`_following`): what :func:`best_statement_page` reads."""
        chunks = [h.source for h in self._bm25(q, QUERIES[statement], scope, k)]
        return chunks, self._following(q, statement, chunks)

    def _cover_pin(self, q: Question, scope: Filters, pin: Callable) -> None:
        """The cover's page that states what the question asks (the securities registered, the market value
        held by non-affiliates, the state of incorporation): the best match among the chunks opening on the
        cover's pages, placed on the page holding more of the question's words, since a cover runs on to a
        second page (a long list of registered notes; the market value and the shares outstanding after the
        check boxes). When none holds the question's words without its names ("Where are the headquarters
        located?": the cover prints an address under "principal executive offices"), the best match with the
        names: the cover names the registrant."""
        on_cover = {**scope, "page_start": list(COVER_PAGES)}
        hits = self._bm25(q, q.plan.lexical, on_cover, 1) or self._bm25(q, q.plan.core, on_cover, 1)
        if hits:
            page = min(scoring.evidence_page(hits[0].source, terms(q.text)), COVER_PAGES[-1])
            pin(hits[0].source, hits[0].id, page, "cover", f"the cover page ({', '.join(q.plan.concepts)})")

    def _row_pin(self, q: Question, scope: Filters, doc_hits: list[Hit], doc_pins: list[Hit], pin: Callable,
                 first: bool) -> None:
        """A figure no pinned statement prints (an effective tax rate, a margin) is read off the table whose row
        it heads, in MD&A's summary or a note: the best such page of the document for the question (among its
        passages found, else, in the first document, the metric's own words' matches), unless a pinned statement's
        page prints that row (the statement is then its page). The row's label is the cue the question says, else
        another of its concept's (:meth:`~query.concepts.ConceptMap.row_labels`)."""
        labels = concept_map().row_labels(q.plan.core, q.plan.concepts)
        if not labels:
            return
        metric, rows = self._rows(q, scope, labels[:1], doc_hits, first)
        if not rows and labels[1:]:  # the measure's other names: one more search for them all
            metric, rows = self._rows(q, scope, labels[1:], doc_hits, first)
        if not rows and (ratios := ratio_rows(labels, q.plan.core)):  # a margin asked: its row of percents, in
            metric, rows = self._rows(q, scope, list(ratios), doc_hits, first, True)  # any form it is printed in
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

    def _rows(self, q: Question, scope: Filters, labels: list[tuple[str, ...]], doc_hits: list[Hit],
              first: bool, percent: bool = False) -> tuple[tuple[str, ...], list[tuple[int, Hit]]]:
        """The first of ``labels`` printed as a table's row and (page, passage) of each passage printing it:
        among the document's passages found, else, in the first document, the matches of the labels' words
        (one search, however many labels); a row of percentages when the question asks a share or ``percent``
        (a ratio's printed forms)."""
        percent = percent or q.plan.percent
        for metric in labels:
            if rows := [(page, h) for h in doc_hits if (page := row_page(metric, h.source, percent)) is not None]:
                return metric, rows
        found = self._bm25(q, " ".join(dict.fromkeys(w for label in labels for w in label)), scope, 50) if first else []
        for metric in labels:
            if rows := [(page, h) for h in found if (page := row_page(metric, h.source, percent)) is not None]:
                return metric, rows
        return labels[0], []

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
        on the figures' words: the best ``NARRATIVE_PINS`` MD&A pages of the document for the question, each
        page read whole (:meth:`_page_texts`), a ratio's row of percents counting (``ratio_rows``). A margin
        those pages never state is read off the income statement (:meth:`_unstated_pin`), ranked by
        ``unstated_rank``: first when they do not name its profit either, second when they explain it."""
        mdna = {**scope, "item": sorted(MDNA_ITEMS)}
        pages, _ = self._searched_pages(q, mdna, 20)
        name = part_named(q.plan.lexical)
        part = frozenset(words(name))
        headed = self._headed_pages(q, mdna, name, part)
        pages.update({page: h for page, h in headed.items() if page not in pages})
        texts = self._page_texts(q, mdna, list(pages))
        ratios = ratio_rows(concept_map().row_labels(q.plan.core, q.plan.concepts), q.plan.core)
        order: list[int | None] = list(scoring.explaining_first(texts, q.plan.core, ratios, part,
                                                                 frozenset(headed))[:NARRATIVE_PINS])
        rank = unstated_rank(ratios, texts.values())
        if rank is not None:
            order.insert(rank, None)  # the income statement's place among MD&A's pages
        for page in order:
            if page is None:
                self._unstated_pin(q, scope, pin, rank)
            else:
                h = pages[page]
                pin(h.source, h.id, page, "section", "MD&A's discussion of results (the question asks what drove them)")

    def _headed_pages(self, q: Question, scope: Filters, name: str, part: frozenset[str]) -> dict[int, Hit]:
        """The pages of ``scope`` headed by the name of the part a question names (``name``; ``part``: its
        stems), each with the passage holding its heading: a segment's results in MD&A open under its name, and
        the question's words may not bring that page up (UPS's "International Package" page is its table)."""
        found: dict[int, Hit] = {}
        for h in self._bm25(q, name, scope, PART_HEADINGS) if part else ():
            for page in dict.fromkeys((h.source["page_start"], h.source["page_end"])):
                if page not in found and part_heads(scoring.page_head(h.source, page), part):
                    found[page] = h
        return found

    def _unstated_pin(self, q: Question, scope: Filters, pin: Callable, rank: int) -> None:
        """A margin MD&A never states (a card issuer's gross margin: it prints no gross profit; Amazon's
        operating margin: it explains operating income) is answered from the income statement, whose lines show
        what the company's results are made of: the statement's own page (:meth:`_statement_pages`' last, not a
        summary of its lines); ``rank``: :func:`~query.statements.unstated_rank`."""
        found = self._statement_pages(q, "income statement", scope)
        if found:
            page, source = found[-1]
            why = "MD&A explains its profit, not the margin" if rank else "MD&A states no such margin"
            pin(source, source["chunk_id"], page, "statement", f"the income statement ({why})")

    def _line_item_pin(self, q: Question, scope: Filters, item: tuple[str, ...], pin: Callable) -> None:
        """A figure no statement, note or section is named for may be a primary statement's line item asked by its
        own name (``query.line_items``): each statement's page (found by its title, as a statement asked is) and
        the page it runs on to are read for the item's row; the first page printing it is pinned."""
        for statement, title in QUERIES.items():  # the page the statement pins take first (no look further)
            found = best_statement_page(statement, *self._statement_matches(q, statement, scope, STATEMENT_MATCHES),
                                        summaries=True)
            if not found:
                continue
            pages = [found[0], found[0] + 1]
            hits = self._bm25(q, f"{' '.join(item)} {title}", {**scope, "page_start": [pages[0] - 1, *pages]}, 30)
            rows = [(p, h) for h in hits if (p := line_item_page(item, h.source)) in pages]
            if rows:
                page, h = min(rows, key=lambda t: t[0])
                pin(h.source, h.id, page, "statement", f"the {statement}'s row of the item asked")
                return

    def _count_pins(self, q: Question, scope: Filters, c: Counted, pin: Callable) -> None:
        """A count asked (``query.counts``): among the document's passages matching the thing counted (as said,
        and as the verb's nouns alone: "Deliveries" heads a table the airplanes counted are not named in), the
        first page in the document's order printing its row, and the first stating it in a sentence (asked as an
        action, "did it open", after the verb, "opened 2,067 restaurants": a count said with no verb, "its 1,040
        retail stores worldwide", may be another one than the one asked)."""
        hits = [h for said in c.searched() for h in self._bm25(q, said, scope, COUNT_SEARCH)]
        row = _first_page(hits, lambda chunk: count_row_page(chunk, c))
        if row:
            pin(row[1].source, row[1].id, row[0], "section", "the row counting what is asked")
        said = _first_page(hits, lambda chunk: count_sentence_page(chunk, c, c.acted))
        if said and (not row or said[0] != row[0]):
            pin(said[1].source, said[1].id, said[0], "section", "states the count asked")

    def _stated_pin(self, q: Question, doc_id: str, named: tuple[str, ...], pin: Callable) -> None:
        """A figure no statement, note or section is named for (:func:`unplaced_figure`; ``named``: its
        measure, :func:`query.stated.measure`) is given where the filing sums up its period, at MD&A's
        opening (its first ``OPENING_CHUNKS`` passages, read by id): the first page there stating the figure."""
        ids = [chunk_id(doc_id, item, seq) for item in sorted(MDNA_ITEMS) for seq in range(OPENING_CHUNKS)]
        for chunk in self._in_order(q, ids):
            page = stated_page(chunk, named)
            if page is not None:
                pin(chunk, chunk["chunk_id"], page, "section", "states the figure asked where MD&A sums up the period")
                return

    def _definition_pin(self, q: Question, scope: Filters, defined: tuple[str, ...], pin: Callable) -> None:
        """A term's definition asked (``query.defined``): the pages of the document's passages matching the
        question and a word of defining that define the term, the first ``DEFINITION_PINS`` in the
        document's order (a filing defines a term where it introduces it, and may again in a glossary)."""
        found: dict[int, Hit] = {}
        for h in self._bm25(q, f"{q.plan.lexical} defined definition", scope, 50):
            at = definition_at(h.source.get("text") or "", defined)
            if at is not None:
                found.setdefault(page_position(h.source, at)[0], h)
        for page in sorted(found)[:DEFINITION_PINS]:
            pin(found[page].source, found[page].id, page, "section", "defines the term asked")

    def _page_texts(self, q: Question, scope: Filters, pages: list[int]) -> dict[int, str]:
        """The text of every passage on these pages (in their order), not only the question's best ones: the
        sentence that explains a change may sit in a page's passage the search left out, its table matching
        the question's words better (Nike's Converse page: its table came up, not the sentence below it)."""
        starts = sorted(set(pages) | {page - 1 for page in pages})  # a passage run on from the page before
        hits = self._bm25(q, q.plan.lexical, {**scope, "page_start": starts}, PAGE_PASSAGES * len(pages))
        return scoring.page_texts(pages, [h.source for h in hits])

    def _forecast_pins(self, q: Question, scope: Filters, year: int, pin: Callable) -> None:
        """A forecast is a sentence of expectation naming its year ("we expect to contribute $47 million in
        2024"), in MD&A or a note, which the search ranks below the year's reported figures: the best
        ``FORECAST_PINS`` pages of the document for the question that state one; when the question's passages
        hold none, those of the passages holding the year with a word of expectation (a forecast stated once
        in a long liquidity passage ranks below the tables repeating the question's words)."""
        pages, texts = self._searched_pages(q, scope, 30)
        forecasts = scoring.forecasting_first(texts, q.plan.core, year)
        if not forecasts:
            pages, texts = self._by_page(self._bm25(q, f"{q.plan.lexical} {year} {FORECAST_TERMS}", scope, 30))
            forecasts = scoring.forecasting_first(texts, q.plan.core, year, least=FORECAST_WHAT)
        for page in forecasts[:FORECAST_PINS]:
            h = pages[page]
            pin(h.source, h.id, page, "section", f"states an expectation of {year} (a forecast is asked)")

    def _searched_pages(self, q: Question, scope: Filters, k: int) -> tuple[dict[int, Hit], dict[int, str]]:
        """The question's ``k`` best passages in ``scope`` by page (:meth:`_by_page`)."""
        return self._by_page(self.backend.hybrid(q.snap.target("passages"), INDEXES["passages"], q.plan.lexical,
                                                 q.page_vector, scope, k, q.opts.fusion,
                                                 dense_weight=q.opts.dense_weight))

    @staticmethod
    def _by_page(hits: list[Hit]) -> tuple[dict[int, Hit], dict[int, str]]:
        """Passages by page, in the search's order: each page's first hit, and the text of every chunk of the
        page among them (the sentence sought may not be in its best one)."""
        pages: dict[int, Hit] = {}
        for h in hits:
            pages.setdefault(scoring.evidence_page(h.source), h)
        return pages, scoring.page_texts(list(pages), [h.source for h in hits])

    def _following(self, q: Question, statement: str, chunks: list[dict]) -> dict[str, dict]:
        """chunk_id -> the chunk after it, for the chunks that name the statement near their end (an HTML
        statement's title ends a text chunk, its table is the next one): one lookup by id."""
        after = {nxt: c["chunk_id"] for c in chunks
                 if titled_last(statement, c) and (nxt := next_chunk_id(c)) is not None}
        if not after:
            return {}
        found = self._get(q, sorted(after))
        return {after[f["chunk_id"]]: f for f in found if f.get("chunk_id") in after}

    def _continuation(self, q: Question, statement: str, scope: Filters, page: int) -> dict | None:
        """A chunk of the next page when the statement runs on to it (``query.statements.continuation``)."""
        hits = self._bm25(q, f"{QUERIES[statement]} total net cash", {**scope, "page_start": [page, page + 1]}, 40)
        return continuation(statement, page, [h.source for h in hits])


def unplaced_figure(plan: QueryPlan) -> bool:
    """Whether the question names no statement, note, MD&A section or cover to read it in, and asks no driver,
    forecast or definition: a measure outside the reviewed vocabulary ("catastrophe losses"), or one whose
    concept names only MD&A's Item ("Systemwide sales"), which :meth:`Pins._stated_pin` reads where MD&A
    sums up."""
    return not (plan.statements or plan.notes or plan.sections or plan.narrative or plan.cover or plan.defines
                or plan.forecast is not None)


def _whole_of_part(pin: Hit, parts: frozenset[str]) -> bool:
    """A consolidated statement's page pinned in a document whose facts found the part asked (a segment's, a
    region's figure: ``parts``): the statement prints the whole, not the figure asked, so the part's own
    pages (the segment note, MD&A's section) stand in its place."""
    return pin.source["doc_id"] in parts and pin.source["_basis"] in ("statement", "continuation")


PART = "_part"  # a pin's mark: a part's own page (:class:`query.part_pins.PartPins`)
COMPARED = "_compared"  # a pin's mark: the table setting the parts compared side by side (regions')


def pin_score(top: float, place: int) -> float:
    """The score of the pin at ``place`` (0: first) among one question's pins: just above the best passage's
    (``top``), each next one a step lower."""
    return top * (1.02 - 0.01 * place)


NOTE_SPAN = 8  # pages a note runs over after its heading's page, at most, for a row to be read as inside it


def rows_before_notes(pinned: list[Hit]) -> list[Hit]:
    """``pinned`` (best first) with each row pin that falls inside a note pinned in its document (on the
    note's heading page or up to ``NOTE_SPAN`` pages after it) moved just above that note's first pin: the
    row prints the figure asked ("Discount rate" in the pension note's table of assumptions, three pages
    on), the note's heading page only opens the subject (3M's retirement-benefits note opens under its debt
    note's last paragraphs)."""
    out = list(pinned)
    for row in [h for h in pinned if h.source.get("_basis") == "row"]:
        page, doc = int(row.source["_page"]), row.source["doc_id"]
        note = next((n for n, h in enumerate(out) if h.source.get("_basis") == "note" and h.source["doc_id"] == doc
                     and 0 <= page - int(h.source["_page"]) <= NOTE_SPAN), None)
        if note is not None and out.index(row) > note:
            out.remove(row)
            out.insert(note, row)
    return out


def with_facts(pinned: list[Hit], facts: FactPinned) -> list[Hit]:
    """The statements' pins and the facts' in one order: the facts' first, but a comparison's table and a
    part's own pages above the facts of their document where those cannot answer alone (:func:`_above_facts`);
    a consolidated statement's pages dropped where the facts found the part's (:func:`_whole_of_part`)."""
    kept = [h for h in pinned if not _whole_of_part(h, facts.parts)]
    with_pins = frozenset(h.source["doc_id"] for h in facts.pins)
    first = [h for h in kept if _above_facts(h, with_pins, facts.wholes)]
    return first + facts.pins + [h for h in kept if not _above_facts(h, with_pins, facts.wholes)]


def _above_facts(pin: Hit, with_pins: frozenset[str], wholes: frozenset[str]) -> bool:
    """Whether a pin answers before its document's facts (``with_pins``: the documents the facts pinned):
    the table of the regions compared ("Which of Apple's geographic segments grew most?"), since a fact
    states one region's figure (or the company's) and the table all of them with their change; or a part's
    own page where the facts found the whole's figure alone (``wholes``: the company's revenue, no segment's
    or product's member), since the part's row answers and the consolidated statement prints a whole nobody
    asked."""
    doc = pin.source["doc_id"]
    return (bool(pin.source.get(COMPARED)) and doc in with_pins) or (bool(pin.source.get(PART)) and doc in wholes)


def _first_page(hits: list[Hit], read: Callable[[dict], int | None]) -> tuple[int, Hit] | None:
    """The first page in the document's order that ``read`` finds in a hit's passage, with that hit."""
    found = {p: h for h in hits if (p := read(h.source)) is not None}
    return (min(found), found[min(found)]) if found else None


def _best_per_company(docs: list[ScoredDoc]) -> list[DocInfo]:
    """The best document of each company, companies in rank order."""
    best: dict[str | None, DocInfo] = {}
    for d in docs:
        best.setdefault(d.doc.entity, d.doc)
    return list(best.values())
