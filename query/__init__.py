"""The query side: hierarchical retrieval with evidence curation over the published indexes.

Importable without Airflow or Spark. ``search(question)`` is the one-call Python API; ``Retriever`` keeps
the backend, catalog and model loaded between questions.
"""

from __future__ import annotations

from query.api import MODES, Evidence, RetrievalOptions, SearchResult
from query.facts import Fact, FactsError, FactsRequest
from query.retrieve import Retriever

__all__ = ["MODES", "Evidence", "Fact", "FactsError", "FactsRequest", "RetrievalOptions", "Retriever", "SearchResult",
           "facts", "search"]

_default: Retriever | None = None


def search(question: str, k: int = 5, filters: dict | None = None, settings=None) -> list[Evidence]:
    """Evidence for a question: doc_id, company, ticker, form, period, item, 0-based page, chunk_id, text,
    score and a short reason per item, best first."""
    global _default
    if settings is not None:
        return Retriever(settings).search(question, k, filters).evidence
    if _default is None:
        from kernel.settings import load_settings

        _default = Retriever(load_settings())
    return _default.search(question, k, filters).evidence


def facts(concept: str, ticker: str | None = None, fiscal_year: int | None = None, fiscal_period: str | None = None,
          settings=None, **more) -> list[Fact]:
    """Reported figures: ``facts("gross profit", "KO", 2023)`` -> value, unit, period, document and page."""
    global _default
    request = FactsRequest(concept=concept, ticker=ticker, fiscal_year=fiscal_year, fiscal_period=fiscal_period,
                           **more)
    if settings is not None:
        return Retriever(settings).facts(request)
    if _default is None:
        from kernel.settings import load_settings

        _default = Retriever(load_settings())
    return _default.facts(request)
