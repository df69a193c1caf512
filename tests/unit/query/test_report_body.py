"""A short 8-K's Item before its cover, exhibit list and signatures (query.report_body)."""

from domain.sec_items import signature_block
from kernel.search import Hit
from query.report_body import body_first, part_rank


def chunk(doc_id: str, item: str, text: str) -> dict:
    return {"doc_id": doc_id, "item": item, "text": text}


COVER = Hit("cover", 0.9, chunk("X_8K", "cover", "FORM 8-K CURRENT REPORT Date of Report June 24, 2026"))
SIGNED = Hit("signed", 0.85, chunk("X_8K", "9.01", "SIGNATURE Pursuant to the requirements of the Securities"))
TENK = Hit("10k", 0.8, chunk("X_10K", "11", "Item 11. Executive Compensation"))
LISTED = Hit("listed", 0.7, chunk("X_8K", "9.01", "Item 9.01 Financial Statements and Exhibits (d) Exhibits 99.1"))
ITEM = Hit("item", 0.6, chunk("X_8K", "5.02", "Item 5.02 Departure of Directors or Certain Officers"))
HITS = [COVER, SIGNED, TENK, LISTED, ITEM]


def test_the_items_text_takes_the_filings_best_place():
    """JPMorgan Chase's 8-K of June 2026, asked what executive change it reported: its cover and signatures
    print the date and the name, so they matched first; its Item 5.02 takes the first of the places the
    filing's passages hold, then the exhibit list, then the cover and signatures. The 10-K's passage keeps
    its place and every place its score."""
    out = body_first(HITS, ["X_8K"], "What executive change did JPMorgan Chase report in June 2026?")
    assert [h.id for h in out] == ["item", "listed", "10k", "cover", "signed"]
    assert [h.score for h in out] == [h.score for h in HITS]


def test_exhibits_asked_keep_the_exhibit_list_with_the_items_and_the_cover_asked_leaves_all():
    out = body_first(HITS, ["X_8K"], "Which exhibits did the company file with its June 2026 8-K?")
    assert [h.id for h in out] == ["listed", "item", "10k", "cover", "signed"]
    assert body_first(HITS, ["X_8K"], "What securities are registered?", cover_asked=True) == HITS
    assert body_first(HITS, [], "What did it report?") == HITS  # no short filing chosen


def test_signatures_and_empty_passages_rank_with_the_cover():
    assert signature_block("SIGNATURES Pursuant to the requirements of the Securities Exchange Act of 1934")
    assert signature_block("META PLATFORMS, INC. / Date: | December 19, 2025 | By: | /s/ Katherine Kelly")
    assert signature_block("ORACLE CORPORATION Dated: June 13, 2022 | By: | /S/ WILLIAM COREY WEST")
    assert not signature_block("Item 5.02 Departure of Directors; the signing of an employment agreement")
    assert signature_block("Date: March 15, 2023 5")
    assert part_rank(chunk("X_8K", "8.01", "3")) == 2  # a page number alone
    assert part_rank(chunk("X_8K", "8.01", "Item 8.01 Other Events. On December 17, 2019, ...")) == 0


def test_an_exhibits_own_text_under_item_9_01_is_what_the_filing_reports():
    """A PDF 8-K carries its press release on after Item 9.01, under that Item's name: Ulta Beauty's
    announcement of its new chief operating officer is the filing's body, not its list of exhibits."""
    release = chunk("X_8K", "9.01", "Bolingbrook, IL - September 18, 2023 - Ulta Beauty, Inc. today announced")
    assert part_rank(release) == 0
    assert part_rank(chunk("X_8K", "9.01", "Item 9.01 Financial Statements and Exhibits. (a) Not applicable")) == 1
    assert part_rank(chunk("X_8K", "9.01", "Exhibit No. | Description 99.1 | Press release")) == 1
    assert part_rank(chunk("X_8K", "9.01", "Exhibit No. | Description 99.1 | Press release"), exhibits=True) == 0


def test_a_releases_safe_harbor_legend_comes_after_what_it_announces():
    """MGM Resorts' 8-K of March 1, 2023 prints its press release after Item 9.01; the release's closing
    legend matched "What did MGM Resorts report in March 2023?" first."""
    legend = chunk("X_8K", "9.01", "Forward Looking Statements: Statements in this release that are not historical")
    assert part_rank(legend) == 1 and part_rank(legend, legend=True) == 0
    assert part_rank(chunk("X_8K", "9.01", "Cautionary Note Regarding Forward-Looking Statements This release")) == 1
    cut = chunk("X_8K", "9.01", "financings, approvals and other contingencies ... other forward-looking statements.")
    assert part_rank(cut) == 1  # the legend's passage however the chunking cut it
    assert part_rank(chunk("X_8K", "9.01", "today appointed award-winning producer Ben Winston to the Board")) == 0


def test_asked_only_what_was_reported_the_items_opening_comes_first():
    """Southern Company's 8-K of December 2019, asked "What event did Southern Company report on Form 8-K in
    December 2019?": its Item 8.01 opens on page 2 with the event, and page 3 (the rate plan's terms) had
    matched the date better. Asked a detail ("How much will customers receive as refunds in 2020?"), the
    search's order of the Item's pages stands."""
    from query.report_body import asks_what_happened

    terms_page = Hit("terms", 0.9, chunk("X_8K", "8.01", "and the remaining 20% retained by Georgia Power in December"))
    opening = Hit("opening", 0.8, chunk("X_8K", "8.01", "Item 8.01 Other Events. On December 17, 2019, the PSC voted"))
    hits = [terms_page, opening]
    assert asks_what_happened("What event did report on in December 2019?")  # lexical: no name, no form
    assert not asks_what_happened("How much will customers receive as refunds in 2020?")
    general = body_first(hits, ["X_8K"], "q", lexical="What event did report on in December 2019?")
    assert [h.id for h in general] == ["opening", "terms"]
    detail = body_first(hits, ["X_8K"], "q", lexical="How much will customers receive as refunds in 2020?")
    assert [h.id for h in detail] == ["terms", "opening"]
