"""Tables of a filing's HTML as rows with their header, per EDGAR page.

PDF text gives a table one cell per line, which loses the row a number belongs to. The filing's own
``<table>`` markup has the rows, so we read tables from the DOM (after page-break markers were inserted,
which tells us the EDGAR page of every row) instead of asking PyMuPDF to rediscover them from the PDF's
drawing (its ``find_tables`` costs ~0.4 s a page; it remains an opt-in for PDFs that arrive as PDFs).

EDGAR tables are typeset with spacer columns and with ``$``, ``)`` and ``%`` in cells of their own; those
are folded into the neighbouring value. Layout tables (one row, or one column with content) are skipped.
A table that spans a page break is split there, and its header is repeated on the next page.

A table is written as text, one row per line and cells separated by `` | ``; the first line is the header
(the leading rows without figures, joined by `` / ``): the format ``schemas.table_text`` owns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from etl.convert.page_markers import paged_elements
from schemas.table_text import CELL_SEP, HEADER_ROW_SEP, render_table

_WS_RE = re.compile(r"\s+")
_FIGURE_RE = re.compile(r"^[\s$€£(]*-?[\d,.]*\d[\d,.]*\s*[)%]*$")
_YEAR_RE = re.compile(r"^(19|20)\d{2}$")
_DASHES = {"—", "–", "-", "— ", "$—", "$ —"}
MAX_CELLS = 60  # wider "tables" are layout grids, not data


@dataclass
class _Row:
    page: int
    cells: list[str]


def cell_text(el) -> str:
    return _WS_RE.sub(" ", el.text_content().replace("\u200b", "")).strip()


def _fold(cells: list[str]) -> list[str]:
    """Drop empty spacer cells; attach lone ``$``/``(`` to the next cell and ``)``/``%`` to the previous."""
    out: list[str] = []
    carry = ""
    for c in cells:
        if not c:
            continue
        if c in ("$", "(", "$(", "$ (", "€", "£"):
            carry += c
            continue
        if c in (")", "%", ")%", "%)", "pts", "bps") and out:
            out[-1] += c
            continue
        out.append(carry + c)
        carry = ""
    if carry:
        out.append(carry)
    return out


def is_figure(cell: str) -> bool:
    return bool(_FIGURE_RE.match(cell)) and not _YEAR_RE.match(cell.strip()) or cell.strip() in _DASHES


def _table_rows(table, page_of: dict) -> list[_Row]:
    rows = []
    for tr in table.iter("tr"):
        if any(anc is not table and anc.tag == "table" for anc in tr.iterancestors("table")):
            continue  # a nested table's rows belong to that table
        cells = [cell_text(td) for td in tr if isinstance(td.tag, str) and td.tag in ("td", "th")]
        folded = _fold(cells)
        if folded:
            rows.append(_Row(page_of.get(tr, 0), folded[:MAX_CELLS]))
    return rows


def _split_header(rows: list[_Row]) -> tuple[list[str], list[_Row]]:
    """Leading rows without figures are the header; several such rows are joined into one line."""
    head: list[_Row] = []
    for r in rows:
        if any(is_figure(c) for c in r.cells[1:]) or (len(r.cells) > 1 and is_figure(r.cells[0])):
            break
        head.append(r)
        if len(head) == 3:
            break
    if len(head) == len(rows):  # a text-only table: its first row is the header
        head = rows[:1]
    # Header rows stay rows (joined by " / "): their cells span columns differently, so merging them
    # column by column would pair the wrong period with the wrong year.
    header = [HEADER_ROW_SEP.join(CELL_SEP.join(r.cells) for r in head)] if head else []
    return header, rows[len(head):]


def tables_by_page(root) -> dict[int, list[str]]:
    """EDGAR page (0-based) -> the data tables that sit on it, as header + rows text."""
    page_of: dict = {}
    for el, page in paged_elements(root):
        if el.tag in ("td", "th"):  # a row's page is where its first cell starts (a break marker
            page_of.setdefault(el.getparent(), page)  # of the row itself sits inside it, before the cells)
    for br in root.iter("br"):  # a line break inside a cell separates words
        br.tail = " " + (br.tail or "")
    out: dict[int, list[str]] = {}
    for table in root.iter("table"):
        if any(True for _ in table.iterdescendants("table")):
            continue  # layout wrapper around real tables
        rows = _table_rows(table, page_of)
        if len(rows) < 2 or max(len(r.cells) for r in rows) < 2:
            continue
        header, body = _split_header(rows)
        if not body:
            continue
        by_page: dict[int, list[list[str]]] = {}
        for r in body:
            by_page.setdefault(r.page, []).append(r.cells)
        for p, cells in by_page.items():
            out.setdefault(p, []).append(render_table(header, cells))
    return out
