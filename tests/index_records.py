"""Small, schema-valid index records of the project's own for backend and publish tests.

Texts are short filing-like sentences; vectors are deterministic unit vectors derived from each id (the
backends' behaviour, not the embedding model, is under test here). ``write_index_lake`` lays the records
out exactly as the Spark jobs do (``index/<dataset>/doc_part=<part>/part-*.parquet``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from kernel.layout import INDEX_DATASETS
from schemas.base import arrow_schema, to_table
from schemas.facts import ConceptRecord, FactIndexRecord
from schemas.index import DocumentIndexRecord, LexiconRecord, PassageRecord, TreeNodeRecord

DIMS = 16

DOCS = {
    "KO_2023_10K": ("The Coca-Cola Company", "KO", 120),
    "PEP_2023_10K": ("PepsiCo, Inc.", "PEP", 110),
}
TEXTS = {
    "1": "Business: the company manufactures and sells beverage concentrates and syrups worldwide.",
    "1A": "Risk factors: changes in consumer preferences could adversely affect our business.",
    "7": "Net operating revenues grew 6% driven by pricing; operating income increased.",
    "8": "Consolidated statements of income: net revenues, cost of goods sold, gross profit.",
    "3": "Legal proceedings: the company is party to litigation related to aqueous film.",
}


def vector(key: str, dims: int = DIMS) -> list[float]:
    rng = np.random.default_rng(int(hashlib.sha256(key.encode()).hexdigest()[:8], 16))
    v = rng.normal(size=dims)
    return (v / np.linalg.norm(v)).astype(np.float32).tolist()


def part_of(doc_id: str) -> str:
    return "p" + hashlib.sha256(doc_id.encode()).hexdigest()[:10]


def documents(tag: str = "v1") -> list[dict]:
    return [DocumentIndexRecord(
        doc_id=doc_id, source_name=tag, company=company, ticker=ticker, form="10-K", fiscal_year=2023,
        fiscal_period="FY", period_end=dt.date(2023, 12, 31), accession=None, cik=None, filing_date=None,
        page_count=pages, cover_summary=f"{company} ({ticker}) annual report 10-K for fiscal 2023.",
        vector=vector(doc_id), model="test-model").model_dump() for doc_id, (company, ticker, pages) in DOCS.items()]


def passages(tag: str = "v1", per_item: int = 2) -> list[dict]:
    rows = []
    for doc_id, (company, ticker, pages) in DOCS.items():
        seq = 0
        for item, text in TEXTS.items():
            for i in range(per_item):
                chunk_id = f"{doc_id}:{item}:{seq:04d}"
                page = min(pages - 1, 10 + seq)
                rows.append(PassageRecord(
                    chunk_id=chunk_id, doc_id=doc_id, source_name=tag, company=company, ticker=ticker,
                    form="10-K", fiscal_year=2023, fiscal_period="FY", period_end=dt.date(2023, 12, 31),
                    item=item, item_title=f"Item {item}", kind="text", seq=seq,
                    text=f"{company} {text} (part {i}, {tag})", page_start=page, page_end=page, char_start=0,
                    char_end=len(text), token_count=20, vector=vector(chunk_id), model="test-model").model_dump())
                seq += 1
    return rows


def tree_nodes(passage_rows: list[dict]) -> list[dict]:
    rows = []
    for doc_id, (company, ticker, _) in DOCS.items():
        for item in TEXTS:
            leaves = [p["chunk_id"] for p in passage_rows if p["doc_id"] == doc_id and p["item"] == item]
            for tree in ("summary", "question"):
                node_id = f"{doc_id}:{item}:root:{tree}"
                rows.append(TreeNodeRecord(
                    node_id=node_id, tree=tree, doc_id=doc_id, company=company, ticker=ticker, form="10-K",
                    fiscal_year=2023, item=item, item_title=f"Item {item}", level=0, parent_id=None,
                    children=leaves, chunk_ids=leaves, text=f"{tree} of Item {item} for {company}",
                    vector=vector(node_id), model="test-model").model_dump())
    return rows


def lexicon() -> list[dict]:
    return [LexiconRecord(term=t, category="test", source="curated", cluster=c, total_count=n, doc_count=2,
                          item_weights={"10-K:1A": w, "10-K:7": 1 - w}).model_dump()
            for t, c, n, w in [("net revenues", 0, 12, 0.1), ("risk factors", 1, 8, 0.9)]]


FACTS = [("us-gaap:GrossProfit", "gross profit", 27_234.0, 60), ("us-gaap:Revenues", "revenues", 45_754.0, 60),
         ("us-gaap:EarningsPerShareDiluted", "earnings per share diluted", 2.47, 61)]


def facts() -> list[dict]:
    rows = []
    for doc_id, (company, ticker, _) in DOCS.items():
        for seq, (concept, words, value, page) in enumerate(FACTS):
            rows.append(FactIndexRecord(
                fact_id=f"{doc_id}#{seq}", doc_id=doc_id, ticker=ticker, company=company, form="10-K",
                filing_date=dt.date(2024, 2, 20), concept=concept, label=f"{words} {words}", kind="numeric",
                value=value * 1e6, display=f"{value:,}", unit="USD", decimals="-6", scale=6, period_type="duration",
                period_start=dt.date(2023, 1, 1), period_end=dt.date(2023, 12, 31), fiscal_year=2023,
                fiscal_period="FY", dimensions=[], dimensional=False, page=page, end_page=page, item="8",
                row_label=words.title(), column_header="2023").model_dump())
    return rows


def fact(doc_id: str, seq: int, concept: str, row_label: str, dims: list[str], display: str, page: int, *,
         ticker: str, company: str, year: int, label: str) -> dict:
    """One numeric fact of a fiscal year, as the facts job indexes it (``label``: the words it is searched by)."""
    return FactIndexRecord(
        fact_id=f"{doc_id}#{seq}", doc_id=doc_id, ticker=ticker, company=company, form="10-K",
        filing_date=dt.date(year + 1, 1, 30), concept=concept, label=label, kind="numeric", value=1.0,
        display=display, unit="USD", decimals="-6", scale=6, period_type="duration",
        period_start=dt.date(year, 1, 1), period_end=dt.date(year, 12, 31), fiscal_year=year, fiscal_period="FY",
        dimensions=dims, dimensional=bool(dims), page=page, end_page=page, item="8", row_label=row_label,
        column_header=str(year)).model_dump()


def facts_backend(root: Path, rows: list[dict]):
    """(the embedded engine, targets) with one facts index version holding ``rows``: what the query side's
    fact pins search."""
    from kernel.search.embedded import EmbeddedBackend
    from schemas.index import INDEXES

    backend = EmbeddedBackend(root / "search", prefix="t")
    spec = INDEXES["facts"]
    version = backend.create_version(spec, None, {"model": "test-model"})
    backend.load(version, spec, to_table(spec.model, rows).to_batches())
    return backend, {"facts": version}


ACME_10K = "ACME_2024_10K"  # the literal filer the part tests' facts belong to


def acme_fact(seq: int, concept: str, row_label: str, dims: list[str], display: str, page: int) -> dict:
    """A fact of Acme's 2024 10-K, searched by its concept's local name and its row label."""
    return fact(ACME_10K, seq, concept, row_label, dims, display, page, ticker="ACME", company="Acme Corp",
                year=2024, label=f"{concept.split(':')[1]} {row_label.lower()}")


def acme_facts_backend(root: Path, rows: list[tuple]):
    """:func:`facts_backend` over Acme's facts, each row (concept, row label, dimensions, display, page)."""
    return facts_backend(root, [acme_fact(seq, *row) for seq, row in enumerate(rows)])


