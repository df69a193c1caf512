"""Part pins: a part of the company the question names (a segment, a product, a business) printed by MD&A's
table of parts or its own section, which neither the consolidated statements nor the search's prose outrank
it with. The part itself is read by ``query.parts``; these are the pages ``query.pins`` adds for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import pairwise

from domain.periods import PERIOD_WORDS
from domain.sec_items import MDNA_ITEMS, STATEMENT_ITEMS
from domain.text import typed_lower, words
from kernel.search import Filters, Hit
from query.catalog import DocInfo
from query.concepts import concept_map
from query.part_columns import part_column
from query.parts import (
    PartRow,
    modifier_words,
    named_parts,
    names_cue,
    of_period,
    part_heading,
    part_row,
    part_title,
)
from query.pin_policy import PinReader
from query.question import Question
from query.share_sentences import SHARE_SEARCH, amount_sentence_page, asks_share, share_sentence_page
from query.statements import page_position, row_line
from schemas.chunks import next_chunk_id

PART_SEARCH = 50  # a whole document's passages read for a part's row (a note's table among MD&A's prose)
ROW_SEARCH = 30  # MD&A's passages (a release's: the whole document's) read for the part's table row
INITIAL = 2  # letters of a part's word said by initials, which finds no row of its own in a headless passage
PART_SECTION_TABLES = 3  # chunks read after a part's section heading for the table of its results


class PartPins(PinReader):
    """``PartPins(backend)(question, document, scope, pin)``: the part's table row and section pages."""

    def __call__(self, q: Question, d: DocInfo, scope: Filters, pin: Callable, before_measure: bool = False) -> None:
        """A figure of a part the question names (a segment's revenue, a product's sales) is printed by MD&A's
        table of parts, which neither the consolidated statements nor the search's prose outrank it with:
        the MD&A page of the document whose table row the part labels (:func:`query.parts.part_row`;
        a document without MD&A, a release, anywhere in it), then the part's own MD&A section
        (:meth:`_section`). A 10-K prints the figure again outside MD&A, in the segment note or the note's table
        of products, and some print it there only (Pfizer's 10-Q tabulates a product's revenues, "Paxlovid", in
        a note only, MGM's a subsidiary's, "MGM China", in its segment note): the part's row is then pinned
        from the whole document in each place not pinned yet (:meth:`_row_anywhere`). With ``before_measure``,
        the part said in lower case just before the measure instead ("automotive revenues"), which is often
        a line of the income statement as well: the caller pins it after the statements."""
        cues = concept_map().metric_cues(q.plan.core, q.plan.concepts)
        parts = asked_parts(q, d, before_measure) if cues else frozenset()
        if not parts:
            return
        whole = self._bm25(q, q.plan.lexical, scope, PART_SEARCH)  # the question's search, read by each place
        if asks_share(q.plan.lexical):  # the share itself, said in a sentence, before the part's amounts
            self._share(q, parts, whole[:SHARE_SEARCH], scope, pin)
        mdna = self._bm25(q, q.plan.lexical, {**scope, "item": sorted(MDNA_ITEMS)}, ROW_SEARCH)
        hits = mdna or whole[:ROW_SEARCH]  # a release has no MD&A: its tables are the document's
        captions = self._captions(q, cues, hits + whole)  # both places' searches: one lookup for the question
        rowed = self._row(q, parts, cues, hits, pin, captions)
        if self._section(q, parts, cues, hits, pin):
            rowed |= {MDNA}
        if rowed and not mdna:  # a release prints the part's figure once, in its table of parts
            return
        self._row_anywhere(q, parts, cues, whole, scope, pin, rowed, captions)
        if mdna and MDNA not in rowed:  # no MD&A table printed it: its section's sentence may say it
            self._said(q, parts, cues, mdna, pin)

    def _share(self, q: Question, parts: frozenset[str], asked: list[Hit], scope: Filters, pin: Callable) -> None:
        """Pins the first page in the document's order whose sentence states the part's share of the measure
        asked (:func:`query.share_sentences.share_sentence_page`), among the question's passages (``asked``)
        and those matching the part's name with the measure's words and "percent": where no table prints the
        shares, the filing says them in a sentence the part's rows of amounts outrank."""
        measures = concept_map().figure_cues(q.plan.concepts)
        measured = " ".join(w for cue in measures for w in cue)
        hits = asked + self._bm25(q, f"{' '.join(sorted(parts))} {measured} percent", scope, SHARE_SEARCH)
        found = {p: h for h in hits if (p := share_sentence_page(h.source, parts, measures)) is not None}
        if found:
            page = min(found)
            pin(found[page].source, found[page].id, page, "section", "states the part's share of the measure asked")

    def _said(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit], pin: Callable) -> None:
        """Pins the page of the first of ``hits`` (MD&A's) whose sentence about the part states its amount
        (:func:`query.share_sentences.amount_sentence_page`), after the rows, where no MD&A table row was found
        for it: some filings print the part's figure in no table of MD&A, only in its section's prose
        ("Oncology products achieved sales of $17.7 billion"). Measured first after the MD&A rows whatever
        they found: the sentence outranked a note's row it should follow (FinanceBench's Adobe Digital Media)."""
        years = frozenset(q.plan.analysis.years)
        for h in hits:
            if (page := amount_sentence_page(h.source, parts, cues, years)) is not None:
                pin(h.source, h.id, page, "section", "states the part's amount in a sentence")
                return

    def _row_anywhere(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit], scope: Filters,
                      pin: Callable, pinned: set[str], captions: Mapping[str, str]) -> None:
        """The part's row in each place of the whole document that prints it and none is ``pinned`` for yet
        (MD&A, then the notes: :func:`place`): a 10-K prints a product's sales in MD&A's table and again
        in the note's table of products. The question's search over the whole document first (``hits``), then,
        where the measure is one long tables list part by part (a product's sales), the part's name alone, for
        a long table's later passage printing its row under no header, unless the part is said by initials."""
        pinned = pinned | self._row(q, parts, cues, unpinned(hits, pinned), pin, captions)
        named = any(len(w) > INITIAL for w in parts)  # initials ("U.S.") label every geographic table's rows
        if not pinned >= set(PLACES) and named and concept_map().lists_parts(q.plan.concepts):
            headless = self._bm25(q, " ".join(sorted(parts)), scope, PART_SEARCH)  # the part's name alone
            self._row(q, parts, cues, unpinned(headless, pinned), pin, {}, concept_map().measure_cues)

    def _row(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit], pin: Callable,
             captions: Mapping[str, str], measures: tuple = ()) -> set[str]:
        """Pins the page of the table row among ``hits`` that the part labels (:func:`query.parts.part_row`),
        one in MD&A and one in the notes (:func:`rows_per_place`), a bare table read by its caption
        (``captions``: :meth:`_captions`). The places pinned in (:func:`place`)."""
        titled = typed_lower(q.plan.core)
        asked = frozenset(words(q.plan.core))
        months, years = q.plan.analysis.months, frozenset(q.plan.analysis.years)

        def row(h: Hit, before: Mapping[str, str]) -> PartRow | None:
            chunk_id = h.source.get("chunk_id", "")
            return _part_row(asked, parts, cues, h.source, titled, measures, months, years,
                             before.get(chunk_id, ""), captions.get(chunk_id, ""))

        rows = [(found, h) for h in hits if (found := row(h, {}))]
        if (months or years) and rows:  # a passage opening inside its table: the head is the chunk before's
            before = self._before(q, [h.source for _, h in rows])
            rows = [(found, h) for _, h in rows if (found := row(h, before))]
        chosen = rows_per_place(rows)
        for found, h in chosen:
            pin(h.source, h.id, found.page, "row", f"prints the part asked as a table's row ({found.label!r})")
        return {place(h) for _, h in chosen}

    def _captions(self, q: Question, cues: tuple, hits: list[Hit]) -> dict[str, str]:
        """The text before each table passage among ``hits`` that names none of the metric's ``cues`` (over
        the tables before it: a long table is cut into passages), by passage id, where its caption may name
        the metric (:func:`query.parts.captioned`). One lookup for both places' searches, read by each
        :meth:`_row` (a headless passage's caption is not read: it names no measure)."""
        bare = [h.source for h in hits if h.source.get("kind") == "table" and not names_cue(h.source.get("text") or "", cues)]
        return self._before(q, bare, over_tables=True) if bare else {}

    def _section(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit], pin: Callable) -> bool:
        """A part's own MD&A section (its heading closing a text chunk, :func:`query.parts.part_heading`)
        prints the part's figure in the table after its heading, on a row labelled by the metric alone
        ("Revenue | $1,953"): the first such section among the search's MD&A chunks, its table's page. Whether
        one was pinned."""
        months = q.plan.analysis.months
        for h in hits:
            heading = part_heading(parts, h.source)
            if heading is None:
                continue
            chain = [h.source] + self._next_chunks(q, h.source, PART_SECTION_TABLES)  # each table after its prior
            if found := _table_row(cues, [(t, 0, prior.get("text") or "") for prior, t in pairwise(chain)], months):
                pin(found[0], found[0]["chunk_id"], found[1], "row", f"the section {heading!r} prints the figure asked")
                return True
        if found := self._table_after_heading(q, parts, cues, hits, months):
            (chunk, page), heading = found
            pin(chunk, chunk["chunk_id"], page, "row", f"the section {heading!r} prints the figure asked")
            return True
        for h in hits:  # no section opened at a chunk's end: a part's title over its table inside one
            titled = part_title(parts, h.source)
            if titled is None:
                continue
            heading, after = titled
            tables = [(h.source, after, "")] + [(t, 0, h.source.get("text") or "") for t in self._next_chunks(q, h.source, 1)]
            if found := _table_row(cues, tables, months):
                pin(found[0], found[0]["chunk_id"], found[1], "row", f"the table {heading!r} prints the figure asked")
                return True
        return False

    def _table_after_heading(self, q: Question, parts: frozenset[str], cues: tuple, hits: list[Hit],
                             months: frozenset[int]) -> tuple[tuple[dict, int], str] | None:
        """:func:`table_after_heading` among the search's passages, the chunks before their tables read in
        one lookup."""
        ids = sorted({i for h in hits if h.source.get("kind") == "table" and (i := next_chunk_id(h.source, -1))})
        before = {c["chunk_id"]: c for c in self._get(q, ids)} if ids else {}
        return table_after_heading(parts, cues, [h.source for h in hits], before, months)


