"""Spark job: the published facts, the concepts that find them, and each company's time series.

* ``index/facts`` (partitioned by ``doc_part``): every iXBRL fact of a segmented document with its company,
  form, filing date, the Item of its page, its concept's words and its row label (``FactIndexRecord``).
  Incremental: a document is redone when its chunks' fingerprint (what segmentation made it from) changes.
* ``index/concepts.parquet`` (whole corpus): per concept its words, the row labels it is printed under (most
  frequent first) and how many facts and documents use it; what turns "gross profit" into a concept.
* ``index/fact_series.parquet`` (whole corpus): per company, concept and fiscal period (FY, Q1..Q4) the value
  of the latest filing reporting it, from consolidated (dimensionless) duration facts; a missing Q4 is
  derived as FY minus 9M (or minus Q1, Q2 and Q3) and marked ``derived``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain.rules import FILER_YEAR_RULE, FISCAL_YEAR_FOCUS, QUARTERS, concept_words, filer_year_shift
from indexing.ledger import Ledger, Plan
from indexing.spark import python_udf, read_dataset, read_parts, spark_session, write_partitions
from kernel.layout import (
    INDEX_DATASETS,
    chunk_fingerprints,
    dataset_key,
    dataset_parts,
    fingerprint,
)
from kernel.reports import StageReport
from kernel.storage import Lake, read_parquet_footer, write_parquet
from schemas.base import arrow_schema, to_table
from schemas.chunks import ItemRecord
from schemas.documents import DocumentRecord
from schemas.facts import ConceptRecord, FactIndexRecord, FactRecord, FactSeriesRecord

if TYPE_CHECKING:  # the index stage's package imports the jobs
    from indexing.index.options import IndexOptions

log = logging.getLogger(__name__)

JOB = "facts"
FACTS, CONCEPTS, SERIES = INDEX_DATASETS["facts"], INDEX_DATASETS["concepts"], INDEX_DATASETS["fact_series"]
ROW_LABELS = 8  # row labels kept per concept
SERIES_PERIODS = ("FY", *QUARTERS)
_SERIES_KEY = ["ticker", "concept", "unit", "fiscal_year"]


@dataclass
class FactsReport(StageReport):
    stage = "facts"
    documents: int = 0
    facts: int = 0
    concepts: int = 0
    series: int = 0
    derived: int = 0

    def summary(self) -> str:
        return (f"{self.facts} facts of {self.documents} documents indexed; {self.concepts} concepts; "
                f"{self.series} series values ({self.derived} Q4 derived)")


def plan(lake: Lake, chunks: dict[str, str | None] | None = None) -> Plan:
    """Documents with facts and chunks whose facts are not indexed as they are now; documents gone since
    the last run are work too (the corpus tables must be redone)."""
    chunks = chunk_fingerprints(lake) if chunks is None else chunks
    now = {}
    for part in dataset_parts(lake, "facts"):
        if chunks.get(part) is not None and read_parquet_footer(lake, dataset_key("facts", part)).num_rows:
            # segmented (its Items are known) and with facts (a PDF or pre-2019 filing has none)
            now[part] = fingerprint(chunks[part], json.dumps(sorted(FactIndexRecord.model_fields)),
                                    FILER_YEAR_RULE)
    work = Ledger(lake).plan(JOB, now)
    work.forced = bool(work.removed)
    return work


def run_facts(lake: Lake, options: IndexOptions, spark=None, work: Plan | None = None) -> FactsReport:
    """Facts of the changed documents, then the corpus tables (``work``: the plan ``jobs.run`` made)."""
    work = work or plan(lake)
    changed, parts = work.changed, work.now
    report = FactsReport(documents=len(changed))
    if not work.has_work:
        return report
    spark = spark or spark_session(options)
    if changed:
        report.facts = _index_facts(spark, lake, changed)
    if parts:  # every document in it has facts, so every partition read exists
        facts = read_dataset(spark, lake, FACTS, sorted(parts))
        report.concepts = _concepts(facts, lake)
        report.series, report.derived = _series(facts, lake)
    Ledger(lake).commit(work)
    return report


def _index_facts(spark, lake: Lake, docs: list[str]) -> int:
    """index/facts for these documents: facts joined with their document and the Item of their page."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    # A numeric fact whose display did not read stays in the dataset with its reason (and in the convert
    # report); it is not published: the index holds figures only.
    facts = _filer_years(read_parts(spark, lake, "facts", docs, FactRecord).where(
        (F.col("kind") != "numeric") | F.col("problem").isNull()))
    meta = read_parts(spark, lake, "documents", docs, DocumentRecord).select(
        "doc_id", "ticker", "company", "form", "filing_date")
    items = (read_parts(spark, lake, "items", docs, ItemRecord)
             .where(F.col("page_start").isNotNull() & (F.col("order") >= 0))
             .select("doc_id", "item", "order", F.col("page_start").alias("i_start"),
                     F.col("page_end").alias("i_end")))
    # The Item of a page: the latest-starting Item whose pages hold it (a page two Items share goes to the
    # one that starts on it, as a reader would file a figure printed under the new heading).
    placed = facts.join(items, (facts.doc_id == items.doc_id) & (facts.page >= items.i_start)
                        & (facts.page <= items.i_end), "left").drop(items.doc_id)
    best = Window.partitionBy("doc_part", "seq").orderBy(F.col("i_start").desc_nulls_last(),
                                                         F.col("order").desc_nulls_last())
    placed = placed.withColumn("_rank", F.row_number().over(best)).where("_rank = 1")
    words = python_udf(concept_words, StringType())
    out = (placed.join(F.broadcast(meta), "doc_id", "left")
           .withColumn("fact_id", F.concat_ws("#", "doc_id", F.col("seq").cast("string")))
           .withColumn("label", F.concat_ws(" ", words("concept"), F.lower(F.coalesce("row_label", F.lit("")))))
           .withColumn("dimensional", F.size("dimensions") > 0))
    columns = [*arrow_schema(FactIndexRecord).names, "doc_part"]
    write_partitions(out.select(*columns), lake, FACTS, "doc_part")
    return facts.count()