def concepts() -> list[dict]:
    return [ConceptRecord(concept=c, label=f"{w} {w}", words=w, row_labels=[w], kind="numeric",
                          fact_count=len(DOCS), doc_count=len(DOCS)).model_dump() for c, w, _, _ in FACTS]


def records(tag: str = "v1") -> dict[str, list[dict]]:
    p = passages(tag)
    return {"documents": documents(tag), "passages": p, "tree_nodes": tree_nodes(p), "lexicon": lexicon(),
            "facts": facts(), "concepts": concepts()}


def write_index_lake(lake: Path, data: dict[str, list[dict]]) -> None:
    """Write records the way the Spark jobs do, replacing what a dataset held before."""
    import shutil

    from schemas.index import INDEXES

    for name, rows in data.items():
        spec = INDEXES[name]
        table = to_table(spec.model, rows) if rows and not isinstance(rows, pa.Table) else rows
        target = lake / INDEX_DATASETS[spec.name]
        if spec.doc_field is None:
            target.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, target)
            continue
        shutil.rmtree(target, ignore_errors=True)
        for doc_id in sorted(set(table.column(spec.doc_field).to_pylist())):
            part = target / f"doc_part={part_of(doc_id)}"
            part.mkdir(parents=True)
            mask = pc.equal(table.column(spec.doc_field), doc_id)
            pq.write_table(table.filter(mask), part / f"part-{uuid.uuid4().hex}.parquet")


def validate_table(model, table: pa.Table) -> pa.Table:
    """The table with the dataset schema's columns, types and null constraints (an AssertionError names the
    first column that breaks them)."""
    expected = arrow_schema(model)
    assert not (missing := [f.name for f in expected if f.name not in table.column_names]), missing
    table = table.select(expected.names)
    for field in expected:
        col = table.column(field.name)
        assert field.nullable or not col.null_count, f"{field.name}: null values in a required column"
    return table.cast(expected)
