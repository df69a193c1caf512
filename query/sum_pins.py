"""Sum pins: a figure asked by segment or product with none named ("Are there any product categories that
represent more than 20% of Boeing's revenue?", "Which of its segments had the highest net sales?") is read
off the table whose rows add up to the whole's figure (:func:`query.part_sums.summed_parts`): the segment
note's "Revenues: ... Total revenues", the note's "Net sales by class of similar products", MD&A's
segment table. The consolidated statement prints the whole only."""

from __future__ import annotations

from collections.abc import Callable

from domain.text import has_phrase, phrase_text, words
from kernel.search import Filters, Hit
from query.catalog import DocInfo
from query.concepts import concept_map
from query.facts import PRODUCT_AXIS, breakdown_axes
from query.part_pins import PLACES, asked_parts, place
from query.part_sums import PartSum, summed_parts
from query.pin_policy import PinReader
from query.question import Question
from query.region_pins import named_regions
from query.statements import page_position
from schemas.chunks import next_chunk_id, shared_chars

SUM_SEARCH = 50  # passages of the document read for the table of parts
BEFORE_CHARS = 400  # characters of the passage before a table's that may caption it (a table passage's head)


class SumPins(PinReader):
    """``SumPins(backend)(question, document, scope, pin)``: the page of the parts' table, in MD&A and in the
    notes."""

    def __call__(self, q: Question, d: DocInfo, scope: Filters, pin: Callable) -> None:
        """In each place that prints one (MD&A, then the notes; elsewhere where neither does: a release), the
        table of parts adding up to the largest total that says the measure asked (its total's label or its
        caption): the whole's, not one segment's products; of equal totals, one whose parts are no regions
        when products are asked (Apple's net sales by category, not by geographic segment), then the one of
        most parts (a segment note's rows, not an income statement's products and services). Read among the
        question's matches and the matches of the measure's words with "total" and "segment" (a table of
        figures says few of the question's words). Pinned at its first part's page, the larger total first.
        None when the question names a part, whose row ``query.part_pins`` reads ("What segment profit did
        Caterpillar's Resource Industries earn?")."""
        if asked_parts(q, d):
            return
        measures = concept_map().figure_cues(q.plan.concepts)
        listing = f"total segment {' '.join(w for cue in measures for w in cue)}"
        hits = {h.id: h for text in (q.plan.lexical, listing) for h in self._bm25(q, text, scope, SUM_SEARCH)}
        found = [(s, h) for h, text in self._run_on(q, list(hits.values()))
                 for s in summed_parts(text) if s.first < len(h.source.get("text") or "")]
        before = self._before(q, [h.source for s, h in found if not _says(s, "", measures)])
        said = [(s, h) for s, h in found if _says(s, before.get(h.id, ""), measures)]
        products = PRODUCT_AXIS in breakdown_axes(q.plan.lexical)

        def rank(t: tuple[PartSum, Hit]) -> tuple:
            s, h = t
            return s.total, not (products and regional(s)), s.parts, -page_position(h.source, s.first)[0]

        chosen = [max(rows, key=rank) for where in PLACES if (rows := [t for t in said if place(t[1]) == where])]
        chosen = chosen or ([max(said, key=rank)] if said else [])
        for s, h in sorted(chosen, key=lambda t: -t[0].total):  # stable: MD&A's first of equal totals
            pin(h.source, h.id, page_position(h.source, s.first)[0], "row",
                f"its {s.parts} rows add up to {s.label!r}")

    def _run_on(self, q: Question, hits: list[Hit]) -> list[tuple[Hit, str]]:
        """Each passage's text run on into the passage after it in its Item (one lookup): a table the chunking
        split has its total's row in the next passage (PepsiCo's divisions' net revenue). A table is the
        passage's own when its first part's row is."""
        after = {h.id: i for h in hits if (i := next_chunk_id(h.source)) is not None}
        found = {c["chunk_id"]: c for c in self._get(q, sorted(set(after.values())))} if after else {}
        return [(h, _joined(h.source, found.get(after.get(h.id, "")))) for h in hits]

    def _before(self, q: Question, chunks: list[dict]) -> dict[str, str]:
        """The last ``BEFORE_CHARS`` of the passage before each table passage among ``chunks`` (one lookup):
        a table passage's caption is the text passage before it."""
        ids = {c["chunk_id"]: i for c in chunks if c.get("kind") == "table" and (i := next_chunk_id(c, -1))}
        texts = {c["chunk_id"]: c.get("text") or "" for c in self._get(q, sorted(set(ids.values())))} if ids else {}
        return {chunk: texts.get(prior, "")[-BEFORE_CHARS:] for chunk, prior in ids.items()}


def _joined(chunk: dict, after: dict | None) -> str:
    """A passage's text and the text of the one ``after`` it, their overlap once (a row printed twice would
    be added twice)."""
    text = chunk.get("text") or ""
    return text if after is None else f"{text}\n{(after.get('text') or '')[shared_chars(chunk, after):]}"


def _says(s: PartSum, before: str, measures: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a table measures one of ``measures`` (any, when none is asked): its total's label says one,
    or, when the label names no measure at all ("Total", "Total Company"), its caption or the text
    ``before`` its passage does ("Total non-current liabilities" under a caption on net sales is no sales)."""
    if not measures:
        return True
    label = phrase_text(words(s.label))
    if any(has_phrase(label, cue) for cue in concept_map().measure_cues()):
        return any(has_phrase(label, cue) for cue in measures)
    stems = phrase_text(words(f"{s.caption} {before}"))
    return any(has_phrase(stems, cue) for cue in measures)


def regional(s: PartSum) -> bool:
    """Whether most of a table's parts are regions (a product's split asked is no region's: Apple's net sales
    by product category, not its geographic segments' of the same total)."""
    return 2 * sum(bool(named_regions(words(label))) for label in s.labels) > len(s.labels)
