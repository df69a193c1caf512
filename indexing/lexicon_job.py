"""Spark job: the financial lexicon and its per-Item statistics (FinGEAR's FLAM).

Lexicon = the curated list (``domain/vocabulary/financial_lexicon.yaml``) plus terms mined from the filings' own
inline-XBRL concept names (``us-gaap:OperatingIncomeLoss`` -> "operating income"), kept when at least
two documents use the concept. Terms are matched on word n-grams (1-4) of the chunk text's words as
``domain.text.lower_words`` reads them, the function the query side reads a question with (``plain_term``).

Counts are stored per document and per *term batch* (``index/lexicon_counts``, partitioned by both): a
batch is the set of terms a run added to the lexicon. A nightly run counts every batch over the new or
changed documents, and a new batch over all documents, overwriting exactly those partitions; so the
totals after any sequence of incremental runs equal a full rebuild, and a crashed run is simply redone.

From the totals: per (form, item) relative frequency of each term (count per 10,000 tokens of that item
across the corpus, smoothed toward the term's overall rate) and weights w_i = freq_i / sum_j freq_j over
the items of the form, which the query side uses to split a retrieval budget across Items. Terms are
clustered by their embeddings.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain import vocabulary
from domain.rules import split_concept
from domain.text import lower_words, plain_term
from indexing.ledger import Ledger, Plan
from indexing.spark import (
    python_udf,
    read_dataset,
    read_parts,
    read_texts,
    spark_session,
    write_partitions,
)
from kernel.layout import INDEX_DATASETS, chunk_fingerprints, dataset_key
from kernel.models import EmbeddingSpec
from kernel.reports import StageReport
from kernel.storage import Lake, read_parquet, write_parquet
from schemas.base import to_table
from schemas.chunks import ChunkRecord
from schemas.documents import DocumentRecord
from schemas.index import LexiconRecord

if TYPE_CHECKING:  # the index stage's package imports the jobs
    from indexing.index.options import IndexOptions

log = logging.getLogger(__name__)

JOB = "lexicon"
COUNTS = INDEX_DATASETS["lexicon_counts"]
TOKENS = INDEX_DATASETS["item_tokens"]
CONCEPTS = INDEX_DATASETS["xbrl_concepts"]
MAX_NGRAM = 4
MIN_CONCEPT_DOCS = 2
WORDS = "lower_words/1"  # the words counts are made of (domain.text): other words in the record = recount
SMOOTHING_TOKENS = 100_000  # prior weight of the corpus rate, in tokens (about one mid-sized item)
_GENERIC_TAIL = re.compile(r"\s+(net|gross|abstract|member|axis|domain|table|line items|text block|policy|"
                           r"current|noncurrent|total|loss)$")


@dataclass
class LexiconReport(StageReport):
    stage = "lexicon"
    documents: int = 0
    new_terms: int = 0
    terms: int = 0

    def summary(self) -> str:
        return (f"{self.documents} documents counted, {self.new_terms} new terms, lexicon of {self.terms} terms")


def curated_terms() -> dict[str, str]:
    """term -> category, from the curated list (``domain/vocabulary/financial_lexicon.yaml``)."""
    return {plain_term(term): str(category) for category, terms in vocabulary.load("financial_lexicon").items()
            for term in terms}


def concept_term(concept: str) -> str | None:
    """``OperatingIncomeLoss`` -> "operating income"; None for names that make no useful term."""
    words = split_concept(concept).lower()
    for _ in range(3):
        words = _GENERIC_TAIL.sub("", words)
    words = plain_term(words)
    n = len(words.split())
    return words if 1 <= n <= MAX_NGRAM and len(words) >= 4 else None


def _batch_id(terms: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(terms)).encode()).hexdigest()[:12]


def plan(lake: Lake, chunks: dict[str, str | None] | None = None) -> Plan:
    """Documents whose chunks changed since counted (every document when counted with other words); work
    too when documents are gone or the curated list gained terms (the memo keeps the term batches)."""
    chunks = chunk_fingerprints(lake) if chunks is None else chunks
    # a document's counts depend on its chunks
    work = Ledger(lake).plan(JOB, {part: fp or "" for part, fp in chunks.items()})
    if work.memo.get("words") != WORDS and (work.memo.get("batches") or work.done):
        work.done, work.memo = {}, {"stale": True}  # counted with other words: everything anew
    work.memo.setdefault("batches", {})
    known = {t for terms in work.memo["batches"].values() for t in terms}
    work.forced = bool(work.removed) or bool(work.now) and not set(curated_terms()) <= known
    return work


def run_lexicon(lake: Lake, options: IndexOptions, spark=None, work: Plan | None = None) -> LexiconReport:
    """Counts for the changed documents and new terms, then the lexicon (``work``: the plan ``jobs.run`` made)."""
    work = work or plan(lake)
    changed, parts = work.changed, work.now
    report = LexiconReport(documents=len(changed))
    if not work.has_work:
        return report
    spark = spark or spark_session(options)
    from pyspark.sql import functions as F

    if work.memo.get("stale"):
        _forget_counts(lake)
    # 1. Concepts of the new or changed documents (a document's own iXBRL names, once per document).
    if changed:
        _mine_concepts(spark, lake, changed, report)
    concepts = (read_dataset(spark, lake, CONCEPTS)
                if next(iter(lake.list(CONCEPTS + "/")), None) is not None else None)  # PDF-only lakes have none
    # 2. The lexicon now: curated plus concept terms used by at least two documents.
    curated = curated_terms()
    lexicon: dict[str, tuple[str, str]] = {t: (c, "curated") for t, c in curated.items()}
    if concepts is not None:
        mined = (concepts.groupBy("term").agg(F.countDistinct("doc_part").alias("docs"))
                 .where(F.col("docs") >= MIN_CONCEPT_DOCS).select("term").collect())
        for row in mined:
            lexicon.setdefault(row.term, ("xbrl", "xbrl"))
    known = {t for terms in work.memo["batches"].values() for t in terms}
    new_terms = sorted(set(lexicon) - known)
    report.new_terms, report.terms = len(new_terms), len(lexicon)
    batches = dict(work.memo["batches"])
    if new_terms:
        batches[_batch_id(new_terms)] = new_terms
    # 3. Counts: every batch over changed documents, the new batch over the other documents.
    if changed:
        _count(spark, lake, changed, batches, write_tokens=True)
    others = sorted(set(parts) - set(changed))
    if new_terms and others:
        _count(spark, lake, others, {_batch_id(new_terms): new_terms}, write_tokens=False)
    # 4. Weights and clusters from all counts.
    if parts:
        _publish_lexicon(spark, lake, lexicon, options.embedding)
    Ledger(lake).commit(work, batches=batches, words=WORDS)
    return report


def _forget_counts(lake: Lake) -> None:
    """Counts and concept terms made with other words (an older normalizer): removed before the recount,
    since a batch's partitions from then would be summed with the new ones."""
    removed = 0
    for prefix in (COUNTS, TOKENS, CONCEPTS):
        for key in list(lake.list(prefix + "/")):
            lake.delete(key)
            removed += 1
    log.info("lexicon counted with other words: %d count files removed, every document counted again", removed)


