"""Table provenance as the tests check it: most of a table chunk's cells are on its page."""

from __future__ import annotations

import re

from domain.text import compact as _norm
from schemas.table_text import CELL_SEP, table_rows

_FOOTNOTE_RE = re.compile(r"\s*\((?:[A-Za-z]|\d{1,2})\)|\*+")  # "(1)" superscripts land elsewhere in PDF text
_LABEL_NOTE_RE = re.compile(r"(?<=[A-Za-z)])\s\d(?:,\d)*$")


def cell_share(region: str, table_text: str) -> float:
    """Share of a table chunk's body cells that appear in a stretch of page text (footnote marks aside).
    PDF text loses a few cells (tiny superscripts, marks drawn as images) and reorders others, so table
    provenance is checked as "most cells are here, and more than on the neighbouring pages"."""
    def norm(text: str) -> str:
        return _norm(_FOOTNOTE_RE.sub("", text))

    _, rows = table_rows(table_text)
    # A label's trailing " 1" or " 1,2" is a superscript footnote reference.
    cells = [norm(_LABEL_NOTE_RE.sub("", c)) for line in rows for c in line.split(CELL_SEP)]
    cells = [c for c in cells if len(c) >= 3]  # "—", "4" or "(a)" say nothing about where a table is
    if not cells:
        return 1.0
    hay = norm(region)
    return sum(c in hay for c in cells) / len(cells)
