"""Item segmentation and chunking on the project's own small inputs."""

from __future__ import annotations

import pytest

from etl.segment.chunking import PAGE_JOIN, ChunkConfigError, Chunker, ChunkOptions
from etl.segment.items import segment
from kernel.models import token_counter
from kernel.resources import Resources
from kernel.settings import ConfigError, load_settings
from schemas.table_text import render_table, table_rows
from shell.runner import run_stage
from tests.provenance import cell_share

FILLER = "The company sells products in many markets and reports results each year. " * 30


def ten_k_pages() -> list[str]:
    toc = "\n".join(["TABLE OF CONTENTS", "PART I", "Item 1.", "Business", "3", "Item 1A.", "Risk Factors", "5",
                     "Item 1B.", "Unresolved Staff Comments", "9", "Item 2.", "Properties", "9",
                     "Item 7.", "Management's Discussion and Analysis", "12", "Item 8.", "Financial Statements", "20"])
    return [
        "ACME CORP\nFORM 10-K\nFor the fiscal year ended December 31, 2023",
        toc,
        f"PART I\nItem 1. Business\n{FILLER}\nsee the discussion in\nItem 7 of this report for more.",
        f"ITEM 1A. RISK FACTORS\n{FILLER}",
        f"{FILLER}\nItem 1B. Unresolved Staff Comments\nNone.\nItems 2 and 3. Properties and Legal Proceedings\n"
        f"We own our headquarters. No material litigation.\nItem 4. Mine Safety Disclosures\nNot applicable.",
        f"PART II\nItem 5. Market for Registrant's Common Equity\n{FILLER}\nItem 7. Management's Discussion and "
        f"Analysis of Financial Condition\n{FILLER}",
        f"Item 7. Management's Discussion and Analysis (continued)\n{FILLER}\nItem 8. Financial Statements and "
        f"Supplementary Data\n{FILLER}",
    ]


def test_ten_k_skips_contents_and_cross_references_and_records_what_is_missing():
    seg = segment(ten_k_pages(), "10-K")
    found = {s.item: s for s in seg.spans}
    assert [s.item for s in seg.spans if s.status != "combined"] == ["cover", "1", "1A", "1B", "2", "4", "5", "7",
                                                                      "8"]
    assert found["1"].start.page == 2 and found["1A"].start.page == 3  # not the contents on page 1
    assert found["7"].start.page == 5  # not the wrapped cross-reference on page 2, not the running header
    assert found["3"].status == "combined" and found["3"].start == found["2"].start  # "Items 2 and 3."
    assert "1C" in seg.missing and "9A" in seg.missing and "3" not in seg.missing
    assert found["cover"].start.page == 0 and found["cover"].end == found["1"].start
    assert seg.method == "headings"


def test_ten_q_parts_resolve_repeated_item_numbers():
    pages = [
        "FORM 10-Q\nFor the quarterly period ended March 31, 2024",
        f"PART I. FINANCIAL INFORMATION\nItem 1. Financial Statements\n{FILLER}",
        f"Item 2. Management's Discussion and Analysis\n{FILLER}\nItem 3. Quantitative and Qualitative "
        f"Disclosures About Market Risk\nSee our annual report.\nItem 4. Controls and Procedures\n{FILLER}",
        f"PART II. OTHER INFORMATION\nItem 1. Legal Proceedings\nNone.\nItem 1A. Risk Factors\n{FILLER}\n"
        "Item 2. Unregistered Sales of Equity Securities\nNone.\nItem 5. Other Information\nNone.\n"
        "Item 6. Exhibits\n31.1 Certification",
    ]
    seg = segment(pages, "10-Q")
    keys = [s.item for s in seg.spans]
    assert keys == ["cover", "part1item1", "part1item2", "part1item3", "part1item4", "part2item1", "part2item1a",
                    "part2item2", "part2item5", "part2item6"]
    assert seg.missing == ["part2item3", "part2item4"]