def table_after_heading(parts: frozenset[str], cues: tuple, chunks: list[dict], before: Mapping[str, dict],
                        months: frozenset[int] = frozenset()) -> tuple[tuple[dict, int], str] | None:
    """((chunk, page), heading) of the first table among ``chunks`` that prints a row of the metric (``cues``)
    for a span asked (``months``, :func:`_table_row`) right after a part's heading closing the chunk before it
    (``before``: chunks by id): the part's section whose heading the search did not find, that chunk's text
    being about what came before (Boeing's "Global Services / Results of Operations" closes a passage on
    another segment's programs)."""
    for chunk in chunks:
        prior = before.get(next_chunk_id(chunk, -1) or "")
        if chunk.get("kind") != "table" or prior is None or \
                (found := _table_row(cues, [(chunk, 0, prior.get("text") or "")], months)) is None:
            continue
        if (heading := part_heading(parts, prior)) is not None:
            return found, heading
    return None


def _table_row(cues: tuple, tables: list[tuple[dict, int, str]],
               months: frozenset[int] = frozenset()) -> tuple[dict, int] | None:
    """(chunk, page) of the first of ``tables`` (each with the character its rows may start from and the
    text before it, where its head may stand) printing a row labelled by one of ``cues`` for a span asked
    (``months``: :func:`query.parts.of_period`; a 10-Q's MD&A gives a segment a section for the quarter and
    another for the nine months, Disney's)."""
    for table, start, before in tables:
        lines = (table.get("text") or "").split("\n")
        for cue in cues:
            found = row_line(cue, table, after=start)
            if found is not None and of_period(lines, found[0], months, before):
                return table, page_position(table, found[1])[0]
    return None


