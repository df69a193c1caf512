"""8-K exhibits end to end on the mirror's 8-Ks (the default EXHIBIT_TYPES=EX-99*): crawled byte-identical
(see test_crawl_mirror), then each EX-99 with text converted into a document of its own, linked to its filing;
the release that is only page images is quarantined as such."""

from __future__ import annotations

import datetime as dt

import pytest

from kernel.filing_records import read_records
from kernel.layout import dataset_key, exhibit_part, filing_part, part_name
from kernel.storage import LocalLake, read_parquet

pytestmark = [pytest.mark.shared, pytest.mark.slow]


@pytest.fixture(scope="module")
def exhibit_lake(converted_mirror, mirror_exhibits):
    """The session's mirror lake (crawled with the default EXHIBIT_TYPES=EX-99*, converted)."""
    lake, report = converted_mirror
    return lake, report, mirror_exhibits


def _docs(lake) -> dict[str, dict]:
    docs = [read_parquet(lake, k).to_pylist()[0] for k in lake.list("datasets/documents")]
    return {d["doc_id"]: d for d in docs}


def _rows(lake, dataset: str, doc_id: str) -> list[dict]:
    return [r for k in lake.list(f"datasets/{dataset}") for r in read_parquet(lake, k).to_pylist()
            if r["doc_id"] == doc_id]


def test_every_ex99_with_text_becomes_a_document_linked_to_its_filing(exhibit_lake):
    lake, report, rows = exhibit_lake
    docs = _docs(lake)
    exhibits = {(d["accession"], d["exhibit_document"]): d for d in docs.values() if d["exhibit_type"]}
    ex99 = {(r["accession"], r["document"]) for r in rows if r["type"].startswith("EX-99")}
    images_only = ("0000019617-26-000241", "jpmcpressrelease06252026.htm")  # JPM: a shell around two images
    legacy = {r.accession: r for r in read_records(lake) if r.exhibit_source and r.exhibit_source.startswith("full sub")
              and r.primary_document.endswith("-d1.txt")}
    split = {(a, e.name) for a, r in legacy.items() for e in r.exhibits if e.status == "ok"}
    assert set(exhibits) == (ex99 - {images_only}) | split
    reasons = [lake.read_bytes(k).decode() for k in lake.list("quarantine/convert")]
    images = [r for r in reasons if "no text layer (images only)" in r]
    assert len(images) == 1 and images_only[0] in images[0]
    others = [r for r in reasons if r not in images and any(a in r for a, _ in ex99)]
    assert not others  # no other exhibit quarantined
    covers = {d["accession"]: d for d in docs.values() if not d["exhibit_type"]}
    for (accession, _), d in exhibits.items():
        cover = covers[accession]
        assert (d["ticker"], d["filing_date"], d["filing_items"]) == (cover["ticker"], cover["filing_date"],
                                                                       cover["filing_items"])
        assert d["page_count"] >= 1 and d["form"] in ("EARNINGS", "8-K")
        assert d["doc_id"] != cover["doc_id"]


def test_filings_from_before_2001_are_split_into_their_documents(exhibit_lake, mirror_legacy):
    """Their documents have no files on EDGAR: the full submission is split, the 8-K is the primary
    document and each EX-99 an exhibit; other exhibit types (EX-23.1, EX-20.1) are not chosen."""
    lake, _, _ = exhibit_lake
    legacy = {r["accession"]: r for r in mirror_legacy}
    records = {r.accession: r for r in read_records(lake) if r.accession in legacy}
    assert set(records) == set(legacy)
    chosen = {a: [(e.type, e.name) for e in r.exhibits if e.status == "ok"] for a, r in records.items()}
    assert chosen == {"0000320193-96-000027": [("EX-99", "0000320193-96-000027-d2.txt")],
                      "0000912057-00-002128": [("EX-99.1", "0000912057-00-002128-d2.txt")],
                      "0000891020-98-001352": [], "0000891618-95-000727": [],
                      "0000899243-95-000310": [("EX-99", "0000899243-95-000310-d2.txt")]}
    docs = _docs(lake)
    covers = [d for d in docs.values() if d["accession"] in legacy and not d["exhibit_type"]]
    assert len(covers) == 5 and all(d["form"] == "8-K" and d["page_count"] >= 1 for d in covers)
    assert all(r.primary_document == f"{a}-d1.txt" for a, r in records.items())


