"""Spark job: embeddings for chunks (passages) and cover summaries (documents).

Reads ``datasets/chunks``/``datasets/documents`` parts of the documents that are new or changed, joins
each chunk with its document's metadata, embeds ``<ticker> <form> <period> Item <n>: <chunk text>`` in
``mapInPandas`` (the model is loaded once per Python worker), and writes ``index/passages`` and
``index/documents`` partitioned by document, overwriting only the partitions it recomputed. What was
embedded with which inputs is kept in the change ledger (``indexing.ledger``), so a nightly run embeds only new or
changed documents and a rerun embeds nothing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexing.ledger import Ledger, Plan
from indexing.spark import read_parts, spark_session, write_partitions
from kernel.layout import (
    INDEX_DATASETS,
    chunk_fingerprints,
    dataset_key,
    fingerprint,
)
from kernel.models import EmbeddingSpec
from kernel.reports import StageReport
from kernel.storage import Lake, read_parquet_footer
from schemas.base import spark_schema
from schemas.chunks import ChunkRecord
from schemas.documents import DocumentRecord
from schemas.index import DocumentIndexRecord, DocumentMeta, PassageRecord

if TYPE_CHECKING:  # the index stage's package imports the jobs
    from indexing.index.options import IndexOptions

log = logging.getLogger(__name__)

JOB = "embed"


@dataclass
class EmbedReport(StageReport):
    stage = "embeddings"
    documents: int = 0
    passages: int = 0
    skipped: int = 0

    def summary(self) -> str:
        return f"{self.documents} documents embedded ({self.passages} passages), {self.skipped} unchanged"


def plan(lake: Lake, embedding: EmbeddingSpec, chunks: dict[str, str | None] | None = None) -> Plan:
    """Documents whose chunks or model changed since last embedded (a document gone keeps its record);
    ``chunks``: the documents' chunk fingerprints when the caller read them already."""
    chunks = chunk_fingerprints(lake) if chunks is None else chunks
    now = {part: fingerprint(fp, embedding.model, embedding.recipe) for part, fp in chunks.items() if fp is not None}
    return Ledger(lake).plan(JOB, now)


def embed_batches(embedding: EmbeddingSpec, threads: int | None, text_col: str, drop: list[str]):
    """The mapInPandas function: embeds ``text_col`` of every batch into a ``vector`` column."""
    def run(batches: Iterator) -> Iterator:
        from kernel.embedder import worker_embedder

        embedder = worker_embedder(embedding, threads)  # loaded once per (reused) Python worker
        for df in batches:
            vectors = embedder.embed(df[text_col].tolist())
            out = df.drop(columns=drop)
            out["vector"] = list(vectors)
            out["model"] = embedding.model
            yield out
    return run


def embedding_prefix_sql() -> str:
    """The short context put before a chunk: ``KO 10-K FY 2023 Item 8:`` (about 10 tokens)."""
    return ("concat_ws(' ', coalesce(d.ticker, d.source_name, d.doc_id), d.form, d.fiscal_period, "
            "cast(d.fiscal_year as string), concat('Item ', c.item), ':')")


def passage_inputs(spark, lake: Lake, parts: list[str], docs=None):
    """Chunks joined to their document's metadata, plus ``embed_text``: exactly what the model embeds."""
    chunks = read_parts(spark, lake, "chunks", parts, ChunkRecord)
    docs = docs if docs is not None else read_parts(spark, lake, "documents", parts, DocumentRecord)
    chunks.createOrReplaceTempView("c")
    docs.createOrReplaceTempView("d")
    passage_cols = [f for f in PassageRecord.model_fields if f not in ("vector", "model")]
    doc_side = set(DocumentMeta.model_fields) - {"doc_id"}
    select = ", ".join(f"d.{f}" if f in doc_side else f"c.{f}" for f in passage_cols)
    return spark.sql(f"SELECT {select}, c.doc_part, {embedding_prefix_sql()} || ' ' || c.text AS embed_text "
                     "FROM c JOIN d ON c.doc_id = d.doc_id")


def run_embeddings(lake: Lake, options: IndexOptions, spark=None, work: Plan | None = None) -> EmbedReport:
    """Embeds the documents of ``work`` (the plan ``jobs.run`` made; made here when not given)."""
    work = work or plan(lake, options.embedding)
    todo = work.changed
    report = EmbedReport(skipped=len(work.done) - sum(p in work.done for p in todo))
    if not todo:
        return report
    spark = spark or spark_session(options)
    from pyspark.sql import functions as F

    parallel = spark.sparkContext.defaultParallelism
    threads = max(1, (os.cpu_count() or 1) // max(1, parallel))
    parts = sorted(todo)
    docs = read_parts(spark, lake, "documents", parts, DocumentRecord)
    passages_in = passage_inputs(spark, lake, parts, docs)
    # A multiple of the task slots, so no slot idles at the end of the stage (about 20 documents a slot).
    n_parts = parallel * max(1, len(parts) // (20 * parallel))
    passage_schema = spark_schema(PassageRecord).add("doc_part", "string")
    passages = passages_in.repartition(n_parts, "chunk_id").mapInPandas(  # balanced across workers
        embed_batches(options.embedding, threads, "embed_text", ["embed_text"]), schema=passage_schema)
    write_partitions(passages, lake, INDEX_DATASETS["passages"], "doc_part")
    doc_cols = [f for f in DocumentIndexRecord.model_fields if f not in ("vector", "model")]
    doc_schema = spark_schema(DocumentIndexRecord).add("doc_part", "string")
    documents = docs.select(*doc_cols, "doc_part", F.col("cover_summary").alias("embed_text")).mapInPandas(
        embed_batches(options.embedding, threads, "embed_text", ["embed_text"]), schema=doc_schema)
    write_partitions(documents, lake, INDEX_DATASETS["documents"], "doc_part")
    report.documents = len(parts)
    report.passages = sum(read_parquet_footer(lake, dataset_key("chunks", p)).num_rows for p in parts)
    Ledger(lake).commit(work, work.after)
    return report
