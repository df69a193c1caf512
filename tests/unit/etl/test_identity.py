"""Document identity: a doc_id per filing even when filings share a LOFin name, the name kept as an alias,
amendments linked to what they amend and preferred where they restate it."""

from __future__ import annotations

import datetime as dt

from etl.convert import ConvertOptions
from etl.convert import run as run_convert
from etl.convert.identity import Identity, amendment_links, assign_ids
from kernel.layout import dataset_key, dataset_parts, record_key
from kernel.run_policy import in_batch
from kernel.storage import LocalLake, read_parquet
from query.catalog import DocInfo
from query.scoring import ScoredDoc, prefer_restatements
from schemas.filings import FilingRecord

REPORT = ("<html><body><p>FORM {form}</p><p>For the fiscal year ended December 31, 2023</p>"
          "<p style='page-break-before:always'>Item 8. Financial Statements. Revenue {n}.</p></body></html>")
EVENT = ("<html><body><p>FORM 8-K</p><p>Date of Report: June 3, 2024</p>"
         "<p>Item 2.02 Results of Operations. Release {n}.</p></body></html>")


def add_filing(lake: LocalLake, n: int, form: str, filed: str, report: str) -> str:
    """A crawled filing of TEST (CIK 1) as the crawler records it; returns its accession."""
    acc = f"0000000001-24-{n:06d}"
    html = (EVENT if form.startswith("8-K") else REPORT).format(form=form, n=n).encode()
    key = f"raw/edgar/1/{acc.replace('-', '')}/doc{n}.htm"
    lake.write_bytes(key, html)
    rec = FilingRecord(accession=acc, cik=1, ticker="TEST", company="Test Co", form=form,
                       is_amendment=form.endswith("/A"), filing_date=dt.date.fromisoformat(filed),
                       report_date=dt.date.fromisoformat(report), primary_document=f"doc{n}.htm", primary_key=key,
                       bytes=len(html), sha256=f"sha{n}", fetched_at=dt.datetime.now(dt.UTC), status="ok")
    lake.write_bytes(record_key(1, acc), rec.model_dump_json().encode())
    return acc


def documents(lake: LocalLake) -> dict[str, dict]:
    """accession -> document row, with the doc_ids its pages part carries."""
    out = {}
    for part in dataset_parts(lake, "documents"):
        row = read_parquet(lake, dataset_key("documents", part)).to_pylist()[0]
        row["page_ids"] = set(read_parquet(lake, dataset_key("pages", part)).column("doc_id").to_pylist())
        out[row["accession"]] = row
    return out


def test_filings_sharing_a_name_get_their_own_ids_and_amendments_are_linked(tmp_path):
    lake = LocalLake(tmp_path / "lake")
    k1 = add_filing(lake, 1, "10-K", "2024-02-01", "2023-12-31")
    k2 = add_filing(lake, 2, "10-K", "2024-02-05", "2023-12-31")  # a second 10-K for the same fiscal year
    ka = add_filing(lake, 3, "10-K/A", "2024-04-01", "2023-12-31")
    e1 = add_filing(lake, 4, "8-K", "2024-06-03", "2024-06-03")
    e2 = add_filing(lake, 5, "8-K", "2024-06-03", "2024-06-03")  # two 8-Ks the same day
    report = run_convert(lake, ConvertOptions(workers=2))
    assert report.converted == 5 and not report.problems
    docs = documents(lake)
    ids = {acc: d["doc_id"] for acc, d in docs.items()}
    assert len(set(ids.values())) == 5, ids
    assert ids[k1] == "TEST_2023_10K" and ids[k2] == f"TEST_2023_10K_{k2}"  # the earliest keeps the plain name
    assert ids[e1] == "TEST_2024-06-03_8K" and ids[e2] == f"TEST_2024-06-03_8K_{e2}"
    assert {acc: d["doc_name"] for acc, d in docs.items()} == {
        k1: "TEST_2023_10K", k2: "TEST_2023_10K", ka: "TEST_2023_10KA",
        e1: "TEST_2024-06-03_8K", e2: "TEST_2024-06-03_8K"}
    assert all(d["page_ids"] == {d["doc_id"]} for d in docs.values())  # pages renamed with their document
    assert docs[ka]["amends"] == ids[k2] and docs[k1]["amends"] is None  # the latest filed before it
    assert len(report.shared_names) == 2

    again = run_convert(lake, ConvertOptions())
    assert again.converted == 0 and {a: d["doc_id"] for a, d in documents(lake).items()} == ids

    e3 = add_filing(lake, 6, "8-K", "2024-06-03", "2024-06-03")  # a third one, in a later run
    run_convert(lake, ConvertOptions())
    later = {a: d["doc_id"] for a, d in documents(lake).items()}
    assert later == {**ids, e3: f"TEST_2024-06-03_8K_{e3}"}  # ids once given never change


