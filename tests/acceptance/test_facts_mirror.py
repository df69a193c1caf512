"""iXBRL facts over the whole shared mirror: every iXBRL filing has facts, every numeric value equals its
displayed text under its scale and sign, every fact has a page within its document and its display is printed
on that page, and known figures sit on their known pages."""

from __future__ import annotations

import gzip
import re
from decimal import Decimal

import pytest

from kernel.layout import dataset_key, dataset_parts
from kernel.storage import read_parquet

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def lake_facts(converted_mirror):
    """doc_id -> (document row, its facts, page texts)."""
    lake, _ = converted_mirror
    out = {}
    for part in dataset_parts(lake, "documents"):
        doc = read_parquet(lake, dataset_key("documents", part)).to_pylist()[0]
        facts = read_parquet(lake, dataset_key("facts", part)).to_pylist()
        pages = {p["page"]: p["text"] for p in read_parquet(lake, dataset_key("pages", part)).to_pylist()}
        out[doc["doc_id"]] = (doc, facts, pages)
    return out


def test_every_ixbrl_filing_has_facts(lake_facts, edgar_mirror, mirror_manifest):
    by_accession = {doc["accession"]: facts for doc, facts, _ in lake_facts.values() if not doc["exhibit_type"]}
    for row in mirror_manifest:
        with gzip.open(edgar_mirror / row["mirror_path"]) as fh:
            html = fh.read().lower()
        has_ixbrl = b"<ix:nonfraction" in html or b"<ix:nonnumeric" in html
        assert bool(by_accession[row["accession"]]) == has_ixbrl, row["accession"]
    assert sum(len(f) for _, f, _ in lake_facts.values()) > 150_000


def _displayed(display: str, fmt: str | None) -> Decimal | None:
    """The displayed number read independently of etl.convert.ixbrl: digits and the decimal point (dot-decimal
    formats), zero for fixed-zero; None for formats this check leaves to the unit tests (words)."""
    name = (fmt or "").rsplit(":", 1)[-1]
    if name == "fixed-zero":
        return Decimal(0)
    if name in ("", "num-dot-decimal", "numdotdecimal"):
        return Decimal(re.sub(r"[^0-9.]", "", display))
    return None


def test_every_numeric_value_equals_its_display_under_scale_and_sign(lake_facts):
    checked = 0
    for doc_id, (_, facts, _) in lake_facts.items():
        for f in facts:
            if f["kind"] != "numeric" or f["nil"]:
                continue
            assert f["problem"] is None and f["value"] is not None, (doc_id, f["concept"], f["problem"])
            shown = _displayed(f["display"], f["format"])
            if shown is None:
                continue
            expected = shown.scaleb(f["scale"]) * (-1 if f["negated"] else 1)
            assert f["value"] == pytest.approx(float(expected), rel=1e-12, abs=1e-12), (doc_id, f)
            checked += 1
    assert checked > 140_000


def test_every_fact_has_a_page_and_shown_figures_are_printed_there(lake_facts):
    for doc_id, (doc, facts, pages) in lake_facts.items():
        text = {p: re.sub(r"\s+", "", t) for p, t in pages.items()}
        for f in facts:
            assert 0 <= f["page"] <= f["end_page"] < doc["page_count"], (doc_id, f["concept"])
            if f["kind"] == "numeric" and not f["hidden"] and not f["nil"]:
                shown = re.sub(r"\s+", "", f["display"])
                assert any(shown in text[p] for p in range(f["page"], f["end_page"] + 1)), (doc_id, f)


def _one(lake_facts, doc_id: str, concept: str, year: int) -> dict:
    _, facts, _ = lake_facts[doc_id]
    found = [f for f in facts if f["concept"] == concept and f["fiscal_year"] == year and f["fiscal_period"] == "FY"
             and not f["dimensions"] and not f["hidden"]]
    assert found, f"{doc_id}: no {concept} FY{year}"
    return min(found, key=lambda f: f["page"])


def test_known_figures_on_known_pages(lake_facts):
    gp = _one(lake_facts, "KO_2023_10K", "us-gaap:GrossProfit", 2023)
    assert (gp["display"], gp["scale"], gp["value"], gp["unit"], gp["page"]) == ("27,234", 6, 27_234e6, "USD", 62)
    assert gp["row_label"] == "Gross Profit"
    # Mastercard's 2023 EPS: 11.86 basic, 11.83 diluted, both on the income statement (page 67)
    basic = _one(lake_facts, "MA_2023_10K", "us-gaap:EarningsPerShareBasic", 2023)
    diluted = _one(lake_facts, "MA_2023_10K", "us-gaap:EarningsPerShareDiluted", 2023)
    assert (basic["value"], basic["page"], basic["unit"]) == (11.86, 67, "USD/shares")
    assert (diluted["value"], diluted["page"]) == (11.83, 67)