def _mine_concepts(spark, lake: Lake, docs: list[str], report: LexiconReport) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    rows = []
    for p in docs:
        doc = read_parquet(lake, dataset_key("documents", p)).to_pylist()[0]
        if doc["source_kind"] != "html":
            continue
        if not lake.exists(doc["source_key"]):
            report.problems.append(f"{doc['doc_id']}: raw document {doc['source_key']} is gone; no concepts mined")
            continue
        rows.append((p, doc["source_key"]))
    if not rows:
        return
    names = (read_texts(spark, lake, rows)
             .select("doc_part", F.explode(F.regexp_extract_all("value", F.lit(r'name="us-gaap:([A-Za-z]+)"'), 1))
                     .alias("concept")).distinct())
    term = python_udf(concept_term, StringType())
    write_partitions(names.withColumn("term", term("concept")).where(F.col("term").isNotNull())
                     .select("doc_part", "concept", "term").distinct(), lake, CONCEPTS, "doc_part")


def _count(spark, lake: Lake, docs: list[str], batches: dict[str, list[str]], write_tokens: bool) -> None:
    """Term counts per (document, form, item) for the given batches, written per (doc_part, batch)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StringType

    forms = read_parts(spark, lake, "documents", docs, DocumentRecord).select(
        "doc_id", F.coalesce("form", F.lit("unknown")).alias("form"))
    chunks = read_parts(spark, lake, "chunks", docs, ChunkRecord).join(F.broadcast(forms), "doc_id")
    tokens = chunks.select(
        "doc_part", "doc_id", "form", "item",
        python_udf(lower_words, ArrayType(StringType()))("text").alias("tokens"))  # the query side's words
    if write_tokens:
        write_partitions(tokens.groupBy("doc_part", "doc_id", "form", "item")
                         .agg(F.sum(F.size("tokens")).alias("tokens")), lake, TOKENS, "doc_part")
    grams = F.flatten(F.array(*[
        F.expr(f"IF(size(tokens) >= {n}, transform(sequence(0, size(tokens) - {n}), "
               f"i -> array_join(slice(tokens, i + 1, {n}), ' ')), array())")
        for n in range(1, MAX_NGRAM + 1)]))
    ngrams = tokens.select("doc_part", "doc_id", "form", "item", F.explode(grams).alias("term"))
    terms = spark.createDataFrame([(t, b) for b, ts in batches.items() for t in ts], "term string, batch string")
    write_partitions(ngrams.join(F.broadcast(terms), "term")
                     .groupBy("doc_part", "batch", "doc_id", "form", "item", "term").count(),
                     lake, COUNTS, "doc_part", "batch")


def _publish_lexicon(spark, lake: Lake, lexicon: dict[str, tuple[str, str]], embedding: EmbeddingSpec) -> None:
    """index/lexicon.parquet: one row per term with its counts, per-Item weights and cluster."""
    from pyspark.sql import functions as F

    # The cover (contents, cover page) and unrecognized text are not Items: no weight goes to them.
    not_items = ["cover", "unknown"]
    counts = read_dataset(spark, lake, COUNTS).where(F.col("term").isin(list(lexicon)))
    tokens = (read_dataset(spark, lake, TOKENS).where(~F.col("item").isin(not_items))
              .groupBy("form", "item").agg(F.sum("tokens").alias("item_tokens")))
    per_item = (counts.where(~F.col("item").isin(not_items))
                .groupBy("form", "item", "term").agg(F.sum("count").alias("n"))
                .join(tokens, ["form", "item"]))
    # Smoothed relative frequency: (n_i + a*p) / (T_i + a) with p the term's rate over the form's items, so
    # a short item (1B, 1C, 3) needs real evidence, not one mention in 300 tokens, to outweigh a long one.
    rate = per_item.groupBy("form", "term").agg((F.sum("n") / F.sum("item_tokens")).alias("p"))
    per_item = per_item.join(rate, ["form", "term"]).withColumn(
        "freq", (F.col("n") + SMOOTHING_TOKENS * F.col("p")) * 1e4 / (F.col("item_tokens") + SMOOTHING_TOKENS))
    rows = per_item.collect()
    by_term: dict[str, dict] = {}
    for r in rows:
        t = by_term.setdefault(r.term, {"count": 0, "freq": {}})
        t["count"] += r.n
        t["freq"][f"{r.form}:{r.item}"] = r.freq
    doc_counts = {r.term: r.docs for r in counts.groupBy("term").agg(F.countDistinct("doc_id").alias("docs")).collect()}
    clusters = _clusters(sorted(lexicon), embedding)
    records = []
    for term in sorted(lexicon):
        category, source = lexicon[term]
        stats = by_term.get(term, {"count": 0, "freq": {}})
        weights: dict[str, float] = {}
        for form in sorted({k.split(":", 1)[0] for k in stats["freq"]}):
            freqs = {k: v for k, v in sorted(stats["freq"].items()) if k.startswith(form + ":")}
            total = sum(freqs.values())  # sorted: the same sum and key order whatever order Spark returns
            weights.update({k: round(v / total, 6) for k, v in freqs.items() if total > 0})
        records.append(LexiconRecord(term=term, category=category, source=source, cluster=clusters[term],
                                     total_count=stats["count"], doc_count=doc_counts.get(term, 0),
                                     item_weights=weights))
    write_parquet(lake, INDEX_DATASETS["lexicon"], to_table(LexiconRecord, records))


def _clusters(terms: list[str], embedding: EmbeddingSpec) -> dict[str, int]:
    """Deterministic term clusters: agglomerative clustering of the terms' embeddings (cosine, average)."""
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering

    from kernel.embedder import worker_embedder

    if len(terms) < 2:
        return {t: 0 for t in terms}
    vectors = worker_embedder(embedding).embed(terms, 64)
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                     distance_threshold=0.45).fit_predict(np.asarray(vectors))
    # Number clusters by their first term in sorted order, so ids do not depend on the algorithm's labels.
    first: dict[int, int] = {}
    out = {}
    for term, label in zip(terms, labels, strict=True):
        first.setdefault(int(label), len(first))
        out[term] = first[int(label)]
    return out
