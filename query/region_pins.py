"""Region pins: a question comparing a company's regions ("Which region had the worst topline performance?",
"Which of Apple's geographic segments grew most?") is answered by the table that sets the regions' figures
side by side (MD&A's "breakdown of Revenues", "Geographical Information", "Increases in net sales" by
country), or the sentences stating each region's change. The segment note's heading page, which the plan
pins too, often prints the business segments only, and a region's own section one region. A question asking
where a company operates is answered by the regions Item 1 names and the table listing them
(:meth:`RegionPins.operations`). Region names are the reviewed list ``domain/vocabulary/regions.yaml``."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from domain import vocabulary
from domain.sec_items import BUSINESS_ITEM, MDNA_ITEMS
from domain.text import FUNCTION_WORDS, has_phrase, phrase_text, words
from kernel.search import Filters, Hit
from query.catalog import DocInfo
from query.concepts import concept_map
from query.parts import PART_LABEL_WORDS, captioned, names_cue, of_period, printed_label
from query.pin_policy import PinReader
from query.question import Question
from query.statements import FIGURE, ROW_FIGURES, ROW_LINES, page_position, prose, row_cells, table_head

REGION_SEARCH = 50  # passages of the document read for the regions' table
REGIONS_LISTED = 2  # regions a table names, each with its figures, at the least
REGIONS_STATED = 3  # regions a passage's sentences state a figure of, at the least (two are a comparison in prose)
_STATED = re.compile(r"%|\bpercent\b|\$\s?\d", re.I)  # a sentence stating a region's change or amount
# a region's statement: a stop before a capital ends it, but not before a bullet, so a list of bullets after a
# sentence is one statement (3M's bullets of its countries' sales, below its table of regions, would otherwise
# count six regions over the table's), which :func:`domain.text.sentence_spans` would split
_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-Z])")
# a change said: asked ("which region grew most", "saw revenues fall", "the slowest growth") or printed by a
# list ("% Change from Prior Period", "Percent Change 2023 versus 2022", "Inc/ (Dec)", "increased 14.0%")
_CHANGE = re.compile(r"\b(?:gr[eo]w(?:s|n|th|ing)?|f[ae]ll(?:s|en|ing)?|declin\w*|rose|ris(?:e|es|en|ing)|"
                     r"increas\w*|decreas\w*|chang\w*|versus|vs\.?|inc\.?\s*/\s*\(?dec)(?!\w)", re.I)


@functools.cache
def region_names() -> tuple[tuple[str, ...], ...]:
    """The regions' names as stems, longest first (so "north america" is read before "america")."""
    names = {tuple(words(n)) for group in vocabulary.load("regions").values() for n in group}
    return tuple(sorted((n for n in names if n), key=lambda n: (-len(n), n)))


@functools.cache
def _by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    """The regions' names by their first stem, longest first: a text's every word is looked up, not compared
    with every name."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for name in region_names():
        index.setdefault(name[0], []).append(name)
    return {first: tuple(names) for first, names in index.items()}


def _opening_region(stems: tuple[str, ...]) -> tuple[str, ...] | None:
    return next((n for n in _by_first_word().get(stems[0], ()) if stems[:len(n)] == n), None) if stems else None


def _label_region(stems: tuple[str, ...]) -> tuple[str, ...] | None:
    """The region a row's short label names: opening it ("North America"), else closing it (Johnson
    Controls' segments "Building Solutions North America", "Building Solutions Asia Pacific")."""
    for i in range(len(stems)):
        name = _opening_region(stems[i:])
        if name and (i == 0 or len(name) == len(stems) - i):
            return name
    return None