def _part_row(asked: frozenset[str], parts: frozenset[str], cues: tuple, chunk: dict, titled: bool, measures: tuple,
              months: frozenset[int], years: frozenset[int] = frozenset(), before: str = "",
              caption: str = "") -> PartRow | None:
    """The part's row in a chunk (:func:`query.parts.part_row`) or, with no header's ``measures`` to do without,
    the metric's row under the part's column title, of a year asked (:func:`query.part_columns.part_column`:
    a segment note printing the segments as columns, a table for each year)."""
    return part_row(asked, parts, cues, chunk, titled, measures, months, before, caption) or \
        (None if measures else part_column(asked, parts, cues, chunk, months, before, years))


def rows_per_place(rows: list[tuple[PartRow, Hit]]) -> list[tuple[PartRow, Hit]]:
    """Of the part's rows found (row, passage), the one to pin in each place that
    prints a part's figure (MD&A's table, then the notes', :func:`place`), or, where neither does, the one
    elsewhere (a release's table, a 10-K's Item 1): the label naming most of the part, then a row of amounts
    (not a table of the parts' percent changes), then the first page:
    MD&A tabulates the parts of the whole before each segment's own (NIKE Direct's sales, the brand's, before
    each geography's). A 10-K's business or risk factors printing a segment's sales again are no place of
    their own (Corning's Item 1A, CVS Health's Item 1)."""
    placed = [found for where in PLACES if (found := [r for r in rows if place(r[1]) == where])]
    placed = placed or ([rows] if rows else [])
    return [min(found, key=lambda r: (-r[0].named, not r[0].amount, r[0].page)) for found in placed]


