"""The table-text format of ``PageRecord.tables`` (``schemas.documents``): one writer (convert, from HTML tables
and PDF tables) and one reader (segment's chunker) of it. A table is its header line, then one line per row;
cells are joined by ``CELL_SEP``, a header of several rows by ``HEADER_ROW_SEP``."""

from __future__ import annotations

CELL_SEP = " | "
HEADER_ROW_SEP = " / "


def render_table(header: list[str], rows: list[list[str]]) -> str:
    """The one text form of a table: header line, then one line per row, cells joined by CELL_SEP."""
    lines = [CELL_SEP.join(header)] if header else []
    lines += [CELL_SEP.join(r) for r in rows]
    return "\n".join(lines)


def table_rows(table_text: str) -> tuple[str, list[str]]:
    """(header line, row lines) of a table written by :func:`render_table`."""
    lines = table_text.split("\n")
    return lines[0], lines[1:]
