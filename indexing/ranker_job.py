"""Spark job: the corpus's own training questions for the learned page ranker (``index/ranker_pairs``).

Per document, ``indexing.ranker_pairs.document_pairs`` over its pages (row labels of figures pages,
statement and note headings -> the page that prints them), partitioned by document and redone when the
document's chunks change or the question recipe does (the change ledger). The ranker itself is trained on
the query side against a published release (``query/ranker.py``): it needs the retriever's candidates.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain.statements import DRIVER_RULE, PAGE_RULE
from indexing.ledger import Ledger, Plan
from indexing.ranker_pairs import MAX_PAIRS, document_pairs
from indexing.spark import read_dataset, read_parts, spark_session, write_partitions
from kernel.layout import INDEX_DATASETS, PARTITION_COLUMN, chunk_fingerprints, fingerprint
from kernel.reports import StageReport
from kernel.storage import Lake
from schemas.base import spark_schema
from schemas.documents import DocumentRecord, PageRecord
from schemas.index import RankerPairRecord

if TYPE_CHECKING:  # the index stage's package imports the jobs
    from indexing.index.options import IndexOptions

log = logging.getLogger(__name__)

JOB = "ranker_pairs"
PAIRS = INDEX_DATASETS["ranker_pairs"]
RECIPE = f"ranker_pairs/4/{MAX_PAIRS}/{PAGE_RULE}/{DRIVER_RULE}"  # a new recipe (or rule) redoes every document's questions


@dataclass
class RankerPairsReport(StageReport):
    stage = "ranker_pairs"
    documents: int = 0
    pairs: int = 0

    def summary(self) -> str:
        return f"{self.pairs} training questions from {self.documents} documents"


def plan(lake: Lake, chunks: dict[str, str | None] | None = None) -> Plan:
    """Documents whose chunks (so pages) changed since their questions were made."""
    chunks = chunk_fingerprints(lake) if chunks is None else chunks
    now = {part: fingerprint(fp, RECIPE) for part, fp in chunks.items() if fp is not None}
    return Ledger(lake).plan(JOB, now)


def run_ranker_pairs(lake: Lake, options: IndexOptions, spark=None, work: Plan | None = None) -> RankerPairsReport:
    """Questions for the changed documents (``work``: the plan ``jobs.run`` made)."""
    work = work or plan(lake)
    todo = work.changed
    if not todo:
        return RankerPairsReport()
    spark = spark or spark_session(options)
    import pandas as pd
    from pyspark.sql import functions as F

    docs = read_parts(spark, lake, "documents", todo, DocumentRecord).select(
        "doc_id", "company", "ticker", "fiscal_year", "fiscal_period")
    pages = read_parts(spark, lake, "pages", todo, PageRecord).select("doc_id", "page", "text", "doc_part")
    schema = spark_schema(RankerPairRecord).add("doc_part", "string")
    columns = [f.name for f in schema.fields]

    def per_document(pdf: pd.DataFrame) -> pd.DataFrame:
        first = pdf.iloc[0]
        doc = {k: (None if pd.isna(first[k]) else first[k]) for k in ("doc_id", "company", "ticker",
                                                                       "fiscal_year", "fiscal_period")}
        doc["fiscal_year"] = int(doc["fiscal_year"]) if doc["fiscal_year"] is not None else None
        rows = document_pairs(doc, sorted(zip(pdf["page"].astype(int), pdf["text"], strict=True)))
        out = pd.DataFrame(rows, columns=[c for c in columns if c != "doc_part"])
        out["doc_part"] = first["doc_part"]
        return out[columns]

    pairs = pages.join(F.broadcast(docs), "doc_id").groupBy("doc_id").applyInPandas(per_document, schema)
    for part in todo:  # a document that asks nothing now keeps no questions from before (rerun if killed here)
        for key in list(lake.list(f"{PAIRS}/{PARTITION_COLUMN}={part}/")):
            lake.delete(key)
    write_partitions(pairs, lake, PAIRS, "doc_part")
    written = next(iter(lake.list(PAIRS + "/")), None) is not None  # a lake of pages without labels has none
    count = read_dataset(spark, lake, PAIRS, todo).count() if written else 0
    Ledger(lake).commit(work, work.after)
    return RankerPairsReport(documents=len(todo), pairs=count)
