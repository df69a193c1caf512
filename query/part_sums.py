"""Tables of a whole's parts: rows whose figures add up to the total row under them ("Footwear, Apparel,
Equipment, Global Brand Divisions: Total NIKE Brand Revenues"; a segment note's "Revenues: ... Total
revenues"). Which products or segments make up more than a fifth of revenue, or which is the largest, is
read off such a table; a statement's line items seldom add up to a total row (an income statement subtracts),
and a table of percent changes never does. Pure: plain text in, the tables found out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from domain.text import words
from query.parts import PART_LABEL_WORDS, printed_label
from query.statements import HEAD_WORDS, ROW_LINES, year_cell

PARTS_SUMMED = 2  # rows a total must be the sum of, at the least
# a cell: an amount, negative in parentheses, a percent (read and skipped), or a dash alone, a zero (the
# statements' FIGURE reads a dash as a sign and has no zero cell, which would shift a row to its next column)
_CELL = re.compile(r"\(?\s*\$?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*%?|(?<![\w.])[—–-](?![\w.])")
_FOOTNOTE = re.compile(r"^\s*\(\d\)")  # a label's footnote mark ("Digital online channels (1)"), no figure
_WORD = re.compile(r"[A-Za-z]{2,}")  # a word, not a figure: a table's row of many cells is no prose
_TOTALS = frozenset(words("total consolidated"))


class _Row(NamedTuple):
    """A table's row: its first figure, where it starts, its label (a subtotal's: its parts' labels), where
    the text captioning it starts."""
    value: float
    at: int
    leaves: tuple[str, ...]
    caption: int


@dataclass(frozen=True)
class PartSum:
    """A table's parts summed: how many rows, their total, the total row's label, where the first part's
    row starts (its character offset in the text), the text captioning them (the prose line and head
    above them, after the table's rows before them: what the parts measure, "Operating profit") and the
    parts' labels, a subtotal's parts for the subtotal."""
    parts: int
    total: float
    label: str
    first: int
    caption: str
    labels: tuple[str, ...] = ()


def summed_parts(text: str, wholes: tuple[tuple[str, ...], ...] = ()) -> list[PartSum]:
    """Each total row of ``text`` that is the sum of the rows above it (``PARTS_SUMMED`` or more, within
    rounding), in the first column of figures: the year a table prints first, or a segment's column, both
    of which add up. A total row is labelled "Total ..." or "Consolidated", or by one of ``wholes`` alone
    (stems: the measure's name, Home Depot's product lines adding up to "Net sales"). Rows are read in
    blocks between two lines of prose; a subtotal that adds up stands for its rows in the sum above it
    (Corning's "Total Optical Communications" among its segments), and its parts are the table's parts
    (``PartSum.labels``: the regions under Nike's "Total NIKE Brand")."""
    found: list[PartSum] = []
    rows: list[_Row] = []  # since the block began
    at = captioned = 0  # where the text captioning the next rows starts: a prose line, or a total's row's end
    lines = text.split("\n")
    for i, line in enumerate(lines):
        at, start = at + len(line) + 1, at
        label = printed_label(line)
        said = words(label)
        if len(_WORD.findall(line)) > HEAD_WORDS:  # prose: the table above, if any, has ended
            rows, captioned = [], start
            continue
        if not _WORD.search(label) or len(said) > PART_LABEL_WORDS + 2:
            continue  # a line of figures (a PDF's cell), or a long label
        value = _first_figure(line[len(label):], lines[i + 1:i + ROW_LINES])
        if value is None:
            continue  # a caption or a head ("Revenues:"), no row
        summed = _summed(rows, value) if said[0] in _TOTALS or said in wholes else 0
        if summed:
            first = rows[-summed]  # a subtotal standing for its rows keeps their caption
            leaves = tuple(leaf for r in rows[-summed:] for leaf in r.leaves)
            found.append(PartSum(summed, value, label.strip(), first.at, text[first.caption:first.at], leaves))
            rows[-summed:] = [_Row(value, first.at, leaves, first.caption)]
            captioned = at
        else:
            rows.append(_Row(value, start, (label.strip(),), min(captioned, start)))
    return found


def _summed(rows: list[_Row], total: float) -> int:
    """How many of the last rows add up to ``total`` (0: none, or fewer than ``PARTS_SUMMED``)."""
    tolerance = max(0.5, abs(total) * 0.002)  # each part rounded to the unit printed
    running = 0.0
    for n, row in enumerate(reversed(rows), start=1):
        running += row.value
        if n >= PARTS_SUMMED and abs(running - total) <= tolerance and total:
            return n
    return 0


def _first_figure(rest: str, after: list[str]) -> float | None:
    """A row's first figure: on its label's line, else on the lines after it up to the next line with words
    (a dash is a zero; a footnote's mark after the label, a percent and a year are none: a head's line of
    years is no row)."""
    for n, cells in enumerate([_FOOTNOTE.sub("", rest)] + after):
        if n and _WORD.search(cells):
            return None
        for cell in _CELL.findall(cells):
            if not (cell.endswith("%") or year_cell(cell)):  # a share, a change, a column's year
                return _amount(cell)
    return None


def _amount(cell: str) -> float:
    """A cell's amount: its digits, negative in parentheses; a dash's is zero."""
    digits = re.sub(r"[^\d.]", "", cell)
    if not digits or digits == ".":
        return 0.0
    value = float(digits)
    return -value if "(" in cell else value