def test_earnings_releases_take_their_fiscal_period_from_their_own_words(exhibit_lake):
    lake, _, _ = exhibit_lake
    docs = _docs(lake)
    apple = docs["AAPL_2024Q1_EARNINGS"]  # "first quarter of fiscal 2024", filed 2024-02-01
    assert (apple["form"], apple["fiscal_year"], apple["fiscal_period"]) == ("EARNINGS", 2024, "Q1")
    assert apple["exhibit_type"] == "EX-99.1" and apple["filing_items"] == ["2.02", "9.01"]
    assert apple["filing_date"] == dt.date(2024, 2, 1) and "earnings release" in apple["cover_summary"]
    part = part_name(exhibit_part(apple["cik"], apple["accession"], apple["exhibit_document"]))
    pages = read_parquet(lake, dataset_key("pages", part))
    assert any("Services" in t for t in pages.column("text").to_pylist())
    press = [d for d in docs.values() if d["exhibit_type"] and d["form"] == "8-K"]
    assert press and all(d["doc_id"].startswith(f"{d['ticker']}_") and "_8K_EX99" in d["doc_id"] for d in press)
    text_exhibits = [d for d in docs.values() if (d["exhibit_document"] or "").endswith(".txt")]
    assert text_exhibits and all(d["page_count"] >= 1 for d in text_exhibits)  # SO's plain-text exhibits


def test_supplementary_exhibits_of_an_earnings_8k_carry_their_release_s_period(exhibit_lake):
    """An earnings 8-K's other EX-99s (financial highlights, segment analyses, statistics) report the
    release's period, not the filing date's year: every one of the mirror's, by its own words or its
    release's. (Southern's five tables of January 2007 are about 2006; Apple's data sheets name "Q3'04".)"""
    lake, _, _ = exhibit_lake
    docs = _docs(lake)
    releases = {d["accession"]: d for d in docs.values() if d["form"] == "EARNINGS"}
    supplements = [d for d in docs.values() if d["form"] == "8-K" and d["exhibit_type"] and d["accession"] in releases]
    assert len(supplements) >= 7  # SO (5), AAPL 2004 and 2011, CAT 2022
    for d in supplements:
        release = releases[d["accession"]]
        assert (d["fiscal_year"], d["fiscal_period"]) == (release["fiscal_year"], release["fiscal_period"]), \
            (d["doc_id"], release["doc_id"])
    southern = [d for d in supplements if d["ticker"] == "SO" and d["filing_date"] == dt.date(2007, 1, 25)]
    assert len(southern) == 5 and {(d["fiscal_year"], d["fiscal_period"]) for d in southern} == {(2006, "Q4")}


@pytest.fixture(scope="module")
def exhibit_index(exhibit_lake, mirror_legacy, universe_csv, tmp_path_factory):
    """The mirror's added 8-Ks (covers and exhibits, copied from the session's lake) segmented, indexed
    and published (releases have sections, not Items)."""
    import shutil

    from kernel.resources import Resources
    from kernel.settings import load_settings
    from shell.runner import run_stage

    lake, _, rows = exhibit_lake
    prefixes = tuple(part_name(filing_part(int(r["cik"]), r["accession"])) for r in rows + mirror_legacy)
    root = tmp_path_factory.mktemp("exhibits") / "lake"
    for ds in ("documents", "pages", "facts"):
        (root / "datasets" / ds).mkdir(parents=True)
        for f in (lake.path / "datasets" / ds).glob("*.parquet"):
            if f.name.startswith(prefixes):
                shutil.copy(f, root / "datasets" / ds / f.name)
    settings = load_settings(lake_root=str(root), spark_master="local[2]", embedding_backend="onnx-int8",
                             universe_csv=universe_csv)
    segmented = run_stage("segment", Resources(settings))
    assert segmented.quarantined == 0, segmented.problems
    run_stage("index", Resources(settings))
    report = run_stage("publish", Resources(settings))
    assert not report.blocked, report.summary()
    return settings