def test_ten_q_without_an_item_one_heading_starts_item_one_at_part_one():
    pages = ["FORM 10-Q", f"PART I. FINANCIAL INFORMATION\nCondensed Statements of Income\n{FILLER}",
             f"Item 2. Management's Discussion and Analysis\n{FILLER}"]
    seg = segment(pages, "10-Q")
    assert [s.item for s in seg.spans][:3] == ["cover", "part1item1", "part1item2"]
    assert seg.spans[1].start.page == 1
    # a reference to the 10-K's "Part I, Item 1A" wrapped to a line's start is no PART I heading (JPMorgan's
    # 10-Q, MD&A first): the statements are not guessed to open on the page that cites it
    cited = ["FORM 10-Q", f"{FILLER}\nRefer to Forward-looking Statements on page 95;\nPart I, Item 1A, Risk "
             f"Factors on pages 9-32 of the 2022 Form\n10-K for a discussion.\n{FILLER}",
             f"Consolidated statements of income\n{FILLER}", f"Item 3. Quantitative and Qualitative Disclosures "
             f"About Market Risk\n{FILLER}\nItem 4. Controls and Procedures\n{FILLER}\nPART II\nItem 1. Legal "
             f"Proceedings\n{FILLER}\nItem 1A. Risk Factors\n{FILLER}\nItem 6. Exhibits\n{FILLER}"]
    assert [(s.item, s.start.page) for s in segment(cited, "10-Q").spans][:2] == [("cover", 0), ("part1item3", 3)]


def test_a_ten_q_with_mdna_first_places_its_part_one_items_by_the_contents_page_numbers():
    """JPMorgan's 10-Q opens Part I with MD&A and prints neither Item's heading in the body: its contents'
    page numbers ("Item 2. ... Highlights 3", "Item 1. ... Consolidated statements of income 4") place them,
    through the printed page numbers; without them the body was the cover."""
    contents = ("TABLE OF CONTENTS\nPart I\nItem 1.\nFinancial Statements.\nConsolidated statements of income\n4\n"
                "Item 2.\nManagement's Discussion and Analysis of Financial Condition\nHighlights\n3\nItem 3.\n"
                "Quantitative and Qualitative Disclosures About Market Risk.\n5\nItem 4.\nControls and Procedures.\n5\n"
                "Part II\nItem 1.\nLegal Proceedings.\n5\nItem 6.\nExhibits.\n5\nSignatures\nJPMorgan Chase & Co.")
    tail = (f"Item 3. Quantitative and Qualitative Disclosures About Market Risk.\n{FILLER}\nItem 4. Controls and "
            f"Procedures.\n{FILLER}\nPART II\nItem 1. Legal Proceedings.\n{FILLER}\nItem 6. Exhibits.\n{FILLER}\n5")
    pages = ["FORM 10-Q\nJPMorgan Chase & Co.", contents, f"Highlights\n{FILLER}\n3",
             f"Consolidated statements of income\n{FILLER}\n4", tail]
    spans = [(s.item, s.start.page, s.end.page) for s in segment(pages, "10-Q").spans]
    assert spans[:4] == [("cover", 0, 2), ("part1item2", 2, 3), ("part1item1", 3, 4), ("part1item3", 4, 4)]
    # contents that give the statements the earlier page leave the headings' reading alone
    ordered = [pages[0], contents.replace("\n4\n", "\n2\n").replace("\n3\nItem 3.", "\n4\nItem 3."), *pages[2:]]
    assert [s.item for s in segment(ordered, "10-Q").spans][:2] == ["cover", "part1item3"]


