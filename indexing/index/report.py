"""What an index run did: per job, its report and wall time."""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.embed_job import EmbedReport
from indexing.facts_job import FactsReport
from indexing.lexicon_job import LexiconReport
from indexing.ranker_job import RankerPairsReport
from indexing.tree_job import TreeReport
from kernel.reports import StageReport


@dataclass
class IndexReport(StageReport):
    stage = "index"
    embeddings: EmbedReport = field(default_factory=EmbedReport)
    trees: TreeReport = field(default_factory=TreeReport)
    lexicon: LexiconReport = field(default_factory=LexiconReport)
    facts: FactsReport = field(default_factory=FactsReport)
    ranker_pairs: RankerPairsReport = field(default_factory=RankerPairsReport)
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
                f"{self.facts.summary()}; {self.ranker_pairs.summary()} ({took})")