def test_releases_are_divided_by_their_own_headings(exhibit_index):
    lake = LocalLake(exhibit_index.lake_root)
    docs = _docs(lake)
    apple = docs["AAPL_2024Q1_EARNINGS"]
    part = part_name(exhibit_part(apple["cik"], apple["accession"], apple["exhibit_document"]))
    items = [i["item"] for i in read_parquet(lake, dataset_key("items", part)).to_pylist()]
    assert items == ["release:headline", "release:financial-tables"]
    chunks = read_parquet(lake, dataset_key("chunks", part)).to_pylist()
    assert {c["item"] for c in chunks} == set(items)


def test_a_question_about_an_earnings_release_finds_its_page_first(exhibit_index):
    from kernel.resources import Resources
    from query import Retriever

    retriever = Retriever(Resources(exhibit_index))
    result = retriever.search("What was Apple's services revenue in the first quarter of fiscal 2024?", k=5)
    top = result.evidence[0]
    assert top.doc_id == "AAPL_2024Q1_EARNINGS" and "Services" in top.text, [(e.doc_id, e.page) for e in
                                                                              result.evidence]
    assert top.document == "EX-99.1 (earnings release) of 8-K 0000320193-24-000005"
    only = retriever.search("Apple revenue", k=5, filters={"exhibit_type": "EX-99.2"})
    assert only.evidence and {e.exhibit_type for e in only.evidence} == {"EX-99.2"}
    docs = _docs(LocalLake(exhibit_index.lake_root))
    officers = {d for d, doc in docs.items() if "5.02" in doc["filing_items"]}  # officer changes
    named = retriever.search("new chief executive officer appointed", k=5, filters={"filing_item": "5.02"})
    assert named.evidence and {e.doc_id for e in named.evidence} <= officers
    assert retriever.search("revenue", k=5, filters={"filing_item": "1.01"}).evidence == []  # none reports it


def test_a_short_8k_answers_with_its_item_before_its_cover_and_signatures(exhibit_index):
    """JPMorgan Chase's 8-K of June 2026 and Apple's of November 2019, asked what they reported: their covers
    and signature pages print the date and the name asked, yet the Item reporting the event comes first."""
    from kernel.resources import Resources
    from query import Retriever

    retriever = Retriever(Resources(exhibit_index))
    for question, doc_id, item in [
            ("What executive change did JPMorgan Chase report in June 2026?", "JPM_2026-06-24_8K", "5.02"),
            ("What did Apple report in its Form 8-K dated November 7, 2019?", "AAPL_2019-11-07_8K", "8.01")]:
        result = retriever.search(question, k=5)
        top = result.evidence[0]
        assert (top.doc_id, top.item) == (doc_id, item), [(e.doc_id, e.page, e.item) for e in result.evidence]


