"""PDFs that arrive as PDFs: FinanceBench's documents keep their page numbers and their names."""

from __future__ import annotations

import json
import re

import pytest

from etl.convert import ConvertOptions
from etl.convert import run as run_convert
from kernel.layout import part_name
from kernel.storage import LocalLake, read_parquet

pytestmark = pytest.mark.shared


def _norm(text: str) -> str:
    """Lower-case letters and digits only: PDF text extraction differs in spacing and line breaks."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


@pytest.fixture(scope="module")
def financebench_lake(financebench, tmp_path_factory):
    lake = LocalLake(tmp_path_factory.mktemp("fb") / "lake")
    report = run_convert(lake, ConvertOptions(workers=2, pdf_dirs=(financebench / "pdfs",)))
    return lake, report


def test_every_pdf_ingests_under_its_source_name(financebench, financebench_lake):
    lake, report = financebench_lake
    names = sorted(p.stem for p in (financebench / "pdfs").glob("*.pdf"))
    assert report.quarantined == 0 and report.converted == len(names), report.problems
    for name in names[:5]:
        doc = read_parquet(lake, f"datasets/documents/{part_name('external/' + name)}.parquet").to_pylist()[0]
        assert doc["doc_id"] == doc["source_name"] == name and doc["page_basis"] == "pdf"
    again = run_convert(lake, ConvertOptions(pdf_dirs=(financebench / "pdfs",)))
    assert again.converted == 0 and again.skipped == len(names)


def test_evidence_text_sits_on_its_gold_page(financebench, financebench_lake):
    """Rule: a question counts when every evidence text (letters and digits, lower-cased) is a substring of
    the page text we extracted for its 0-based ``evidence_page_num``. Target: at least 90% of questions."""
    lake, _ = financebench_lake
    questions = [json.loads(line) for line in (financebench / "questions_dev.jsonl").read_text().splitlines()]
    pages: dict[str, list[str]] = {}
    found, missed = 0, []
    for q in questions:
        ok = True
        for ev in q["evidence"]:
            name = ev["doc_name"]
            if name not in pages:
                table = read_parquet(lake, f"datasets/pages/{part_name('external/' + name)}.parquet")
                pages[name] = [t for _, t in sorted(zip(table.column("page").to_pylist(),
                                                        table.column("text").to_pylist(), strict=True))]
            page = ev["evidence_page_num"]
            text = pages[name][page] if page < len(pages[name]) else ""
            if _norm(ev["evidence_text"]) not in _norm(text):
                ok = False
                missed.append((q["financebench_id"], name, page))
        found += ok
    share = found / len(questions)
    print(f"evidence on its gold page: {found}/{len(questions)} = {share:.3f}")
    assert share >= 0.90, missed
