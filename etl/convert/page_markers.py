"""The invisible marks that carry EDGAR page numbers from the HTML through the renderer.

:mod:`etl.convert.html_prepare` puts ``SECPLATPAGE<n>X`` at the start of EDGAR page n (n >= 1); the paging step
finds them in the PDF and the table reader finds them in the DOM, so both agree on what page a thing is on.
"""

from __future__ import annotations

import re

MARKER_PREFIX = "SECPLATPAGE"
MARKER_SUFFIX = "X"  # ends the number, so "SECPLATPAGE5" followed by "2023" stays unambiguous
MARKER_RE = re.compile(MARKER_PREFIX + r"(\d{1,6})" + MARKER_SUFFIX)


def marker_text(n: int) -> str:
    return f"{MARKER_PREFIX}{n}{MARKER_SUFFIX}"


def marker_number(text: str | None) -> int | None:
    """n when ``text`` is exactly marker n."""
    m = MARKER_RE.fullmatch(text or "")
    return int(m.group(1)) if m else None


def strip_markers(text: str) -> str:
    return MARKER_RE.sub("", text)


def paged_elements(root):
    """(element, EDGAR page) for every element of a page-marked DOM in document order: the one walk that
    tells the table reader and the iXBRL reader which page a thing starts on."""
    page = 0
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        n = marker_number(el.text) if el.tag == "span" else None
        if n is not None:
            page = n
        yield el, page
