"""The index stage: ``run(lake, IndexOptions) -> IndexReport`` runs the Spark jobs that have work.

Where things are: ``options`` (IndexOptions), ``report`` (IndexReport), ``stage`` (the run, each job's plan);
the jobs beside this package (``indexing.embed_job``, ``tree_job``, ``lexicon_job``, ``facts_job``,
``ranker_job``), their change ledger (``indexing.ledger``) and Spark (``indexing.spark``).
"""

from indexing.index.options import IndexOptions
from indexing.index.report import IndexReport
from indexing.index.stage import run

__all__ = ["IndexOptions", "IndexReport", "run"]
