"""The HTTP API (FastAPI): ``POST /search`` and ``GET /health``, OpenAPI schema at ``/openapi.json``.

``secplat serve`` binds 127.0.0.1 by default. The retriever (backend, catalog, model) is built once per
process; requests only read the published indexes.
"""

from __future__ import annotations

import datetime as dt

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field

from indexing.backends import BackendError
from query.retrieve import MODES, Evidence, RetrievalOptions, Retriever


class SearchRequest(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    k: int = Field(5, ge=1, le=10)
    filters: dict[str, str | int | dt.date | list[str | int]] | None = Field(
        None, description="Exact-valued fields: ticker, form, fiscal_year, fiscal_period, doc_id, item, ...")
    mode: str = Field("hierarchical", description=f"one of {', '.join(MODES)}")
    explain: bool = False


class SearchResponse(BaseModel):
    question: str
    evidence: list[Evidence]
    explain: dict | None = None


def create_app(retriever: Retriever) -> FastAPI:
    app = FastAPI(title="SEC filings search", version="1",
                  description="Hierarchical retrieval with evidence curation over published SEC filing indexes.")

    @app.get("/health")
    def health() -> dict:
        alias = retriever.alias("passages")
        return {"status": "ok", "backend": retriever.backend.kind, "passages": retriever.backend.alias_target(alias)}

    @app.post("/search", response_model=SearchResponse)
    def search(req: SearchRequest) -> SearchResponse:
        if req.mode not in MODES:
            raise HTTPException(422, f"mode must be one of {', '.join(MODES)}")
        from dataclasses import replace

        opts: RetrievalOptions = replace(retriever.options, mode=req.mode)
        try:
            result = retriever.search(req.question, req.k, req.filters, opts)
        except BackendError as exc:
            raise HTTPException(400, str(exc)) from exc
        explain = {k: v for k, v in result.as_dict().items() if k not in ("evidence", "question")}
        return SearchResponse(question=result.question, evidence=result.evidence,
                              explain=explain if req.explain else None)

    return app
