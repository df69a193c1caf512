"""An 8-K's body before its boilerplate: what it reports before its cover, exhibit list and signatures.

A current report prints the same frame around every event: a cover (the form, the date of the report, the
registrant's address and securities), the Item reporting the event ("Item 5.02 Departure of Directors ..."),
the list of exhibits it files (Item 9.01) and the signatures. Asked what the filing reports ("What executive
change did JPMorgan Chase report in June 2026?"), the cover and the signature page match as well as the Item
does or better: they print the date asked and the company's name, which the Item's text may not repeat. So
among one 8-K's passages (its own document, ``query.scoring.current_report``) the Items' come first (the
passages opening an Item first of all when the question asks nothing but what was reported), the exhibit
list and a release's forward-looking statements legend next (first too when the question asks about them),
the cover and the signatures last. The places the filing's passages hold among all the hits are kept, with
their scores: the other documents' passages stay where they were. A question asking for the cover (its
securities, its address: the plan's cover evidence) is left as it was. Pure: hits in, hits out.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from domain.sec_items import COVER, EXHIBITS_ITEM, signature_block
from domain.text import FUNCTION_WORDS, terms
from kernel.search import Hit
from query.scoring import telling

_EXHIBITS_ASKED = re.compile(r"\bexhibits?\b", re.I)
# Item 9.01's heading or its table of exhibits; the text of an exhibit printed after it (a PDF filing carries
# its press release on, under the last Item's name) is what the filing reports, not its list
_EXHIBIT_LIST = re.compile(r"financial\s+statements\s+and\s+exhibits|\bexhibit\s+(?:no\b|number|index|description)|"
                           r"\(d\)\W*exhibits", re.I)
# a press release's safe-harbor legend, which closes every release whatever it announces: a passage of it
# names what it is about, wherever the chunking cut it
_LEGEND = re.compile(r"\bforward[- ]looking\s+statements?\b", re.I)
_LEGEND_ASKED = re.compile(r"\bforward[- ]looking\b", re.I)
_WORD = re.compile(r"[A-Za-z]{3}")  # a passage with no word (a page number alone) reports nothing
_OPENING = re.compile(r"^\W*Item\s+\d{1,2}\.\d{2}\b", re.I)  # a passage opening an Item: its heading, its first lines
# the words of a question asking only what a filing reported ("What event did Southern Company report on Form
# 8-K in December 2019?"): with the company's name, the form and the date gone, nothing says what about
_REPORTING = terms("what which did does do event events report reported disclose disclosed announce announced "
                   "happen happened say said news date dated file filed furnish furnished state tell")


def body_first(hits: list[Hit], filings: Collection[str], question: str, cover_asked: bool = False,
               lexical: str = "") -> list[Hit]:
    """``hits`` (best first) with each 8-K's passages (``filings``: their doc_ids) reordered among
    the places they hold: its Items' text, then its exhibit list, then its cover and signatures. When the
    question asks only what the filing reported (``lexical``: its words without the company's names and the
    form, :func:`asks_what_happened`), the passages opening an Item come first of its text: the event is
    said there ("Item 8.01 Other Events. On December 17, 2019, the Georgia PSC voted to approve ..."), the
    pages after it give its terms."""
    if cover_asked or not filings:
        return hits
    exhibits = bool(_EXHIBITS_ASKED.search(question))
    legend = bool(_LEGEND_ASKED.search(question))
    opening = asks_what_happened(lexical)

    def rank(h: Hit) -> int:
        part = part_rank(h.source, exhibits, legend)
        return -1 if part == 0 and opening and _OPENING.match(h.source.get("text", "")) else part
    out = list(hits)
    for doc_id in filings:
        places = [i for i, h in enumerate(hits) if h.source.get("doc_id") == doc_id]
        ordered = sorted((hits[i] for i in places), key=rank)
        for i, h in zip(places, ordered, strict=True):
            out[i] = Hit(h.id, hits[i].score, h.source)
    return out


def asks_what_happened(lexical: str) -> bool:
    """Whether a question's words (without the company's names and the form) ask nothing but what was
    reported: no word but the reporting ones, function words, numbers and months."""
    asked = telling(frozenset(terms(lexical)) - FUNCTION_WORDS)
    return bool(lexical.strip()) and asked <= _REPORTING


def part_rank(chunk: dict, exhibits: bool = False, legend: bool = False) -> int:
    """0: an Item reporting the event, or an exhibit's own text; 1: the exhibit list, a release's
    forward-looking statements legend (0 when exhibits, or forward-looking statements, are asked); 2: the
    cover, the signatures, a passage with no word."""
    text = chunk.get("text", "")
    if chunk.get("item") == COVER or signature_block(text) or not _WORD.search(text):
        return 2
    listed = chunk.get("item") == EXHIBITS_ITEM and _EXHIBIT_LIST.search(text)
    return 1 if (listed and not exhibits) or (_LEGEND.search(text) and not legend) else 0
