"""Conversion of the real mirrored filings: one EDGAR page is one PDF page, known content on known pages."""

from __future__ import annotations

import pytest

from kernel.layout import dataset_key, part_name
from kernel.storage import read_parquet

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def converted(converted_mirror):
    """(lake, report, accession -> the filing's primary document); exhibits: test_exhibits_mirror."""
    lake, report = converted_mirror
    docs = {}
    for key in lake.list("datasets/documents"):
        row = read_parquet(lake, key).to_pylist()[0]
        if not row["exhibit_type"]:
            docs[row["accession"]] = row
    return lake, report, docs


def _pages(lake, doc, column="text"):
    key = f"{doc['cik']}/{doc['accession'].replace('-', '')}"
    table = read_parquet(lake, dataset_key("pages", part_name(key)))
    assert table.column("page").to_pylist() == list(range(table.num_rows))
    return table.column(column).to_pylist()


def test_every_mirrored_filing_converts_with_edgar_pages(converted, mirror_manifest, mirror_filings):
    lake, report, docs = converted
    assert report.quarantined == 1 and "no text layer (images only)" in report.problems[0], report.problems
    assert report.content_warnings == []  # the conservation check: no false alarm on 150 real documents
    assert len(docs) == len(mirror_filings)
    matches = sum(docs[r["accession"]]["page_count"] == int(r["page_breaks"]) + 1 for r in mirror_manifest)
    assert matches / len(mirror_manifest) >= 0.98, f"{matches} of {len(mirror_manifest)}"
    assert len({d["doc_id"] for d in docs.values()}) == len(docs)  # document ids are unique
    names = {r["accession"]: r["lofin_doc_name"] for r in mirror_manifest if r["lofin_doc_name"]}
    same = sum(docs[a]["doc_name"] == n for a, n in names.items())  # the alias is the LOFin name
    assert same == len(names), f"{same} of {len(names)}"
    assert all(d["doc_id"] == d["doc_name"] for d in docs.values())  # no two mirror filings share a name


def test_known_content_on_known_pages(converted, mirror_manifest):
    lake, _, docs = converted
    by_name = {r["lofin_doc_name"]: docs[r["accession"]] for r in mirror_manifest if r["lofin_doc_name"]}
    assert "27,234" in _pages(lake, by_name["KO_2023_10K"])[62]  # Coca-Cola 2023 gross profit
    assert "11.86" in _pages(lake, by_name["MA_2023_10K"])[67]  # Mastercard 2023 basic EPS
    # The income statement's rows keep their header: the figure can be read with its label and year.
    (income,) = [t for t in _pages(lake, by_name["KO_2023_10K"], "tables")[62] if "Gross Profit" in t]
    assert income.startswith("Year Ended December 31, | 2023 | 2022 | 2021\n")
    assert "\nGross Profit | 27,234 | 25,004 | 23,298\n" in income


def test_no_mojibake_in_real_filings(converted):
    lake, _, docs = converted
    text = "".join("".join(_pages(lake, d)[:3]) for d in docs.values())
    assert "\u2612" in text and "\u2019" in text and "\u2014" in text  # ☒ ’ —
    assert "â˜" not in text and "â€" not in text


def test_cover_metadata_matches_the_manifest(converted, mirror_manifest):
    _, _, docs = converted
    wrong = []
    for r in mirror_manifest:
        d = docs[r["accession"]]
        if r["lofin_doc_name"] and d["doc_id"] != r["lofin_doc_name"]:
            wrong.append((r["accession"], d["doc_id"], r["lofin_doc_name"]))
        got = (d["ticker"], d["cik"], d["form"], d["fiscal_year"], d["fiscal_period"], str(d["period_end"]))
        year = int(r["fiscal_year"]) if r["fiscal_year"] else d["fiscal_year"]  # the manifest leaves 8-K years blank
        want = (r["ticker"], int(r["cik"]), r["form"], year, r["fiscal_period"] or d["fiscal_period"], r["report_date"])
        if got != want:
            wrong.append((r["accession"], got, want))
    assert not wrong, wrong
