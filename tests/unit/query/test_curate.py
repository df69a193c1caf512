"""Curation's near-duplicate rule on literal evidence (``query.curate``)."""

from __future__ import annotations

from query.api import Evidence
from query.curate import _dedupe

TEXT = "The accompanying notes are an integral part. STATEMENT OF CASH FLOWS Net cash used in investing activities"


def _page(page: int, chunk: str, text: str = TEXT, basis: str = "match") -> Evidence:
    return Evidence(doc_id="MRK_2023Q2_10Q", doc_name="MRK_2023Q2_10Q", source_name=None, company="Merck",
                    ticker="MRK", form="10-Q", fiscal_year=2023, fiscal_period="Q2", item="part1item1", item_title="",
                    page=page, chunk_id=chunk,
                    text=text, score=1.0, reason="pinned", basis=basis)


def test_a_chunk_standing_for_two_pages_keeps_both_and_a_repeated_text_goes():
    """One chunk over a page's foot and the next page's statement, pinned for both: two pages kept. The same
    text in another chunk (a release repeating a table) is a near-duplicate: dropped."""
    both = _dedupe([_page(3, "c1"), _page(4, "c1")])
    assert [e.page for e in both] == [3, 4]
    assert [e.page for e in _dedupe([_page(3, "c1"), _page(9, "c2")])] == [3]
    assert [e.page for e in _dedupe([_page(3, "c1"), _page(9, "c2", "Segment results by region")])] == [3, 9]


def test_a_pinned_page_repeating_a_table_is_kept():
    """MD&A prints the income statement's table again: pinned for the figure it prints, the second page
    stays (a reader may cite either); a search match repeating it still goes."""
    kept = _dedupe([_page(86, "c1", basis="fact"), _page(70, "c2", basis="fact"), _page(9, "c3")])
    assert [e.page for e in kept] == [86, 70]
    reranked = _dedupe([_page(86, "c1", basis="fact"), _page(9, "c3", basis="reranker")])
    assert [e.page for e in reranked] == [86]  # the cross-encoder's order is still the search's match
