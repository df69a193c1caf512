"""A part's figure in a table whose columns the parts title: a segment note's "Aeronautics | MFC | RMS | Space |
Total" over "Total net sales", a disaggregation of revenue by segment (Lockheed Martin, Corning, Amcor, Walmart,
Adobe print their segments so). No row names the part (:func:`query.parts.part_row` finds none); its column's
title does, above the metric's row."""

from __future__ import annotations

from domain.text import FUNCTION_WORDS, words
from query.parts import PART_LABEL_WORDS, TOTAL_WORDS, PartRow, names_cue, of_period, printed_label
from query.statements import (
    FIGURE,
    HEAD_WORDS,
    PIECES,
    amount_cell,
    figure_cell,
    has_words,
    page_position,
    row_cells,
    row_line,
)

_SEGMENT = tuple(words("segment"))


def part_column(asked: frozenset[str], parts: frozenset[str], metric: tuple[tuple[str, ...], ...], chunk: dict,
                months: frozenset[int] = frozenset(), before: str = "", years: frozenset[int] = frozenset()
                ) -> PartRow | None:
    """The metric's row (one of ``metric``'s cues) under column titles that name every word of ``parts``
    (:func:`_titled_ends`), in the same table (no prose between), printing an amount for a span and a year
    asked (``months``, ``years``, ``before``: :func:`query.parts.of_period`; such a note prints a table of
    columns for each year, NIKE's "YEAR ENDED MAY 31, 2022" under 2023's); its page, as a
    :class:`~query.parts.PartRow` labelled by the metric's row. A table whose columns are the parts prints one
    figure per part on one row, so the page is the part's as much as a row of its own would be."""
    text = chunk.get("text") or ""
    if not names_cue(text, metric):
        return None
    lines = text.split("\n")
    for end in _titled_ends(asked, parts, lines):
        found = _metric_row(metric, chunk, lines, end)
        if found is None:
            continue
        i, at = found
        top = _page_top(chunk, text, at)  # the row's table's head stands on its page
        if of_period(lines[top:], i - top, months, "" if top else before, years):
            return PartRow(page_position(chunk, at)[0], len(parts), printed_label(lines[i]), True)
    return None


def _page_top(chunk: dict, text: str, at: int) -> int:
    """The first line of the page character ``at`` stands on (0 when that is the chunk's first page): the
    page before ends in its footer ("2023 FORM 10-K 83", NIKE's), whose year heads no table on this page."""
    page, offset = page_position(chunk, at)
    if page == int(chunk.get("page_start") or 0):
        return 0
    return text.count("\n", 0, at - offset)


def _titled_ends(asked: frozenset[str], parts: frozenset[str], lines: list[str]) -> list[int]:
    """The line after each run of column titles (:func:`_title_pieces`, blank lines between allowed) whose
    pieces name every word of ``parts`` (:func:`_names_part`): a PDF's text prints each title on a line
    of its own, wrapping a long one ("Digital" / "Marketing"), an HTML table all on its header line."""
    ends, named, run = [], frozenset(), 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        pieces = _title_pieces(lines, i)
        if pieces is not None:
            run += len(pieces)
            named |= frozenset(w for p in pieces for w in _names_part(asked, parts, p))
            continue
        if run >= 2 and named >= parts:
            ends.append(i)
        named, run = frozenset(), 0
    return ends


def _title_pieces(lines: list[str], i: int) -> list[str] | None:
    """Line ``i``'s column titles, or None when it is no line of titles: a line of words with no amount, a few
    words each (a PDF's title; an HTML header's cells, split at bars and slashes), not a row's label over
    figures (:func:`query.statements.row_cells`)."""
    line = lines[i]
    if not has_words(line) or any(figure_cell(c) for c in FIGURE.findall(line)):
        return None
    pieces = [p for p in PIECES.split(line.strip()) if p]
    if len(pieces) < 2 and (len(words(line)) > PART_LABEL_WORDS or row_cells(lines[i + 1:])):
        return None
    return pieces


def _names_part(asked: frozenset[str], parts: frozenset[str], piece: str) -> frozenset[str]:
    """The words of ``parts`` a column title names: the title of the part alone, of the question's words
    ("Canadian Operations" for "its Canadian operations"), or of the part with a total's words."""
    named = frozenset(words(piece)) - FUNCTION_WORDS
    part = named & parts
    return part if part and (named <= asked | parts or named - TOTAL_WORDS == part) else frozenset()


def _metric_row(metric: tuple[tuple[str, ...], ...], chunk: dict, lines: list[str], end: int
                ) -> tuple[int, int] | None:
    """(line, character) of the first row labelled by one of ``metric``'s cues (or by the cue after "Segment")
    from line ``end`` on, printing an amount, before any line of prose (more than ``HEAD_WORDS`` words and no
    figure: the table ended)."""
    after = sum(len(line) + 1 for line in lines[:end])
    labels = metric + tuple(_SEGMENT + cue for cue in metric)  # a segment note's "Segment net sales" (Corning's)
    found = [r for cue in labels if (r := row_line(cue, chunk, after=after)) is not None]
    if not found:
        return None
    i, at = min(found)
    prose = any(len(words(line)) > HEAD_WORDS and not FIGURE.search(line) for line in lines[end:i])
    cells = FIGURE.findall(lines[i]) + row_cells(lines[i + 1:])
    return None if prose or not any(amount_cell(c) for c in cells) else (i, at)
