"""Sum pins: a figure asked by segment or product with none named ("Are there any product categories that
represent more than 20% of Boeing's revenue?", "Which of its segments had the highest net sales?") is read
off the table whose rows add up to the whole's figure (:func:`query.part_sums.summed_parts`): the segment
note's "Revenues: ... Total revenues", the note's "Net sales by class of similar products", MD&A's
segment table. The consolidated statement prints the whole only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from domain.text import has_phrase, phrase_text, words
from kernel.search import Filters, Hit
from query.catalog import DocInfo
from query.concepts import concept_map
from query.facts import PRODUCT_AXIS, breakdown_axes
from query.part_pins import PLACES, asked_parts, place
from query.part_sums import PartSum, summed_parts
from query.pin_policy import TABLES_BACK, PinReader
from query.question import Question
from query.region_pins import named_regions
from query.statements import page_position
from schemas.chunks import next_chunk_id, placed_before, shared_chars

SUM_SEARCH = 50  # passages of the document read for the table of parts
TABLE_RUN = 4  # table passages after a table passage its rows may run on into
LISTING = "total segment"  # with the measure's words: a table of parts' amounts and its caption
SHARES_LISTING = "percentages percent"  # with the measure's words: a table of shares' caption ("percentages of Net sales")
CONFIRMING_PAGES = 2  # pages whose tables add up to a total: a whole's, not one part's split or a venture's
BEFORE_CHARS = 400  # characters of the passage before a table's that may caption it (a table passage's head)


class SumPins(PinReader):
    """``SumPins(backend)(question, document, scope, pin)``: the page of the parts' table, in MD&A and in the
    notes."""

    def __call__(self, q: Question, d: DocInfo, scope: Filters, pin: Callable) -> None:
        """The tables of parts adding up to their total (:func:`query.part_sums.summed_parts`) that say the
        measure asked (:func:`_says`), read among the question's matches and the matches of the measure's
        words with "total" and "segment" (a table of figures says few of the question's words), each run on
        into the passages after it (:meth:`_run_on`); those :func:`chosen_tables` chooses are pinned at their
        first part's page. None when the question names a part, whose row ``query.part_pins`` reads ("What
        segment profit did Caterpillar's Resource Industries earn?")."""
        if asked_parts(q, d):
            return
        measures = concept_map().figure_cues(q.plan.concepts)
        measured = " ".join(w for cue in measures for w in cue)
        listings = (q.plan.lexical, f"{LISTING} {measured}", f"{SHARES_LISTING} {measured}")
        hits = {h.id: h for text in listings for h in self._bm25(q, text, scope, SUM_SEARCH)}
        found: dict[tuple[str, int], tuple[PartSum, Hit, int]] = {}  # by the table's passage and place in it
        for pieces, text in self._run_on(q, [h.source for h in hits.values()]):
            for s in summed_parts(text, measures):
                chunk, start = next((c, at) for c, at in reversed(pieces) if at <= s.first)
                found.setdefault((chunk["chunk_id"], s.first - start), (s, Hit(chunk["chunk_id"], 0.0, chunk),
                                                                        s.first - start))
        before = self._captions(q, [h.source for s, h, _ in found.values() if not _says(s, "", measures)])
        said = [(s, h, at) for s, h, at in found.values() if _says(s, before.get(h.id, ""), measures)]
        tables = [(s, place(h), page_position(h.source, at)[0]) for s, h, at in said]
        for i in chosen_tables(tables, PRODUCT_AXIS in breakdown_axes(q.plan.lexical)):
            s, h, at = said[i]
            parts = f"its {s.parts} rows' shares" if s.shares else f"its {s.parts} rows"
            pin(h.source, h.id, tables[i][2], "row", f"{parts} add up to {s.label!r}")

    def _run_on(self, q: Question, chunks: list[dict]) -> list[tuple[list[tuple[dict, int]], str]]:
        """Each passage's text run on into the passages after it in its Item (:func:`_joined`), with where
        each passage starts in it: a table the chunking split has its total's row in a later passage
        (PepsiCo's divisions' net revenue in the next; a long table of the mirror's filings in up to
        ``TABLE_RUN`` table passages, each repeating its head), and a passage closing on a table's caption
        has the table in the next (Home Depot's "net sales by major product line"), or after the tables of
        its pages' starts (``schemas.chunks.placed_before``: Colgate-Palmolive's shares of net sales after
        four cash-flow tables of the page before), read with up to ``TABLES_BACK`` more (a second lookup)."""
        ahead = {c["chunk_id"]: _ahead(c, 1, TABLE_RUN) for c in chunks}
        found = self._by_id(q, ahead)
        behind = [c for c in chunks if (nxt := [found[i] for i in ahead[c["chunk_id"]] if i in found])
                  and all(placed_before(c, t) for t in nxt)]
        if behind:
            further = {c["chunk_id"]: _ahead(c, TABLE_RUN + 1, TABLES_BACK) for c in behind}
            found |= self._by_id(q, further)
            ahead |= {chunk: ahead[chunk] + ids for chunk, ids in further.items()}
        return [_joined(c, [found[i] for i in ahead[c["chunk_id"]] if i in found]) for c in chunks]

    def _captions(self, q: Question, chunks: list[dict]) -> dict[str, str]:
        """The last ``BEFORE_CHARS`` of the passage before each table passage among ``chunks`` (one lookup,
        :meth:`PinReader._before`): a table passage's caption is the text passage before it."""
        before = self._before(q, [c for c in chunks if c.get("kind") == "table"], over_tables=True)
        return {chunk: text[-BEFORE_CHARS:] for chunk, text in before.items()}


def _ahead(chunk: dict, first: int, n: int) -> list[str]:
    """The ids of the ``n`` chunks from the ``first``-th after ``chunk`` in its Item."""
    return [i for k in range(first, first + n) if (i := next_chunk_id(chunk, k)) is not None]


def _joined(chunk: dict, after: list[dict]) -> tuple[list[tuple[dict, int]], str]:
    """(each passage with where it starts, the text) of a passage run on into those ``after`` it, each
    overlap once (a row printed twice would be added twice): into the next, past the tables of its pages'
    starts (``schemas.chunks.placed_before``), and past it only into table passages following one another."""
    text, prior, pieces = chunk.get("text") or "", chunk, [(chunk, 0)]
    for nxt in after:
        if prior is chunk and placed_before(chunk, nxt):
            continue
        if prior is not chunk and not (prior.get("kind") == nxt.get("kind") == "table"):
            break
        rest = (nxt.get("text") or "")[shared_chars(prior, nxt):]
        pieces.append((nxt, len(text) + 1 - (len(nxt.get("text") or "") - len(rest))))
        text, prior = f"{text}\n{rest}", nxt
    return pieces, text


def _says(s: PartSum, before: str, measures: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a table measures one of ``measures`` (any, when none is asked): its total's label says one,
    or, when the label names no measure at all ("Total", "Total Company"), its caption or the text
    ``before`` its passage does ("Total non-current liabilities" under a caption on net sales is no sales)."""
    if not measures:
        return True
    label = phrase_text(words(s.label))
    if any(has_phrase(label, cue) for cue in concept_map().measure_cues):
        return any(has_phrase(label, cue) for cue in measures)
    stems = phrase_text(words(f"{s.caption} {before}"))
    return any(has_phrase(stems, cue) for cue in measures)


def chosen_tables(tables: list[tuple[PartSum, str, int]], products: bool) -> list[int]:
    """Which of the tables of parts found, each with its place (``query.part_pins.place``) and page, are
    pinned, in order (indexes): one in MD&A and one in the notes (one elsewhere where neither has one; a
    release), and so one of shares in percent (``PartSum.shares``: the parts' shares, which the question
    asks, printed where the amounts are not: Colgate-Palmolive's classes of products), the larger total
    first. Of a place's tables: one whose total tables of another page add up to too (``CONFIRMING_PAGES``:
    not General Mills' joint ventures' sales, on one page); then, when ``products`` are asked, one whose parts
    are no regions (:func:`regional`); then one adding up to the whole's total, the one the tables of most
    pages add up to (the revenue the statement, the segment note and MD&A each add up to; not a lone table
    of employees by region, nor one segment's sales by each type on one page); then the largest total; then
    the most parts; then the first page."""
    pages_adding_up = Counter(total for total, _ in {(round(s.total), page) for s, _, page in tables})

    def rank(i: int) -> tuple:
        s, _, page = tables[i]
        pages = pages_adding_up[round(s.total)]
        return pages >= CONFIRMING_PAGES, not (products and regional(s)), pages, s.total, s.parts, -page

    placed = []
    for shares in (False, True):
        kind = [i for i, t in enumerate(tables) if t[0].shares == shares]
        chosen = [max(found, key=rank) for where in PLACES if (found := [i for i in kind if tables[i][1] == where])]
        placed += chosen or ([max(kind, key=rank)] if kind else [])
    return sorted(placed, key=lambda i: -tables[i][0].total)  # stable: MD&A's first of equal totals


def regional(s: PartSum) -> bool:
    """Whether most of a table's parts are regions (a product's split asked is no region's: Apple's net sales
    by product category, not its geographic segments' of the same total)."""
    return 2 * sum(bool(named_regions(words(label))) for label in s.labels) > len(s.labels)