def _ibm_filing_with_an_annual_report(edgar_mirror, root):
    """A filing directory in the mirror's layout, built from real parts: IBM's 2023 10-K (0000051143-24-000012,
    whose Items 3, 7, 7A and 8 point into its Annual Report to Stockholders) as filed, and as its EX-13 the
    body of IBM's real 2023 second-quarter 10-Q (the mirror holds no annual report to stockholders); its
    index page (Apple's real 2011 8-K index page, its rows replaced) lists both, as EDGAR's does."""
    import gzip
    import json
    import re
    import shutil

    src = edgar_mirror / "www.sec.gov" / "Archives" / "edgar" / "data"
    folder = root / "www.sec.gov" / "Archives" / "edgar" / "data" / "51143" / "000005114324000012"
    folder.mkdir(parents=True)
    shutil.copy(src / "51143" / "000005114324000012" / "ibm-20231231.htm.gz", folder)
    annual = gzip.decompress((src / "51143" / "000005114323000021" / "ibm-20230630.htm.gz").read_bytes())
    (folder / "ibm-ex13.htm.gz").write_bytes(gzip.compress(annual, mtime=0))
    primary = gzip.decompress((folder / "ibm-20231231.htm.gz").read_bytes())
    rows = [("1", "10-K", "ibm-20231231.htm", "10-K", len(primary)),
            ("2", "ANNUAL REPORT TO STOCKHOLDERS", "ibm-ex13.htm", "EX-13", len(annual))]
    page = gzip.decompress((src / "320193" / "000119312511009392" / "0001193125-11-009392-index.html.gz")
                           .read_bytes()).decode()
    cells = "".join(f'<tr><td scope="row">{s}</td><td scope="row">{d}</td><td scope="row"><a href="{n}">{n}</a>'
                    f'</td><td scope="row">{t}</td><td scope="row">{z}</td></tr>' for s, d, n, t, z in rows)
    page = re.sub(r'(<table class="tableFile" summary="Document Format Files">\s*<tr>.*?</tr>).*?(</table>)',
                  lambda m: m.group(1) + cells + m.group(2), page, count=1, flags=re.S)
    (folder / "0000051143-24-000012-index.html.gz").write_bytes(gzip.compress(page.encode(), mtime=0))
    (folder / "index.json").write_text(json.dumps({"directory": {"item": [
        {"name": n, "type": "text.gif", "size": str(z)} for _, _, n, _, z in rows],
        "name": "/Archives/edgar/data/51143/000005114324000012"}}))
    for rel in ("www.sec.gov/files/company_tickers.json", "data.sec.gov/submissions/CIK0000051143.json"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(edgar_mirror / rel, root / rel)


def test_a_10k_s_annual_report_exhibit_is_crawled_by_default_and_becomes_its_document(edgar_mirror, universe_csv,
                                                                                   tmp_path, monkeypatch, capsys):
    from shell.cli import main

    _ibm_filing_with_an_annual_report(edgar_mirror, tmp_path / "mirror")
    lake = tmp_path / "lake"
    for name, value in {"UNIVERSE_CSV": universe_csv, "EDGAR_MIRROR": str(tmp_path / "mirror"),
                        "LAKE_ROOT": str(lake)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("EXHIBIT_TYPES", raising=False)  # the default
    assert main(["crawl", "--tickers", "IBM", "--forms", "10-K", "--from", "2024-02-01", "--to", "2024-03-31"]) == 0
    record = next(r for r in read_records(LocalLake(lake)) if r.accession == "0000051143-24-000012")
    assert [(e.type, e.status) for e in record.exhibits] == [("EX-13", "ok")]
    assert main(["convert"]) == 0, capsys.readouterr().err
    docs = _docs(LocalLake(lake))
    ten_k, annual = docs["IBM_2023_10K"], docs["IBM_2023_10K_EX13"]
    assert ten_k["absent_items"] == []  # the annual report it points into is held
    assert (annual["form"], annual["fiscal_year"], annual["fiscal_period"]) == ("10-K", 2023, "FY")
    assert annual["accession"] == ten_k["accession"] and annual["exhibit_type"] == "EX-13"
    assert "annual report to stockholders" in annual["cover_summary"]
    assert main(["segment"]) == 0, capsys.readouterr().err
    items = {r["item"]: (r["page_start"], r["page_end"]) for r in _rows(LocalLake(lake), "items", "IBM_2023_10K_EX13")}
    assert {"cover", "7", "8"} <= set(items), items  # the 10-K's Items, by the sections' titles