def unpinned(hits: list[Hit], pinned: set[str]) -> list[Hit]:
    """The passages in places no row is pinned in yet; none elsewhere once one is (:func:`rows_per_place`)."""
    return [h for h in hits if place(h) not in pinned and not (pinned and place(h) == ELSEWHERE)]


MDNA, NOTES, ELSEWHERE = "MD&A", "notes", "elsewhere"
PLACES = (MDNA, NOTES)  # where a part's row is pinned, one each: MD&A's table of parts, then the notes'


def place(hit: Hit) -> str:
    """Where a passage stands among the places that print a part's figure: MD&A, the notes (the financial
    statements' Item), or elsewhere."""
    item = hit.source.get("item")
    return MDNA if item in MDNA_ITEMS else NOTES if item in STATEMENT_ITEMS else ELSEWHERE


def asked_parts(q: Question, d: DocInfo, before_measure: bool = False) -> frozenset[str]:
    """The parts of the company the question names (:func:`query.parts.named_parts`), its companies' names,
    periods and the metric's own words aside (``d``: the document, whose company's names are no part); with
    ``before_measure``, when it names none, the part it says in lower case just before the measure
    (:func:`query.parts.modifier_words`), less every word the concept map names a measure or asks why with
    (but a hyphenated compound's that no cue says in a row: "company-operated")."""
    names = [e.name for e in q.plan.analysis.entities] + [d.company or "", d.ticker or ""]  # not its businesses
    metric = concept_map().metric_words(q.plan.core, q.plan.concepts)
    ignore = metric | PERIOD_WORDS | frozenset(w for n in names for w in words(n))
    titled = typed_lower(q.plan.core)  # the lexical query prints periods in capitals ("Q2 2023")
    named = named_parts(q.plan.lexical.lower() if titled else q.plan.lexical, ignore)
    if not before_measure:
        return named
    return frozenset() if named else \
        modifier_words(q.plan.lexical, ignore, metric) - concept_map().vocabulary(q.plan.lexical)