def test_eight_k_items_current_and_pre_2004():
    seg = segment(["FORM 8-K\nItem 2.02 Results of Operations and Financial Condition.\nRevenue grew.\n"
                   "Item 9.01 Financial Statements and Exhibits.\n99.1 Press release"], "8-K")
    assert [s.item for s in seg.spans] == ["cover", "2.02", "9.01"]
    old = segment(["FORM 8-K\nItem 5. Other Events\nA thing happened.\nItem 7. Financial Statements and Exhibits\n"
                   "99 Press release"], "8-K")
    assert [s.item for s in old.spans] == ["cover", "5", "7"]
    # a line naming the items a filing does not have is neither a heading nor a contents page (AAPL, 1996)
    absent = segment(["FORM 8-K\nDate of Report", "INFORMATION INCLUDED IN THIS REPORT\nItems 1 through 4, 6 and 8 "
                      "Not Applicable.\nItem 5. Other Events.\nA thing happened.\nItem 7. Financial Statements, "
                      "Pro Forma Financial Information and Exhibits.\n99.1 Press release"], "8-K")
    assert [(s.item, s.status) for s in absent.spans] == [("cover", "cover"), ("5", "found"), ("7", "found")]


def test_no_recognizable_items_still_chunks_as_unknown():
    pages = ["Some document without any structure.\n" + FILLER, FILLER]
    seg = segment(pages, "10-K")
    assert [s.item for s in seg.spans] == ["unknown"] and seg.warnings == ["no recognizable item headings"]
    chunks = Chunker(token_counter(None)).chunk("X_2023_10K", pages, [[], []], seg)
    assert chunks and {c.item for c in chunks} == {"unknown"}


def _page_slice(pages, c) -> str:
    parts = []
    for p in range(c.page_start, c.page_end + 1):
        a = c.char_start if p == c.page_start else 0
        b = c.char_end if p == c.page_end else len(pages[p])
        parts.append(pages[p][a:b])
    return PAGE_JOIN.join(parts)


def test_chunks_fit_the_model_stay_in_their_item_and_are_verbatim():
    counter = token_counter(None)
    pages = ten_k_pages()
    seg = segment(pages, "10-K")
    chunks = Chunker(counter, ChunkOptions(tokens=120, overlap=16)).chunk("ACME_2023_10K", pages,
                                                                          [[] for _ in pages], seg)
    spans = {s.item: s for s in seg.spans}
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    for c in chunks:
        assert c.token_count <= 120 and counter.count(c.text) == c.token_count
        assert _page_slice(pages, c) == c.text  # verbatim, with its page span
        span = spans[c.item]
        assert (span.start.page, span.start.offset) <= (c.page_start, c.char_start)
        assert (c.page_end, c.char_end) <= (span.end.page, span.end.offset) or span.end.offset == 0
    one_a = [c for c in chunks if c.item == "1A"]
    assert len(one_a) > 1 and one_a[1].text[:20] in one_a[0].text  # neighbours overlap
    again = Chunker(counter, ChunkOptions(tokens=120, overlap=16)).chunk("ACME_2023_10K", pages,
                                                                         [[] for _ in pages], seg)
    assert [c.chunk_id for c in again] == [c.chunk_id for c in chunks]  # stable ids


def test_tables_stay_whole_or_split_at_rows_with_the_header_repeated():
    counter = token_counter(None)
    rows = [[f"Segment {i} revenue", f"{1000 + i:,}", f"{900 + i:,}"] for i in range(40)]
    big = render_table(["Year Ended December 31, | 2023 | 2022"], rows)
    small = render_table(["(in millions) | 2023"], [["Total", "5"]])
    page = ("Results by segment\n" + "Year Ended December 31,\n2023\n2022\n"
            + "\n".join("\n".join(r) for r in rows) + "\n(in millions)\n2023\nTotal\n5\nEnd of page.")
    seg = segment([page], "8-K")
    chunks = Chunker(counter, ChunkOptions(tokens=100, overlap=10)).chunk("T_8K", [page], [[big, small]], seg)
    tables = [c for c in chunks if c.kind == "table"]
    assert len(tables) > 2
    assert tables[-1].text == small  # fits: whole
    pieces = tables[:-1]
    assert all(c.text.startswith("Year Ended December 31, | 2023 | 2022\n") for c in pieces)
    assert [r for c in pieces for r in table_rows(c.text)[1]] == table_rows(big)[1]  # every row, once, in order
    assert all(c.token_count <= 100 for c in chunks)
    for c in tables:
        assert cell_share(page[c.char_start:c.char_end], c.text) == 1.0
    texts = [c for c in chunks if c.kind == "text"]
    assert any("Results by segment" in c.text for c in texts) and any("End of page." in c.text for c in texts)
    assert not any("Segment 3 revenue" in c.text for c in texts)  # table text is not chunked twice


