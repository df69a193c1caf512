"""The HTTP API (FastAPI): ``POST /search``, ``POST /facts`` and ``GET /health``, the OpenAPI 3.1 schema at
``/openapi.json``, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, both served from the ``fastapi-offline``
package's assets (Swagger UI 5, which reads OpenAPI 3.1; no CDN: they work offline).

``secplat serve`` binds 127.0.0.1 by default. With ``API_KEYS`` set, ``/search`` wants one of them as
``X-API-Key`` or ``Authorization: Bearer`` (401 otherwise; compared in constant time, never logged); serving
beyond 127.0.0.1 without keys is refused (``check_exposure``). ``/health``, ``/docs`` and the OpenAPI schema
stay open: they carry no filing data. The retriever (backend, catalog, model) is built once per
process; requests only read the published indexes. A request that does not validate gets 422 with the field
and the reason, never its own input echoed back (a 10 MB body, or text that is not valid Unicode).
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import replace

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles

from kernel.models import ModelMismatch
from kernel.search import BackendError
from kernel.search.base import FilterError, NotPublished
from kernel.settings import ConfigError
from query.api import MODES, RetrievalOptions, SearchRequest, SearchResponse
from query.facts import Fact, FactsError, FactsRequest
from query.retrieve import Retriever

DOCS_ASSETS = "/static/docs"


def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    """422 naming each field and reason, without the offending input (which may be huge or not encodable)."""
    return JSONResponse(status_code=422, content={"detail": [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in exc.errors()]})


def _mount_docs(app: FastAPI) -> None:
    from importlib.resources import files

    from fastapi.openapi.docs import get_redoc_html

    assets = files("fastapi_offline") / "static"  # the package's data, not a private name of its code
    app.mount(DOCS_ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - docs",
                                   swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} - reference",
                              redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png", with_google_fonts=False)


def check_exposure(host: str, api_keys: list[str]) -> None:
    """Access control may be off only on the loopback interface (ConfigError otherwise)."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not api_keys:
        raise ConfigError(f"serving on {host} needs API_KEYS (access control is off only on 127.0.0.1)")


def _access(api_keys: list[str]):
    """A dependency admitting a request with one of the keys (none configured: everyone)."""
    header = APIKeyHeader(name="X-API-Key", auto_error=False)
    bearer = HTTPBearer(auto_error=False)
    keys = [k.encode() for k in api_keys]

    def check(key: str | None = Depends(header), token: HTTPAuthorizationCredentials | None = Depends(bearer)):
        if not keys:
            return
        given = (key or (token.credentials if token else "") or "").encode()
        if not any(hmac.compare_digest(given, k) for k in keys):  # every key compared: no timing hint
            raise HTTPException(401, "missing or invalid API key (X-API-Key or Authorization: Bearer)",
                                headers={"WWW-Authenticate": "Bearer"})

    return check


def create_app(retriever: Retriever, api_keys: list[str] | None = None) -> FastAPI:
    app = FastAPI(title="SEC filings search", version="1", docs_url=None, redoc_url=None,
                  description="Hierarchical retrieval with evidence curation over published SEC filing indexes.")
    app.add_exception_handler(RequestValidationError, _validation_error)
    _mount_docs(app)

    @app.get("/health")
    def health() -> JSONResponse:
        """The release served now; 503 while nothing is published (a load balancer keeps traffic away)."""
        snap = retriever.snapshot()
        body = {"status": "ok" if snap.id else "unpublished", "backend": retriever.backend.kind,
                "release": snap.id, "created": snap.release.created if snap.release else None,
                "indexes": {name: target for name, target in sorted(snap.targets.items())},
                "documents": len(snap.catalog.docs),
                "page_ranker": "learned" if snap.id and snap.ranker() is not None else "rules"}
        return JSONResponse(status_code=200 if snap.id else 503, content=body)

    @app.post("/search", response_model=SearchResponse, dependencies=[Depends(_access(api_keys or []))])
    def search(req: SearchRequest) -> SearchResponse:
        if req.mode not in MODES:
            raise HTTPException(422, f"mode must be one of {', '.join(MODES)}")
        opts: RetrievalOptions = replace(retriever.options, mode=req.mode)
        try:
            result = retriever.search(req.question, req.k, req.filters, opts)
        except NotPublished as exc:
            raise HTTPException(503, str(exc)) from exc
        except FilterError as exc:
            raise HTTPException(422, str(exc)) from exc
        except BackendError as exc:
            raise HTTPException(400, str(exc)) from exc
        except ModelMismatch as exc:  # the server's configuration, not the request: say so, do not guess
            raise HTTPException(503, str(exc)) from exc
        return SearchResponse(question=result.question, release=result.release, page_order=result.page_order,
                              unindexed_companies=result.unindexed, missing_periods=result.missing_periods,
                              ambiguous_names=result.ambiguous_names, period_taken=result.period_taken,
                              inferred_companies=result.inferred_companies,
                              evidence=result.evidence,
                              explain=result.explain() if req.explain else None)

    @app.post("/facts", response_model=list[Fact], dependencies=[Depends(_access(api_keys or []))])
    def facts(req: FactsRequest) -> list[Fact]:
        try:
            return retriever.facts(req)
        except FactsError as exc:
            raise HTTPException(404, str(exc)) from exc
        except BackendError as exc:
            raise HTTPException(400, str(exc)) from exc

    return app


def app_from_environment() -> FastAPI:
    """The app with a retriever from the environment's settings: the factory each uvicorn worker process
    calls (``secplat serve --workers N``), so every worker holds its own model, catalog and engine."""
    from kernel.resources import Resources
    from kernel.settings import load_settings

    settings = load_settings()
    retriever = Retriever(Resources(settings))
    retriever.warm()
    return create_app(retriever, settings.api_key_list())

