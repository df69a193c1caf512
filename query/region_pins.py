"""Region pins: a question comparing a company's regions ("Which region had the worst topline performance?",
"Which of Apple's geographic segments grew most?") is answered by the table that sets the regions' figures
side by side (MD&A's "breakdown of Revenues", "Geographical Information", "Increases in net sales" by
country), or the sentences stating each region's change. The segment note's heading page, which the plan
pins too, often prints the business segments only, and a region's own section one region. Region names are
the reviewed list ``domain/vocabulary/regions.yaml``."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from domain import vocabulary
from domain.sec_items import MDNA_ITEMS
from domain.text import has_phrase, phrase_text, words
from kernel.search import Filters, Hit
from query.catalog import DocInfo
from query.concepts import concept_map
from query.parts import PART_LABEL_WORDS, of_period, printed_label
from query.pin_policy import PinReader
from query.question import Question
from query.statements import FIGURE, ROW_FIGURES, page_position, row_cells, table_head

REGION_SEARCH = 50  # passages of the document read for the regions' table
REGIONS_LISTED = 2  # regions a table or a passage's sentences name, each with its figures, at the least
_STATED = re.compile(r"%|\bpercent\b|\$\s?\d", re.I)  # a sentence stating a region's change or amount
_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-Z])")


@functools.cache
def region_names() -> tuple[tuple[str, ...], ...]:
    """The regions' names as stems, longest first (so "north america" is read before "america")."""
    names = {tuple(words(n)) for group in vocabulary.load("regions").values() for n in group}
    return tuple(sorted((n for n in names if n), key=len, reverse=True))


def _opening_region(stems: tuple[str, ...]) -> tuple[str, ...] | None:
    return next((n for n in region_names() if stems[:len(n)] == n), None)


def _said_region(stems: tuple[str, ...]) -> tuple[str, ...] | None:
    text = phrase_text(stems)
    return next((n for n in region_names() if has_phrase(text, n)), None)


def listed_regions(text: str, months: frozenset[int] = frozenset(), years: frozenset[int] = frozenset()
                   ) -> tuple[frozenset[tuple[str, ...]], int]:
    """The regions a passage sets side by side, and where the first of them stands (its character offset):
    those of its one table listing most (rows under one head, :func:`query.statements.table_head`: a note's
    table of regions and its table of countries are two lists, not one of five), or of its sentences stating
    a region's change or amount, when they list more ("Sales by companies in Europe experienced a decline of
    1.2%": one region each, the first it names, so a sentence listing the shares of sales by region counts
    once). A table's rows are those a region's name opens, of ``ROW_FIGURES`` figures or more, in a table of
    a span and a year asked (``months``, ``years``: :func:`query.parts.of_period`; a note prints each year's
    table of regions). ``(frozenset(), -1)`` when none."""
    lists: dict[tuple[str, ...], tuple[set[tuple[str, ...]], int]] = {}
    lines = text.split("\n")
    at = 0
    for i, line in enumerate(lines):
        label = printed_label(line)
        region = _opening_region(words(label)) if len(words(label)) <= PART_LABEL_WORDS else None
        if region and len(FIGURE.findall(line[len(label):]) + row_cells(lines[i + 1:])) >= ROW_FIGURES and \
                of_period(lines, i, months, years=years):
            lists.setdefault(tuple(table_head(lines, i)), (set(), at))[0].add(region)
        at += len(line) + 1
    flat, at = text.replace("\n", " "), 0
    for sentence in _SENTENCE.split(flat):
        region = _said_region(words(sentence)) if _STATED.search(sentence) else None
        if region:
            lists.setdefault(("",), (set(), flat.find(sentence, at)))[0].add(region)
        at += len(sentence)
    if not lists:
        return frozenset(), -1
    found, first = max(lists.values(), key=lambda t: (len(t[0]), -t[1]))
    return frozenset(found), first


class RegionPins(PinReader):
    """``RegionPins(backend)(question, document, scope, pin)``: the page of the regions' table."""

    def __call__(self, q: Question, d: DocInfo, scope: Filters, pin: Callable) -> None:
        """The passage listing the most regions with their figures (:func:`listed_regions`, at least
        ``REGIONS_LISTED``) among the question's matches in MD&A, else in the whole document (a filing whose
        MD&A prints no regions' table: its segment note's geographic table), saying the measure asked where
        the question names one; of equal ones, the first in the document (MD&A discusses its results before it
        reconciles them to a non-GAAP measure, a 10-Q its quarter before its months to date). Pinned at its
        first region's page."""
        measures = tuple(cue for c in concept_map().concepts if c.name in q.plan.concepts and c.figure
                         for cue in c.cues)
        for where in ({**scope, "item": sorted(MDNA_ITEMS)}, scope):
            hits = self._bm25(q, q.plan.lexical, where, REGION_SEARCH)
            best = self._best(q, hits, measures)
            if best is not None:
                page, h, n = best
                pin(h.source, h.id, page, "row", f"sets {n} regions' figures side by side")
                return

    @staticmethod
    def _best(q: Question, hits: list[Hit], measures: tuple) -> tuple[int, Hit, int] | None:
        best = None
        for h in hits:
            text = h.source.get("text") or ""
            stems = phrase_text(words(text))
            if measures and not any(has_phrase(stems, cue) for cue in measures):
                continue
            regions, at = listed_regions(text, q.plan.analysis.months, frozenset(q.plan.analysis.years))
            page = page_position(h.source, at)[0]
            if len(regions) >= REGIONS_LISTED and (best is None or (len(regions), -page) > (best[2], -best[0])):
                best = (page, h, len(regions))
        return best