def test_chunk_sizes_that_do_not_fit_the_model_are_refused(tmp_path):
    with pytest.raises(ChunkConfigError, match="exceeds the embedding model's 254 content tokens"):
        Chunker(token_counter(None), ChunkOptions(tokens=300))
    settings = load_settings(lake_root=str(tmp_path / "lake"), chunk_tokens=300)
    with pytest.raises(ConfigError, match="CHUNK_TOKENS=300"):
        run_stage("segment", Resources(settings))


def test_cross_reference_index_filings_map_items_to_the_pages_they_name():
    """GE-style 10-Ks: no item headings in the body, an index at the end names printed pages."""
    body = [f"Our business overview.\n{FILLER}\n2023 FORM 10-K {n}" for n in range(1, 9)]
    index = ("FORM 10-K CROSS REFERENCE INDEX\nPage(s)\nPart I\nItem 1.\nBusiness\n2-3\nItem 1A.\nRisk Factors\n4\n"
             "Item 1B.\nUnresolved Staff Comments\nNot applicable\nPart II\nItem 7.\nManagement's Discussion and "
             "Analysis\n5-6\nItem 8.\nFinancial Statements and Supplementary Data\n7-8\n2023 FORM 10-K 9")
    pages = ["GENERAL ELECTRIC\nFORM 10-K", *body, index]
    seg = segment(pages, "10-K")
    assert seg.method == "cross-reference"
    starts = {s.item: s.start.page for s in seg.spans}
    assert starts == {"cover": 0, "1": 2, "1A": 4, "7": 5, "8": 7}  # printed page n is our page n (cover is 0)
    assert "1B" in seg.missing


def _lake_with_pages(tmp_path, pages: list[str], tables: list[list[str]], **fields):
    """A lake holding one converted 10-K with these pages (as the convert stage writes it)."""
    import datetime as dt

    from kernel.layout import dataset_key
    from kernel.storage import LocalLake, write_parquet
    from schemas.base import to_table
    from schemas.documents import DocumentRecord, PageRecord
    from schemas.facts import FactRecord

    lake = LocalLake(tmp_path / "lake")
    doc = DocumentRecord(doc_id="T_2023_10K", doc_name="T_2023_10K", source_kind="html", form="10-K",
                         metadata_source="text", page_count=len(pages), page_basis="edgar",
                         rendered_page_count=len(pages), cover_summary="T 10-K", pdf_key="pdf/t.pdf",
                         source_key="raw/t.htm", source_sha256="t", extract_seconds=0.0,
                         processed_at=dt.datetime.now(dt.UTC), **fields)
    rows = [PageRecord(doc_id=doc.doc_id, page=i, text=t, char_count=len(t), rendered_pages=[i], tables=tables[i])
            for i, t in enumerate(pages)]
    write_parquet(lake, dataset_key("pages", "t"), to_table(PageRecord, rows))
    write_parquet(lake, dataset_key("documents", "t"), to_table(DocumentRecord, [doc]))
    write_parquet(lake, dataset_key("facts", "t"), to_table(FactRecord, []))  # its conversion finished
    return lake


