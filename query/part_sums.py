"""Tables of a whole's parts: rows whose figures add up to the total row under them ("Footwear, Apparel,
Equipment, Global Brand Divisions: Total NIKE Brand Revenues"; a segment note's "Revenues: ... Total
revenues"). Which products or segments make up more than a fifth of revenue, or which is the largest, is
read off such a table, or off one of shares adding up to 100% (Colgate-Palmolive's "percentages of worldwide
Net sales" by class of products); a statement's line items seldom add up to a total row (an income statement
subtracts), and a table of percent changes never does. Pure: plain text in, the tables found out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from domain.periods import head_month_days
from domain.text import has_phrase, phrase_text, words
from query.parts import PART_LABEL_WORDS, printed_label
from query.statements import HEAD_WORDS, ROW_LINES, year_cell

PARTS_SUMMED = 2  # rows a total must be the sum of, at the least
WHOLE_SHARE = 100.0  # a table of shares' total, in percent
SHARE_ROUNDING = 1.0  # how far shares printed in whole percents may add up from 100
# a cell: an amount, negative in parentheses, a percent (read and skipped), or a dash alone, a zero (the
# statements' FIGURE reads a dash as a sign and has no zero cell, which would shift a row to its next column)
_CELL = re.compile(r"\(?\s*\$?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*%?|(?<![\w.])[—–-](?![\w.])")
_FOOTNOTE = re.compile(r"^\s*\(\d\)")  # a label's footnote mark ("Digital online channels (1)"), no figure
_WORD = re.compile(r"[A-Za-z]{2,}")  # a word, not a figure: a table's row of many cells is no prose
_TOTALS = frozenset(words("total consolidated"))
_QUARTERS = re.compile(r"\bquarters?\b|\bQ[1-4]\b", re.I)  # not "first", "third" alone: "Third party" sales
QUARTER_MONTHS = 3  # months a head names that make its columns a year's quarters ("March 31 | June 30 | ...")


class _Row(NamedTuple):
    """A table's row: its first amount (None: its cells are percents), where it starts, its label (a
    subtotal's: its parts' labels), where the text captioning it starts, its first cell of any kind (a share
    where the table's are)."""
    value: float | None
    at: int
    leaves: tuple[str, ...]
    caption: int
    share: float


@dataclass(frozen=True)
class PartSum:
    """A table's parts summed: how many rows, their total, the total row's label, where the first part's
    row starts (its character offset in the text), the text captioning them (the prose line and head
    above them, after the table's rows before them: what the parts measure, "Operating profit") and the
    parts' labels, a subtotal's parts for the subtotal; whether the parts are shares, their total 100%."""
    parts: int
    total: float
    label: str
    first: int
    caption: str
    labels: tuple[str, ...] = ()
    shares: bool = False


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
        cells = _cells(line[len(label):], lines[i + 1:i + ROW_LINES])
        head = text[min(captioned, start):start]
        if across := _across(said, cells, wholes, head):
            found.append(PartSum(across - 1, cells[across - 1][0], label.strip(), start, head))
        value = next((v for v, printed, _ in cells if not printed.endswith("%")), None)
        if value is None and not any(share for _, _, share in cells):
            continue  # a caption or a head ("Revenues:"), no row
        share = cells[0][2] and abs(cells[0][0] - WHOLE_SHARE) <= 0.5  # "Total | 100%": a table of shares
        summed = (said[0] in _TOTALS or said in wholes) and (
            (value is not None and _summed(rows, value)) or (share and _summed(rows, WHOLE_SHARE, shares=True)))
        if summed:
            first = rows[-summed]  # a subtotal standing for its rows keeps their caption
            leaves = tuple(leaf for r in rows[-summed:] for leaf in r.leaves)
            total = WHOLE_SHARE if share else value
            found.append(PartSum(_parts(rows[-summed:], share), total, label.strip(), first.at,
                                 text[first.caption:first.at], leaves, share))
            rows[-summed:] = [_Row(total, first.at, leaves, first.caption, total)]
            captioned = at
        else:
            rows.append(_Row(value, start, (label.strip(),), min(captioned, start), cells[0][0]))
    return found


def _summed(rows: list[_Row], total: float, shares: bool = False) -> int:
    """How many of the last rows add up to ``total`` (0: none, or fewer than ``PARTS_SUMMED``): their first
    amounts, a row of percents only skipped; or, for ``shares``, their first cells, whatever they print."""
    tolerance = SHARE_ROUNDING if shares else _rounding(total)
    running, parts = 0.0, 0
    for n, row in enumerate(reversed(rows), start=1):
        figure = row.share if shares else row.value
        if figure is None:
            continue
        running, parts = running + figure, parts + 1
        if parts >= PARTS_SUMMED and abs(running - total) <= tolerance and total:
            return n
    return 0


def _across(said: tuple[str, ...], cells: list[tuple[float, str, bool]], wholes: tuple[tuple[str, ...], ...],
            head: str) -> int:
    """How many cells of a row the measure names add up, the last their sum (0: none): a segment note
    whose columns are the segments prints the measure's row across them, to a "Total" or "Consolidated"
    column ("Net sales | $441,817 | $114,641 | $86,179 | — | $642,637"); not a row of quarters adding up to
    the year (its head says quarters, or names the months ending them)."""
    label = phrase_text(said)
    if not any(has_phrase(label, cue) for cue in wholes) or _QUARTERS.search(head) or \
            len(head_month_days(head)) >= QUARTER_MONTHS:
        return 0
    amounts = [v for v, printed, percent in cells if not percent]
    if len(amounts) != len(cells) or len(amounts) < PARTS_SUMMED + 1:
        return 0
    running = 0.0
    for n, value in enumerate(amounts[:-1], start=1):
        running += value
        total = amounts[n]
        if n >= PARTS_SUMMED and total and abs(running - total) <= _rounding(total) \
                and sum(v != 0 for v in amounts[:n]) >= PARTS_SUMMED:
            return n + 1
    return 0


def _rounding(total: float) -> float:
    """How far parts printed rounded to the unit may add up from their ``total``."""
    return max(0.5, abs(total) * 0.002)


def _parts(rows: list[_Row], shares: bool) -> int:
    """How many rows a total adds up (a row of percents only is none of an amount's parts)."""
    return sum(shares or r.value is not None for r in rows)


def _cells(rest: str, after: list[str]) -> list[tuple[float, str, bool]]:
    """A row's cells: on its label's line, then on the lines after it up to the next line with words (a
    footnote's mark after the label and a column's year are none), each with its amount (a dash's is zero),
    as printed, and whether it is a percent ("42%", or "42" over a line of "%" alone as a PDF prints it)."""
    lines = [_FOOTNOTE.sub("", rest)]
    for line in after:
        if _WORD.search(line):
            break
        lines.append(line)
    found = []
    for n, line in enumerate(lines):
        for cell in _CELL.finditer(line):
            printed = cell.group()
            if not year_cell(printed):
                rest_of_line = line[cell.end():].strip(" |")
                percent = printed.endswith("%") or (not rest_of_line and n + 1 < len(lines)
                                                    and lines[n + 1].strip(" |").startswith("%"))
                found.append((_amount(printed), printed, percent))
    return found


def _amount(cell: str) -> float:
    """A cell's amount: its digits, negative in parentheses; a dash's is zero."""
    digits = re.sub(r"[^\d.]", "", cell)
    if not digits or digits == ".":
        return 0.0
    value = float(digits)
    return -value if "(" in cell else value
