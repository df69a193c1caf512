"""The index stage: ``run(lake, IndexOptions) -> IndexReport`` runs the Spark jobs that have work.

Embeddings for new or changed documents (``embed_job``), their Item trees (``tree_job``), the FLAM
statistics (``lexicon_job``), the iXBRL facts, concepts and time series (``facts_job``). Whether there is
work is read from the lake's state without Spark, so a night with nothing new never starts a JVM.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from indexing import embed_job, facts_job, lexicon_job, tree_job
from indexing.embed_job import EmbedReport
from indexing.facts_job import FactsReport
from indexing.lexicon_job import LexiconReport
from indexing.spark import IndexOptions
from indexing.tree_job import TreeReport
from kernel.reports import StageReport
from kernel.storage import Lake

# The jobs in the order they run: trees read the passages the embeddings wrote.
JOBS = (("embeddings", embed_job.run_embeddings), ("trees", tree_job.run_trees), ("lexicon", lexicon_job.run_lexicon),
        ("facts", facts_job.run_facts))


@dataclass
class IndexReport(StageReport):
    stage = "index"
    embeddings: EmbedReport = field(default_factory=EmbedReport)
    trees: TreeReport = field(default_factory=TreeReport)
    lexicon: LexiconReport = field(default_factory=LexiconReport)
    facts: FactsReport = field(default_factory=FactsReport)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per job
    jobs: list[str] = field(default_factory=list)  # the jobs that had work when the stage started

    @property
    def changed(self) -> bool:
        """Whether this run changed the index datasets (what a publish needs to hear about)."""
        return bool(self.jobs)

    @property
    def recorded(self) -> bool:
        return self.changed  # nothing to do: no run report

    def summary(self) -> str:
        if not self.jobs:
            return "index up to date: no new or changed documents"
        took = ", ".join(f"{job} {s:.0f}s" for job, s in self.seconds.items())
        return (f"{self.embeddings.summary()}; {self.trees.summary()}; {self.lexicon.summary()}; "
                f"{self.facts.summary()} ({took})")


def pending(lake: Lake, options: IndexOptions) -> list[str]:
    """Which index jobs have work (new or changed documents); read from the lake's state, without Spark."""
    jobs = []
    if embed_job.plan(lake, options.embedding)[0]:
        jobs += ["embeddings", "trees"]  # new embeddings always get their trees
    elif tree_job.plan(lake)[0]:
        jobs.append("trees")
    if lexicon_job.pending(lake):
        jobs.append("lexicon")
    if facts_job.pending(lake):
        jobs.append("facts")
    return jobs


def run(lake: Lake, options: IndexOptions) -> IndexReport:
    """Every job in order; a job with nothing to do returns before it starts Spark (the session is shared
    once started)."""
    report = IndexReport(jobs=pending(lake, options))
    if not report.jobs:
        return report
    for job, run_job in JOBS:
        start = time.perf_counter()
        setattr(report, job, run_job(lake, options))
        report.seconds[job] = round(time.perf_counter() - start, 1)
    report.problems = [p for job, _ in JOBS for p in getattr(report, job).problems]
    return report