def _filer_years(facts):
    """Facts with their fiscal years as their filer numbers them: each document's shift
    (``filer_year_shift``) read from its own ``dei:DocumentFiscalYearFocus`` fact, so that Home Depot's
    facts of the year ending January 28, 2024 are fiscal 2023, as its 10-K and its document are."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType

    shift = python_udf(filer_year_shift, IntegerType())
    shifts = (facts.where(F.col("concept") == FISCAL_YEAR_FOCUS)
              .groupBy("doc_id").agg(F.max(shift("display", "fiscal_year")).alias("_shift")))
    return (facts.join(F.broadcast(shifts), "doc_id", "left")
            .withColumn("fiscal_year", F.col("fiscal_year") + F.coalesce("_shift", F.lit(0))).drop("_shift"))


def _concepts(facts, lake: Lake) -> int:
    """index/concepts.parquet from every indexed fact."""
    from pyspark.sql import functions as F

    labels = (facts.where(F.col("row_label").isNotNull())
              .groupBy("concept", F.lower(F.trim("row_label")).alias("row")).count().collect())
    by_concept: dict[str, list[tuple[int, str]]] = {}
    for r in labels:
        by_concept.setdefault(r.concept, []).append((-r["count"], r.row))
    stats = facts.groupBy("concept").agg(F.first("kind").alias("kind"), F.count("*").alias("facts"),
                                         F.countDistinct("doc_id").alias("docs")).collect()
    records = []
    for r in sorted(stats, key=lambda r: r.concept):
        rows = [row for _, row in sorted(by_concept.get(r.concept, []))[:ROW_LABELS]]
        words = concept_words(r.concept)
        records.append(ConceptRecord(concept=r.concept, label=" ".join([words, *rows]), words=words,
                                     row_labels=rows, kind=r.kind, fact_count=r.facts, doc_count=r.docs))
    write_parquet(lake, CONCEPTS, to_table(ConceptRecord, records))
    return len(records)


def series_rows(best: list[dict]) -> list[dict]:
    """The series from each (ticker, concept, unit, fiscal year, period)'s chosen fact (``best``: FY, Q1..Q4
    and 9M rows with value, period_start, period_end, doc_id, page): the reported periods, and a Q4 where
    none is reported, derived as FY minus the nine months (or minus Q1 + Q2 + Q3, all three needed, summed
    in value order so the float sum never depends on row order), starting the day after the nine months
    (or Q3) end, citing the FY filing. A key with an unknown part (a fact without unit) derives nothing."""
    by_key: dict[tuple, dict[str, dict]] = {}
    for r in best:
        by_key.setdefault(tuple(r[k] for k in _SERIES_KEY), {})[r["fiscal_period"]] = r
    out = [{**r, "derived": False} for r in best if r["fiscal_period"] in SERIES_PERIODS]
    for key, periods in by_key.items():
        fy = periods.get("FY")
        if fy is None or "Q4" in periods or any(part is None for part in key):
            continue
        nine = periods.get("9M")
        quarters = [periods[q] for q in QUARTERS[:3] if q in periods]
        q123 = q3_end = None
        if len(quarters) == 3:
            q123 = 0.0
            for v in sorted(q["value"] for q in quarters):
                q123 += v
            q3_end = max((q["period_end"] for q in quarters if q["period_end"] is not None), default=None)
        ytd, ytd_end = (nine["value"], nine["period_end"]) if nine else (None, None)
        if ytd is None and q123 is None:
            continue
        start = ytd_end if ytd_end is not None else q3_end
        out.append({**dict(zip(_SERIES_KEY, key, strict=True)), "fiscal_period": "Q4",
                    "value": fy["value"] - (ytd if ytd is not None else q123),
                    "period_start": start + dt.timedelta(days=1) if start is not None else None,
                    "period_end": fy["period_end"], "doc_id": fy["doc_id"], "page": fy["page"], "derived": True})
    return out


def _series(facts, lake: Lake) -> tuple[int, int]:
    """index/fact_series.parquet: reported FY and quarters from the latest filing, and derived Q4s."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    flows = facts.where((F.col("kind") == "numeric") & ~F.col("dimensional") & F.col("value").isNotNull()
                        & (F.col("period_type") == "duration") & F.col("ticker").isNotNull()
                        & F.col("fiscal_period").isin(*SERIES_PERIODS, "9M"))
    # A figure printed on several pages (a statement, the MD&A) ties on filing and document: the first page,
    # then the value, decide, so the pick never depends on how Spark partitioned the rows.
    latest = Window.partitionBy(*_SERIES_KEY, "fiscal_period").orderBy(
        F.col("filing_date").desc_nulls_last(), F.col("doc_id").desc(), F.col("page").asc(), F.col("value").asc())
    best = flows.withColumn("_rank", F.row_number().over(latest)).where("_rank = 1").select(
        *_SERIES_KEY, "fiscal_period", "value", "period_start", "period_end", "doc_id", "page")
    rows = series_rows([r.asDict() for r in best.collect()])
    records = [FactSeriesRecord(**r) for r in rows]
    records.sort(key=lambda r: (r.ticker, r.concept, r.fiscal_year, r.fiscal_period, r.unit or ""))
    write_parquet(lake, SERIES, to_table(FactSeriesRecord, records))
    return len(records), sum(r.derived for r in records)