def test_chunks_that_miss_page_text_are_caught_by_the_conservation_check(tmp_path):
    """Segmentation's side of the conservation rule: the chunks must cover the page text. Here the prose
    between tables is shorter than min_tokens, so the chunker drops it: more than half of the text is gone
    and the document is quarantined with the reason; with every piece kept it segments without a warning."""
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel.storage import LocalLake

    tables = [f"Segment | 2023 | 2022\nRegion {i} sales | {i}0 | {i}1" for i in range(12)]
    page = "Item 7. Management's Discussion and Analysis\n" + "".join(
        f"Segment 2023 2022\nRegion {i} sales {i}0 {i}1\nThe region grew modestly in the year.\n" for i in range(12))
    lake = _lake_with_pages(tmp_path, ["FORM 10-K\n", page], [[], tables])
    counter = token_counter(None)
    lossy = run_segment(lake, SegmentOptions(counter, ChunkOptions(min_tokens=20), "all-MiniLM-L6-v2"))
    assert lossy.quarantined == 1 and "content lost: chunks hold 378 of the page text's 797" in lossy.problems[0]
    assert any("chunks hold" in LocalLake(tmp_path / "lake").read_bytes(k).decode()
               for k in lake.list("quarantine/segment"))
    whole = run_segment(lake, SegmentOptions(counter, ChunkOptions(), "all-MiniLM-L6-v2"))
    assert whole.segmented == 1 and whole.content_warnings == [] and whole.quarantined == 0


def test_a_cross_reference_index_gives_items_several_page_ranges():
    from etl.segment.cross_reference import merge, parse_pages, uncovered
    from etl.segment.items import segment

    assert parse_pages("3-36, 63-64, 68, 8 5-8 6") == [(3, 36), (63, 64), (68, 68), (85, 86)]  # markup split digits
    assert parse_pages("4 - 22") == [(4, 22)] and merge([(5, 6), (21, 47), (5, 6), (44, 44), (7, 8)]) == \
        [(5, 8), (21, 47)]
    assert uncovered({"1": [(1, 2)], "7": [(2, 3), (5, 5)]}, 7) == [("cover", 0, 0), ("unknown", 4, 4),
                                                                     ("unknown", 6, 6)]
    body = [f"Our business, page {n}.\n{n}" for n in range(1, 9)]  # printed numbers 1..8 on pages 1..8
    index = ("Form 10-K Cross-Reference Index\nItem Number\nPart I\nItem 1.\nBusiness:\nPages 1-3, 6\n"
             "Item 1A.\nRisk Factors\nPages 4-5\nItem 1B.\nUnresolved Staff Comments\nNone\nPart II\n"
             "Item 7.\nManagement's Discussion and Analysis\nPages 2 - 3, 7\nItem 8.\nFinancial Statements\n"
             "Page 8\nSignatures\nPage 9\n9")
    seg = segment(["Annual report on Form 10-K", *body, index], "10-K")
    assert seg.method == "cross-reference"
    spans = {(s.item, s.start.page, s.end.page) for s in seg.spans}
    assert {("1", 1, 4), ("1", 6, 7), ("1A", 4, 6), ("7", 2, 4), ("7", 7, 8), ("8", 8, 9)} <= spans
    assert ("cover", 0, 1) in spans and "1B" in seg.missing
    # each page is chunked once, under the Item naming the fewest pages (the most specific)
    chunked = [(s.item, s.start.page, s.end.page) for s in seg.chunk_spans]
    assert chunked == [("cover", 0, 1), ("1", 1, 2), ("7", 2, 4), ("1A", 4, 6), ("1", 6, 7), ("7", 7, 8),
                       ("8", 8, 9), ("unknown", 9, 9)]


def test_an_index_naming_one_page_per_item_gives_where_each_starts():
    """McDonald's: "Item 1 Business Page 3 ... Item 7 ... Page 8": each Item runs from its page to the page
    before the next Item's, the last to the last printed page; Items naming one page share its run."""
    from etl.segment.cross_reference import start_ranges
    from etl.segment.items import segment

    assert start_ranges({"1": [(3, 3)], "7": [(5, 5)], "2": [(8, 8)], "3": [(8, 8)]}, 9) == \
        {"1": [(3, 4)], "7": [(5, 7)], "2": [(8, 9)], "3": [(8, 9)]}
    body = [f"Our business, page {n}.\n{n}" for n in range(1, 9)]  # printed numbers 1..8 on pages 1..8
    index = ("Form 10-K Cross-Reference Index\nPage reference\nPart I\nItem 1 Business Page 1\nItem 1A Risk Factors "
             "Page 6\nItem 1B Unresolved Staff Comments Not applicable\nPart II\nItem 7 Management's Discussion and "
             "Analysis Page 3\nItem 8 Financial Statements Page 7\n9")
    seg = segment(["Annual report on Form 10-K", *body, index], "10-K")
    assert seg.method == "cross-reference" and "1B" in seg.missing
    assert [(s.item, s.start.page, s.end.page) for s in seg.chunk_spans] == \
        [("cover", 0, 1), ("1", 1, 3), ("7", 3, 6), ("1A", 6, 7), ("8", 7, 9)]