def test_a_reconverted_filing_keeps_its_id_and_a_later_original_gets_linked():
    old = {"a": Identity("a", "X_2023_10K", "X_2023_10K", "acc-a", dt.date(2024, 2, 1)),
           "b": Identity("b", "X_2023_10K_acc-b", "X_2023_10K", "acc-b", dt.date(2024, 1, 1))}
    new = {"b": old["b"], "c": Identity("c", "X_2023_10K", "X_2023_10K", "acc-c", dt.date(2023, 1, 1))}
    # b was converted again (its source changed) and keeps its id; c, though filed earlier, never takes a's
    assert assign_ids(old, new) == {"b": "X_2023_10K_acc-b", "c": "X_2023_10K_acc-c"}
    amendment = Identity("d", "X_2023_10KA", "X_2023_10KA", "acc-d", dt.date(2024, 3, 1), True)
    assert amendment_links({"d": amendment}) == {"d": None}
    assert amendment_links({"d": amendment, "a": old["a"]}) == {"d": "X_2023_10K"}


def _doc(doc_id: str, pages: int, amends: str | None = None) -> DocInfo:
    return DocInfo(doc_id=doc_id, company="X", ticker="X", form="10-K", fiscal_year=2023, fiscal_period="FY", entity="x",
                   page_count=pages, amends=amends)


def test_the_query_side_prefers_an_amendment_that_restates():
    original, full, part3 = _doc("X_2023_10K", 100), _doc("X_2023_10KA", 98, "X_2023_10K"), \
        _doc("X_2023_10KA_2", 12, "X_2023_10K")
    ranked = prefer_restatements([ScoredDoc(original, 1.5, "fiscal 2023"), ScoredDoc(part3, 1.4, "text"),
                                  ScoredDoc(full, 1.2, "text")])
    assert [t.doc.doc_id for t in ranked] == ["X_2023_10KA", "X_2023_10K", "X_2023_10KA_2"]
    assert "restates X_2023_10K" in ranked[0].why


_KILLED_CONVERT = """
import sys
from etl.convert import ConvertOptions, run
from kernel.storage import LocalLake

run(LocalLake(sys.argv[1]), ConvertOptions(workers=1))
"""  # ``secplat convert`` in a process SECPLAT_KILL_AT kills


def test_ids_a_killed_run_left_unsettled_are_settled_by_the_next_run(tmp_path):
    """Two 8-Ks of one day are written under one name and told apart only at the run's end: a run SIGKILLed
    before that (every document written, facts and all) used to leave both under one id for good (the
    next run skips finished documents). The next run settles them as a clean run does; a document a later
    stage already used keeps its id."""
    import os
    import subprocess
    import sys

    from kernel import faults

    lake = LocalLake(tmp_path / "lake")
    e1 = add_filing(lake, 1, "8-K", "2024-06-03", "2024-06-03")
    e2 = add_filing(lake, 2, "8-K", "2024-06-03", "2024-06-03")
    killed = subprocess.run([sys.executable, "-c", _KILLED_CONVERT, str(tmp_path / "lake")], capture_output=True,
                            text=True, env={**os.environ, faults.KILL_AT: "convert:documents written"})
    assert killed.returncode == -9, killed.stderr
    assert len({d["doc_id"] for d in documents(lake).values()}) == 1  # both under one id, both finished
    other = next(b for b in ((i, 2) for i in range(2)) if not in_batch(1, "TEST", b))
    assert run_convert(lake, ConvertOptions(batch=other)).shared_names == []  # another batch's task: not its own
    report = run_convert(lake, ConvertOptions())
    assert report.converted == 0 and len(report.shared_names) == 1
    docs = documents(lake)
    assert {a: d["doc_id"] for a, d in docs.items()} == {e1: "TEST_2024-06-03_8K", e2: f"TEST_2024-06-03_8K_{e2}"}
    assert all(d["page_ids"] == {d["doc_id"]} for d in docs.values())
    assert run_convert(lake, ConvertOptions()).shared_names == []  # settled: nothing left to do

    from etl.segment import SegmentOptions
    from etl.segment import run as run_segment
    from etl.segment.chunking import ChunkOptions
    from kernel.models import token_counter

    run_segment(lake, SegmentOptions(token_counter(None), ChunkOptions(), "all-MiniLM-L6-v2"))
    e0 = add_filing(lake, 0, "8-K", "2024-06-03", "2024-06-03")  # backfilled: it sorts before the others
    killed = subprocess.run([sys.executable, "-c", _KILLED_CONVERT, str(tmp_path / "lake")], capture_output=True,
                            text=True, env={**os.environ, faults.KILL_AT: "convert:documents written"})
    assert killed.returncode == -9, killed.stderr
    run_convert(lake, ConvertOptions())
    assert {a: d["doc_id"] for a, d in documents(lake).items()} == {  # segment used e1's id: it stays e1's
        e1: "TEST_2024-06-03_8K", e2: f"TEST_2024-06-03_8K_{e2}", e0: f"TEST_2024-06-03_8K_{e0}"}
