"""An 8-K's body before its boilerplate: what it reports before its cover, exhibit list and signatures.

A current report prints the same frame around every event: a cover (the form, the date of
the report, the registrant's address and securities), the Item reporting the event ("Item 5.02 Departure
of Directors ..."), the list of exhibits it files (Item 9.01) and the signatures. Asked what the filing
reports ("What executive change did JPMorgan Chase report in June 2026?"), the cover and the signature
page match as well as the Item does or better: they print the date asked and the company's name, which
the Item's text may not repeat. So among one 8-K's passages (its own document, ``query.scoring.current_report``)
the Item's come first, the exhibit list and a release's forward-looking statements legend next (first too when
the question asks about them), the cover and the signatures last. The places the filing's passages hold among all the hits are kept, with their scores:
the other documents' passages stay where they were. A question asking for the cover (its securities, its
address: the plan's cover evidence) is left as it was. Pure: hits in, hits out.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from domain.sec_items import COVER, EXHIBITS_ITEM, signature_block
from kernel.search import Hit

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


def body_first(hits: list[Hit], filings: Collection[str], question: str, cover_asked: bool = False) -> list[Hit]:
    """``hits`` (best first) with each 8-K's passages (``filings``: their doc_ids) reordered among
    the places they hold: its Items' text, then its exhibit list, then its cover and signatures."""
    if cover_asked or not filings:
        return hits
    exhibits = bool(_EXHIBITS_ASKED.search(question))
    legend = bool(_LEGEND_ASKED.search(question))
    out = list(hits)
    for doc_id in filings:
        places = [i for i, h in enumerate(hits) if h.source.get("doc_id") == doc_id]
        ordered = sorted((hits[i] for i in places), key=lambda h: part_rank(h.source, exhibits, legend))
        for i, h in zip(places, ordered, strict=True):
            out[i] = Hit(h.id, hits[i].score, h.source)
    return out


def part_rank(chunk: dict, exhibits: bool = False, legend: bool = False) -> int:
    """0: an Item reporting the event, or an exhibit's own text; 1: the exhibit list, a release's
    forward-looking statements legend (0 when exhibits, or forward-looking statements, are asked); 2: the
    cover, the signatures, a passage with no word."""
    text = chunk.get("text", "")
    if chunk.get("item") == COVER or signature_block(text) or not _WORD.search(text):
        return 2
    listed = chunk.get("item") == EXHIBITS_ITEM and _EXHIBIT_LIST.search(text)
    return 1 if (listed and not exhibits) or (_LEGEND.search(text) and not legend) else 0
