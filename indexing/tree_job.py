"""Spark job: per (document, Item) summary and question trees, as in FinGEAR.

An Item's chunk vectors are reduced with PCA and clustered with a Gaussian mixture (diagonal covariances,
the number of components chosen by BIC, fixed seed): on 2 cores this is fast and deterministic, where
UMAP's numba compilation alone costs more than the clustering. Depth is at most 2: the Item (root), its
clusters, and the chunks as leaves. Both trees share that topology and their nodes point to the same
chunk_ids. Summary nodes hold extractive summaries (the opening sentences of the chunks nearest the
cluster centre); question nodes hold template questions built from the node's most frequent lexicon
terms. Node texts are embedded like passages. Output ``index/tree_nodes`` (``TreeNodeRecord``),
partitioned by document, recomputed for documents whose passages changed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain.text import lower_words
from indexing.embed_job import JOB as EMBED_JOB
from indexing.embed_job import embed_batches
from indexing.ledger import Ledger, Plan
from indexing.lexicon_job import curated_terms
from indexing.spark import read_dataset, spark_session, write_partitions
from kernel.layout import INDEX_DATASETS
from kernel.reports import StageReport
from kernel.storage import Lake
from schemas.base import spark_schema
from schemas.index import DocumentMeta, TreeNodeRecord

if TYPE_CHECKING:  # the index stage's package imports the jobs
    from indexing.index.options import IndexOptions

JOB = "trees"
SEED = 7
MAX_CLUSTERS = 8
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _sentences(text: str, n: int, limit: int = 300) -> str:
    """The first ``n`` whole sentences (a chunk that starts mid-sentence skips its leading fragment)."""
    parts = _SENTENCE_RE.split(re.sub(r"\s+", " ", text).strip())
    if len(parts) > 1 and parts[0][:1].islower():
        parts = parts[1:]
    return " ".join(s[:limit] for s in parts[:n])


def _top_terms(texts: list[str], terms: set[str], k: int = 3) -> list[str]:
    counts: Counter = Counter()
    for text in texts:
        tokens = lower_words(text)
        for n in (3, 2, 1):
            for i in range(len(tokens) - n + 1):
                gram = " ".join(tokens[i:i + n])
                if gram in terms:
                    counts[gram] += 1
    return [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def cluster(vectors, seed: int = SEED) -> list[int]:
    """Cluster labels for one Item's chunk vectors (PCA + diagonal GMM, k by BIC)."""
    import numpy as np
    from sklearn.decomposition import PCA
    from sklearn.mixture import GaussianMixture

    x = np.asarray(vectors, dtype=np.float64)
    n = len(x)
    if n < 6:
        return [0] * n
    reduced = PCA(n_components=min(8, n - 1), svd_solver="full", random_state=seed).fit_transform(x)
    best, best_bic = None, None
    for k in range(2, min(MAX_CLUSTERS, n // 3) + 1):
        gmm = GaussianMixture(k, covariance_type="diag", random_state=seed, n_init=1, reg_covar=1e-4).fit(reduced)
        bic = gmm.bic(reduced)
        if best_bic is None or bic < best_bic:
            best, best_bic = gmm, bic
    labels = best.predict(reduced)
    # Number clusters by their first chunk so the ids do not depend on the mixture's internal order.
    order: dict[int, int] = {}
    return [order.setdefault(int(label), len(order)) for label in labels]


def build_trees(rows) -> list[dict]:
    """Summary and question tree nodes for one (document, Item), from its passages (pandas rows)."""
    import numpy as np

    rows = rows.sort_values("seq")
    terms = set(curated_terms())
    texts = rows["text"].tolist()
    ids = rows["chunk_id"].tolist()
    vectors = np.stack(rows["vector"].to_numpy())
    labels = cluster(vectors)
    first = rows.iloc[0]
    meta = {k: first[k] for k in (*DocumentMeta.model_fields, "item", "item_title")}
    who = meta["company"] or meta["ticker"] or meta["doc_id"]
    period = f"fiscal {int(meta['fiscal_year'])}" if meta["fiscal_year"] == meta["fiscal_year"] and \
        meta["fiscal_year"] is not None else "the period"
    root_id = f"{meta['doc_id']}:{meta['item']}:root"
    nodes = []
    cluster_ids = []
    for c in sorted(set(labels)):
        members = [i for i, label in enumerate(labels) if label == c]
        centre = vectors[members].mean(axis=0)
        nearest = sorted(members, key=lambda i: -float(vectors[i] @ centre))[:2]
        summary = " ".join(_sentences(texts[i], 2) for i in sorted(nearest))
        top = _top_terms([texts[i] for i in members], terms)
        questions = [f"What does {who} report about {t} in {meta['item_title']} for {period}?" for t in top] or \
            [f"What does {who} disclose in this part of {meta['item_title']} for {period}?"]
        node = f"{meta['doc_id']}:{meta['item']}:c{c}"
        cluster_ids.append(node)
        for tree, text in (("summary", summary), ("question", " ".join(questions))):
            nodes.append({**meta, "node_id": f"{node}:{tree}", "tree": tree, "level": 1,
                          "parent_id": f"{root_id}:{tree}", "children": [ids[i] for i in members],
                          "chunk_ids": [ids[i] for i in members], "text": text})
    root_summary = f"{meta['item_title']} of {who}'s {meta['form']} ({period}): " + " ".join(
        _sentences(n["text"], 1) for n in nodes if n["tree"] == "summary")
    top = _top_terms(texts, terms, 4)
    root_questions = [f"What are the main points of {meta['item_title']} in {who}'s {meta['form']} for {period}?"] + \
        [f"How does {who} describe {t} in {meta['item_title']}?" for t in top]
    for tree, text in (("summary", root_summary), ("question", " ".join(root_questions))):
        nodes.append({**meta, "node_id": f"{root_id}:{tree}", "tree": tree, "level": 0, "parent_id": None,
                      "children": [f"{c}:{tree}" for c in cluster_ids], "chunk_ids": ids, "text": text})
    return nodes


@dataclass
class TreeReport(StageReport):
    stage = "trees"
    documents: int = 0
    nodes: int = 0

    def summary(self) -> str:
        return f"trees for {self.documents} documents ({self.nodes} nodes)"


def plan(lake: Lake, embedded: dict[str, str] | None = None) -> Plan:
    """Documents embedded since their tree was built: ``embedded`` is what the embeddings' record holds
    (read from the ledger; ``jobs.run`` passes what it will hold once this run's embeddings commit)."""
    ledger = Ledger(lake)
    return ledger.plan(JOB, ledger.record(EMBED_JOB)["docs"] if embedded is None else embedded)


def run_trees(lake: Lake, options: IndexOptions, spark=None, work: Plan | None = None) -> TreeReport:
    """Trees for documents whose passages changed since the last run (``work``: the plan ``jobs.run`` made)."""
    work = work or plan(lake)
    todo = work.changed
    if not todo:
        return TreeReport()
    spark = spark or spark_session(options)
    import pandas as pd
    from pyspark.sql import functions as F

    passages = read_dataset(spark, lake, INDEX_DATASETS["passages"], todo)
    node_fields = [f for f in TreeNodeRecord.model_fields if f not in ("vector", "model")]
    schema = spark_schema(TreeNodeRecord)
    node_schema = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in schema.fields if f.name in node_fields)

    def grouped(pdf: pd.DataFrame) -> pd.DataFrame:
        nodes = build_trees(pdf)
        out = pd.DataFrame(nodes)[node_fields]
        out["doc_part"] = pdf["doc_part"].iloc[0]
        return out

    nodes = (passages.where(F.col("kind") == "text")
             .groupBy("doc_id", "item").applyInPandas(grouped, f"{node_schema}, doc_part string"))
    embedded_nodes = nodes.mapInPandas(
        embed_batches(options.embedding, None, "text", []), schema=schema.add("doc_part", "string"))
    write_partitions(embedded_nodes, lake, INDEX_DATASETS["tree_nodes"], "doc_part")
    count = read_dataset(spark, lake, INDEX_DATASETS["tree_nodes"], todo).count()
    Ledger(lake).commit(work, work.after)
    return TreeReport(documents=len(todo), nodes=count)
