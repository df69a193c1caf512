"""The index stage: ``run(lake, IndexOptions) -> IndexReport`` runs the Spark jobs that have work.

Embeddings for new or changed documents (``embed_job``), their Item trees (``tree_job``), the FLAM
statistics (``lexicon_job``), the iXBRL facts, concepts and time series (``facts_job``), the corpus's own
training questions for the learned page ranker (``ranker_job``). Whether there is work is read from the
change ledger (``indexing.ledger``) without Spark, so a night with nothing new never starts a JVM.
"""

from __future__ import annotations

import time

from indexing import embed_job, facts_job, lexicon_job, ranker_job, tree_job
from indexing.index.options import IndexOptions
from indexing.index.report import IndexReport
from indexing.ledger import Plan
from kernel.layout import chunk_fingerprints
from kernel.storage import Lake

# The jobs in the order they run: trees read the passages the embeddings wrote.
JOBS = (("embeddings", embed_job.run_embeddings), ("trees", tree_job.run_trees), ("lexicon", lexicon_job.run_lexicon),
        ("facts", facts_job.run_facts), ("ranker_pairs", ranker_job.run_ranker_pairs))


def plans(lake: Lake, options: IndexOptions) -> dict[str, Plan]:
    """Each job's plan, made once from the ledger (footers read once): the trees are planned against what
    the embeddings' record holds once this run's embeddings commit (new embeddings always get their trees)."""
    chunks = chunk_fingerprints(lake)  # every job keys on the documents' chunks: their footers read once
    embeddings = embed_job.plan(lake, options.embedding, chunks)
    return {"embeddings": embeddings, "trees": tree_job.plan(lake, embeddings.after),
            "lexicon": lexicon_job.plan(lake, chunks), "facts": facts_job.plan(lake, chunks),
            "ranker_pairs": ranker_job.plan(lake, chunks)}


def run(lake: Lake, options: IndexOptions) -> IndexReport:
    """Every job with work, in order, each handed the plan made here; a job commits its record at its end
    (the Spark session is shared once started)."""
    work = plans(lake, options)
    report = IndexReport(jobs=[job for job, plan in work.items() if plan.has_work])
    if not report.jobs:
        return report
    for job, run_job in JOBS:
        start = time.perf_counter()
        setattr(report, job, run_job(lake, options, work=work[job]))
        report.seconds[job] = round(time.perf_counter() - start, 1)
    report.problems = [p for job, _ in JOBS for p in getattr(report, job).problems]
    return report
