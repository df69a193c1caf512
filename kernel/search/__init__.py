"""Search backends behind one interface: the embedded engine (default) and the Elasticsearch family
(OpenSearch, Elasticsearch).

:func:`open_backend` picks OpenSearch when ``OPENSEARCH_URL`` is configured, Elasticsearch when
``ELASTICSEARCH_URL`` is, else the embedded engine under ``SEARCH_PATH``. Nothing here imports Spark or Airflow: the query side uses it directly.
"""

from __future__ import annotations

from kernel.search.base import (
    BackendError,
    Filters,
    Hit,
    SearchBackend,
    SearchReader,
    VersionInfo,
    fuse_minmax,
    fuse_rrf,
    serve_version,
)

__all__ = ["BackendError", "Filters", "Hit", "SearchBackend", "SearchReader", "VersionInfo", "fuse_minmax",
           "fuse_rrf", "open_backend", "serve_version"]


def open_backend(settings) -> SearchBackend:
    if settings.opensearch_url or settings.elasticsearch_url:
        from kernel.search.elastic import ElasticBackend

        return ElasticBackend.from_settings(settings)
    from kernel.search.embedded import EmbeddedBackend

    return EmbeddedBackend.from_settings(settings)
