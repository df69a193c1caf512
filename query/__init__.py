"""The query side: hierarchical retrieval with evidence curation over the published indexes.

Importable without Airflow or Spark. ``Retriever(resources)`` keeps the backend, catalog and model loaded
between questions; the process's composition root (``shell``) builds the resources: ``shell.client`` has
one-call conveniences (``search(question)``, ``facts(...)``), the CLI and the HTTP app keep a ``Retriever``.
"""

from __future__ import annotations

from query.api import MODES, Evidence, RetrievalOptions, SearchResult
from query.facts import Fact, FactsError, FactsRequest
from query.retrieve import Retriever

__all__ = ["MODES", "Evidence", "Fact", "FactsError", "FactsRequest", "RetrievalOptions", "Retriever", "SearchResult"]
