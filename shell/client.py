"""One-call conveniences for notebooks and scripts: each opens the lake, engine and model for that call
(a process asking many questions keeps the ``open_retriever()`` it gets instead)."""

from __future__ import annotations

from query import Evidence, Fact, FactsRequest, Retriever


def open_retriever(settings=None) -> Retriever:
    """A retriever on the settings' lake and engine (the environment's when not given), kept by a caller
    that asks many questions."""
    from kernel.resources import Resources
    from kernel.settings import load_settings

    return Retriever(Resources(settings or load_settings()))


def run(stage: str, settings=None, **options):
    """One stage (``crawl``, ``convert``, ``segment``, ``index``, ``publish``) on the settings' lake: its report."""
    from kernel.resources import Resources
    from kernel.settings import load_settings
    from shell.runner import run_stage

    return run_stage(stage, Resources(settings or load_settings()), **options)


def search(question: str, k: int = 5, filters: dict | None = None, settings=None) -> list[Evidence]:
    """Evidence for a question: doc_id, company, ticker, form, period, item, 0-based page, chunk_id, text,
    score and a short reason per item, best first."""
    return open_retriever(settings).search(question, k, filters).evidence


def facts(concept: str, ticker: str | None = None, fiscal_year: int | None = None, fiscal_period: str | None = None,
          settings=None, **more) -> list[Fact]:
    """Reported figures: ``facts("gross profit", "KO", 2023)`` -> value, unit, period, document and page."""
    request = FactsRequest(concept=concept, ticker=ticker, fiscal_year=fiscal_year, fiscal_period=fiscal_period,
                           **more)
    return open_retriever(settings).facts(request)
