"""The HTTP API (FastAPI): ``POST /search`` and ``GET /health``, OpenAPI schema at ``/openapi.json``.

``secplat serve`` binds 127.0.0.1 by default. The retriever (backend, catalog, model) is built once per
process; requests only read the published indexes.
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import FastAPI, HTTPException

from kernel.models import ModelMismatch
from kernel.search import BackendError
from query.api import MODES, RetrievalOptions, SearchRequest, SearchResponse
from query.retrieve import Retriever


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
        opts: RetrievalOptions = replace(retriever.options, mode=req.mode)
        try:
            result = retriever.search(req.question, req.k, req.filters, opts)
        except BackendError as exc:
            raise HTTPException(400, str(exc)) from exc
        except ModelMismatch as exc:  # the server's configuration, not the request: say so, do not guess
            raise HTTPException(503, str(exc)) from exc
        return SearchResponse(question=result.question, evidence=result.evidence,
                              explain=result.explain() if req.explain else None)

    return app