def named_regions(stems: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The regions a text names, in its order, the longest name at each place ("Asia Pacific", not "Asia")."""
    found, i = [], 0
    while i < len(stems):
        name = _opening_region(stems[i:])
        found += [name] if name else []
        i += len(name) if name else 1
    return found


def listed_regions(text: str, months: frozenset[int] = frozenset(), years: frozenset[int] = frozenset(),
                   measures: tuple[tuple[str, ...], ...] = ()) -> tuple[frozenset[tuple[str, ...]], int]:
    """The regions a passage sets side by side, and where the first of them stands (its character offset):
    those of its one table listing most (its rows between two lines of prose: a note's table of regions and
    its table of countries are two lists, not one of five), or of its sentences stating a region's change or
    amount, when they list more ("Sales by companies in Europe experienced a decline of 1.2%": one region
    each, the first it names, so a sentence listing the shares of sales by region counts once;
    ``REGIONS_STATED`` of them at the least). A table lists the regions its rows open with (of
    ``ROW_FIGURES`` figures or more) and those its head names (the columns of 3M's "sales results by geographic area", "United States | Asia Pacific |
    ..."), in a table of a span and a year asked (``months``, ``years``: :func:`query.parts.of_period`; a
    note prints each year's table of regions). Given ``measures`` (cues, as stems), only a list saying one of
    them counts: a table whose caption, head or rows do ("The breakdown of Revenues", "Percentage of total
    revenue"; not the breakdown of EBIT by the same regions below it), the sentences that do.
    ``(frozenset(), -1)`` when none."""
    lists = _table_lists(text.split("\n"), months, years, measures)
    stated = _stated_list(text, measures)
    lists += [stated] if len(stated[0]) >= REGIONS_STATED else []
    found, first = max(lists, key=lambda t: (len(t[0]), -t[1]), default=(set(), -1))
    return (frozenset(found), first) if found else (frozenset(), -1)


def _table_lists(lines: list[str], months: frozenset[int], years: frozenset[int],
                 measures: tuple[tuple[str, ...], ...]) -> list[tuple[set, int]]:
    """(regions, offset of the first region's row, else of the first row) of each table of a passage saying
    one of ``measures`` (:func:`listed_regions`): a table is a block of rows between two lines of prose."""
    tables: list[list] = []  # [regions, first row's offset, top line, last line, first region's offset]
    at, block = 0, None
    for i, line in enumerate(lines):
        at, start = at + len(line) + 1, at
        if prose(line):  # the table above, if any, has ended
            block = None
            continue
        label = printed_label(line)
        said = words(label)
        if not said or _figures(FIGURE.findall(line[len(label):]) + row_cells(lines[i + 1:i + ROW_LINES])) < ROW_FIGURES:
            continue
        region = _label_region(said) if len(said) <= PART_LABEL_WORDS else None
        if (region or block is None) and not of_period(lines, i, months, years=years):
            continue  # the period is read off the head where it counts: a table's first row, a region's row
        if block is None:  # the table's first row: the regions its head names are its columns
            head = table_head(lines, i)
            block = [set(named_regions(words(" ".join(head)))), start, i - len(head), i, -1]
            tables.append(block)
        if region:  # where its regions start: its first region's row (a page's footer may open the block)
            block[0].add(region)
            block[4] = start if block[4] < 0 else block[4]
        block[3] = i
    return [(found, first if first_region < 0 else first_region) for found, first, top, last, first_region in tables
            if found and _says(lines[max(0, top - CAPTION_LINES):last + TABLE_TAIL], measures)]


def _stated_list(text: str, measures: tuple[tuple[str, ...], ...]) -> tuple[set, int]:
    """(regions, offset of the first sentence) of a passage's sentences stating a region's figure and saying
    one of ``measures``: each sentence's first region (:func:`listed_regions`)."""
    flat, at, stated = text.replace("\n", " "), 0, (set(), -1)
    for sentence in _SENTENCE.split(flat):
        named = named_regions(words(sentence)) if _STATED.search(sentence) and _says([sentence], measures) else []
        if named:
            stated = (stated[0] | {named[0]}, flat.find(sentence, at) if stated[1] < 0 else stated[1])
        at += len(sentence)
    return stated


_YEAR = re.compile(r"\(?\s*(?:19|20)\d\d\s*\)?")


def _figures(cells: list[str]) -> int:
    """A row's figures, the years of a column head's line aside ("FISCAL 2022 FISCAL 2021" is no row)."""
    return sum(not _YEAR.fullmatch(c.strip()) for c in cells)


CAPTION_LINES = 3  # lines above a table's head that caption it ("The breakdown of Revenues is as follows:")
TABLE_TAIL = 12  # lines after a table's last region row still its own (a total's row, a cell per line)


def _says(lines: list[str], measures: tuple[tuple[str, ...], ...]) -> bool:
    """Whether these lines say one of ``measures`` (any, when none is asked)."""
    stems = phrase_text(words(" ".join(lines)))
    return not measures or any(has_phrase(stems, cue) for cue in measures)


@functools.cache
def region_query() -> str:
    """The regions' names as one search's words: the passages printing most of them (tables of numbers the
    question's words miss) come first."""
    return " ".join(dict.fromkeys(w for group in vocabulary.load("regions").values() for n in group
                                  for w in re.findall(r"[a-z]+", n) if len(w) > 2 and w not in FUNCTION_WORDS))


class RegionPins(PinReader):
    """``RegionPins(backend)(question, document, scope, pin)``: the page of the regions' table."""

    def __call__(self, q: Question, d: DocInfo, scope: Filters, pin: Callable) -> None:
        """The passage listing the most regions with their figures (:func:`listed_regions`, at least
        ``REGIONS_LISTED``), saying the measure asked where the question names one, in MD&A, else in the whole
        document (a filing whose MD&A prints no regions' table: its segment note's geographic table); of equal
        ones, the first in the document (MD&A discusses its results before it reconciles them to a non-GAAP
        measure, a 10-Q its quarter before its months to date). Read among the question's matches and the
        matches of the regions' names with the measure's words (a table of figures says few of the question's
        words). Pinned at its first region's page."""
        self._table(q, scope, pin, concept_map().figure_cues(q.plan.concepts))

    def operations(self, q: Question, scope: Filters, pin: Callable, rows: bool) -> None:
        """Where a company operates ("What are the geographies it primarily operates in?"): Item 1's passage
        naming the most regions (``REGIONS_STATED`` at the least: PepsiCo's divisions, each a region; Johnson &
        Johnson's "Geographic Areas"), pinned at its first region's page; then, with ``rows`` (the rows option,
        as for :meth:`__call__`), the table listing the most regions with their figures, whatever they measure
        (Corning's note prints net sales and long-lived assets by country under one caption)."""
        hits = self._bm25(q, f"{q.plan.lexical} {region_query()}", {**scope, "item": [BUSINESS_ITEM]}, REGION_SEARCH)
        named = [(len(set(named_regions(tuple(words(h.source.get("text") or ""))))), h) for h in hits]
        most = max((n for n, _ in named), default=0)
        if most >= REGIONS_STATED:  # of equal ones, the first in the document
            page, h = min(((_first_region_page(h.source), h) for n, h in named if n == most), key=lambda t: t[0])
            pin(h.source, h.id, page, "section", f"names {most} regions it operates in")
        if rows:
            self._table(q, scope, pin, ())

    def _table(self, q: Question, scope: Filters, pin: Callable, measures: tuple) -> None:
        listing = f"{' '.join(w for cue in measures for w in cue)} {region_query()}"
        read: set[str] = set()  # MD&A's passages, read first: none listed regions, so the document's search skips them
        for where in ({**scope, "item": sorted(MDNA_ITEMS)}, scope):
            hits = self._bm25(q, q.plan.lexical, where, REGION_SEARCH) + self._bm25(q, listing, where, REGION_SEARCH)
            unread = list({h.id: h for h in hits if h.id not in read}.values())
            best = self._best(q, unread, measures, self._captioned(q, unread, measures))
            if best is not None:
                page, h, n = best
                pin(h.source, h.id, page, "row", f"sets {n} regions' figures side by side")
                return
            read |= {h.id for h in unread}

    def _captioned(self, q: Question, hits: list[Hit], measures: tuple) -> set[str]:
        """The table passages among ``hits`` that say none of ``measures`` but whose caption, in the text
        before them, does (:func:`query.parts.captioned`: Coca-Cola's percent changes of net operating
        revenues by segment, captioned above a head that says no measure), by id. One lookup."""
        bare = [h.source for h in hits if measures and h.source.get("kind") == "table"
                and not names_cue(h.source.get("text") or "", measures)]
        before = self._before(q, bare, over_tables=True) if bare else {}
        return {h.id for h in hits if captioned(before.get(h.source.get("chunk_id", ""), ""), measures)}

    @staticmethod
    def _best(q: Question, hits: list[Hit], measures: tuple, captioned_ids: set[str]) -> tuple[int, Hit, int] | None:
        """The hit listing most regions saying the measure (a captioned table's, whatever its lines say); of
        equal ones, when a change is asked, one printing a change (``_CHANGE``: Alphabet's revenues by
        geography as percents of the whole, then "% Change from Prior Period" by geography, for "which region
        grew most"); then the first page's. (page, hit, how many regions)."""
        best, key = None, None
        a = q.plan.analysis
        for h in hits:
            text = h.source.get("text") or ""
            said = () if h.id in captioned_ids else measures
            regions, at = listed_regions(text, a.months, frozenset(a.years), said)
            page = page_position(h.source, at)[0]
            ranked = (len(regions), change_answered(q.plan.core, text), -page)
            if len(regions) >= REGIONS_LISTED and (key is None or ranked > key):
                best, key = (page, h, len(regions)), ranked
        return best


def change_answered(question: str, text: str) -> bool:
    """Whether a question asks a change ("Which region grew Alphabet's revenues the most?") and a passage
    prints one ("% Change from Prior Period"), not only the figures or shares of a year (``_CHANGE``)."""
    return bool(_CHANGE.search(question)) and bool(_CHANGE.search(text))


def _first_region_page(chunk: dict) -> int:
    """The page of a passage's first line naming a region (its first page when none does)."""
    text, at = chunk.get("text") or "", 0
    for line in text.split("\n"):
        if named_regions(tuple(words(line))):
            return page_position(chunk, at)[0]
        at += len(line) + 1
    return page_position(chunk, 0)[0]