def test_ten_q_part_one_items_without_their_item_headings():
    from etl.segment.items import segment

    contents = ("PART I. FINANCIAL INFORMATION\nItem 1. Financial Statements 2\nItem 2. Management's Discussion "
                "and Analysis 5\nItem 3. Quantitative and Qualitative Disclosures 8\nItem 4. Controls and "
                "Procedures 8\nPART II. OTHER INFORMATION\nItem 1. Legal Proceedings 9\nItem 6. Exhibits 9")
    statements = "Condensed Consolidated Statement of Earnings\n" + "Net sales 1,234 1,111\n" * 30
    mdna = ("COMPANY\nManagement's Discussion and Analysis of Financial\nCondition and Results of Operations\n"
            + "Sales grew. " * 200)
    part2 = "PART II. OTHER INFORMATION\nItem 1. Legal Proceedings\nNone.\nItem 6. Exhibits\nSee the index."
    seg = segment(["Form 10-Q cover", contents, statements, statements, mdna, mdna, part2], "10-Q")
    starts = {s.item: s.start.page for s in seg.spans if s.status == "found"}
    assert starts["part1item1"] == 2  # right after the contents: no "Item 1" heading in the body
    assert starts["part1item2"] == 4  # its title alone heads the page


def test_an_annual_report_is_segmented_into_the_10k_items_its_sections_hold():
    """An EX-13 prints no Item headings: its sections' own titles say which Item each is; the contents
    (titles with page numbers) and the letter before them open nothing, nor does a statement's title over
    prose."""
    from etl.segment.annual_report import annual_report_sections

    pages = [
        "2023 Annual Report\nContents\nManagement Discussion\n6\nReport of Independent Registered Public "
        "Accounting Firm\n44\nConsolidated Statement of Earnings\nRevenue grew.",
        "Dear stockholders,\nA year of progress.",
        "Management Discussion\nInternational Business Machines Corporation and Subsidiary Companies\nOverview",
        "Liquidity and capital resources\nCash of $13 billion.",
        "Report of Independent Registered Public Accounting Firm\nTo the stockholders ...",
        "Consolidated Statement of Earnings\nRevenue 61,860",
    ]
    seg = annual_report_sections(pages)
    assert [(s.item, s.start.page, s.end.page) for s in seg.spans] == [("cover", 0, 2), ("7", 2, 4), ("8", 4, 5)]
    assert seg.method == "annual-report" and seg.spans[1].title.startswith("Management's Discussion")
    assert annual_report_sections(["Dear stockholders,\nThank you."]).warnings


def test_a_corrected_membership_reflags_a_document_and_segment_redoes_it(tmp_path):
    """Issue 56: a document's sp500_member was set when it was converted only. A membership file corrected
    since (the company left earlier than recorded) re-flags it: the part is rewritten with the flag and its
    revision one up, and segment (whose fingerprint the later stages key on) redoes it; a second pass changes
    nothing, and a part written before the revision column existed keeps its fingerprint."""
    import datetime as dt

    from domain.membership import MemberPeriod
    from etl.convert.records import converted_documents, reflag
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from etl.segment.stage import chunks_fingerprint
    from kernel.layout import chunk_fingerprint, dataset_key
    from kernel.storage import read_parquet, write_parquet

    page = "Item 7. Management's Discussion and Analysis\nThe year went well for the company and its customers.\n"
    lake = _lake_with_pages(tmp_path, ["FORM 10-K\n", page], [[], []], cik=7, period_end=dt.date(2016, 12, 31),
                            filing_date=dt.date(2017, 2, 20), sp500_member=True)
    key = dataset_key("documents", "t")
    write_parquet(lake, key, read_parquet(lake, key).drop_columns(["revision"]))  # written before the column
    options = SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2")
    doc = read_parquet(lake, key).to_pylist()[0]
    assert chunks_fingerprint(doc, options.chunk, options.model) == \
        chunks_fingerprint({**doc, "revision": 0}, options.chunk, options.model)
    assert run_segment(lake, options).segmented == 1 and run_segment(lake, options).skipped == 1

    member = {7: [MemberPeriod("T", dt.date(2010, 1, 4), dt.date(2017, 6, 1))]}
    assert reflag(lake, converted_documents(lake), member) == []  # the flag holds: nothing rewritten
    corrected = {7: [MemberPeriod("T", dt.date(2010, 1, 4), dt.date(2016, 9, 19))]}  # it left before the year end
    assert reflag(lake, converted_documents(lake), corrected) == \
        ["T_2023_10K: sp500_member True -> False (membership corrected)"]
    row = read_parquet(lake, key).to_pylist()[0]
    assert row["sp500_member"] is False and row["revision"] == 1
    assert reflag(lake, converted_documents(lake), corrected) == []  # idempotent
    assert reflag(lake, converted_documents(lake), {8: corrected[7]}) == []  # a company it holds no periods of
    before = chunk_fingerprint(lake, "t")
    assert run_segment(lake, options).segmented == 1  # the corrected document goes on through the stages
    assert chunk_fingerprint(lake, "t") != before  # the same chunks, a new key: the index carries the flag
    assert run_segment(lake, options).skipped == 1 and chunk_fingerprint(lake, "t") != before


def test_a_new_segmenter_redoes_every_document_but_changes_the_later_stages_key_only_where_chunks_change(
        tmp_path, monkeypatch):
    """The later stages (embeddings, trees, lexicon) key on what a document's chunks hold: a segmenter version
    that re-segments everything and leaves a document's items and chunks as they were changes nothing
    downstream, a part written before content keys (its inputs' fingerprint only) included; a document whose
    chunks change gets a new key."""
    import etl.segment.stage as stage
    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel.layout import FINGERPRINT_KEY, chunk_fingerprint, chunk_inputs, dataset_key
    from kernel.storage import read_parquet, write_parquet

    page = "Item 7. Management's Discussion and Analysis\n" + "The year went well for the company and its customers. " * 6
    lake = _lake_with_pages(tmp_path, ["FORM 10-K\n", page], [[], []])
    options = SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2")
    assert run_segment(lake, options).segmented == 1
    key, inputs = chunk_fingerprint(lake, "t"), chunk_inputs(lake, "t")
    assert key != inputs  # the rows' digest, not the inputs'
    monkeypatch.setattr(stage, "SEGMENTER_VERSION", "next")
    assert run_segment(lake, options).segmented == 1 and chunk_inputs(lake, "t") != inputs
    assert chunk_fingerprint(lake, "t") == key  # the same rows: the later stages redo nothing
    legacy = read_parquet(lake, dataset_key("chunks", "t")).replace_schema_metadata({FINGERPRINT_KEY: b"old"})
    write_parquet(lake, dataset_key("chunks", "t"), legacy)  # written before content keys
    assert chunk_fingerprint(lake, "t") == "old"
    monkeypatch.setattr(stage, "SEGMENTER_VERSION", "after")
    assert run_segment(lake, options).segmented == 1 and chunk_fingerprint(lake, "t") == "old"
    monkeypatch.setattr(stage, "SEGMENTER_VERSION", "smaller")
    smaller = SegmentOptions(token_counter(None), ChunkOptions(tokens=20, overlap=2, min_tokens=2), "all-MiniLM-L6-v2")
    assert run_segment(lake, smaller).segmented == 1 and chunk_fingerprint(lake, "t") not in ("old", key)
