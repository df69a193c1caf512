"""What differs between the two Elasticsearch-family engines, named in one place: the client, how a request
is spelled to it, the vector field and the k-NN query, the map field type, server-side fusion, and the product
check (which engine, which majors, which plugin). Everything else (versions as aliases over yearly
partitions, releases as one ``_aliases`` request, bulk loads, upserts, the publish lock) is one code path in
:mod:`kernel.search.elastic`.

- **Elasticsearch** 8.x/9.x through the official 8.x client (keyword arguments; ``dense_vector`` with
  ``int8_hnsw``; a top-level ``knn`` section; the ``rrf`` retriever where licensed).
- **OpenSearch** 2.x/3.x through ``opensearch-py`` (request bodies; ``knn_vector`` with the Lucene HNSW engine
  and cosine similarity, so no native library is needed; the ``knn`` query with its ``filter``, which the
  Lucene engine applies while searching; ``flat_object`` for maps; fusion client-side, as the embedded engine
  fuses). Both engines score cosine k-NN as ``(1 + cos) / 2``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence

OPENSEARCH_MAJORS = (2, 3)
OPENSEARCH_MIN = (2, 4)  # the Lucene engine's filtered k-NN (efficient filtering) arrived in 2.4
ELASTICSEARCH_MAJORS = (8, 9)
KNN_ENGINE = "lucene"  # OpenSearch's Lucene HNSW: pure Java, no native library, filters while searching


def version_tuple(number: str) -> tuple[int, int]:
    """``"2.19.1"`` -> (2, 19); unreadable parts are 0."""
    parts = [int(p) if p.isdigit() else 0 for p in (number.split(".") + ["0", "0"])[:2]]
    return parts[0], parts[1]


def product_problem(info: dict, plugins: Iterable[str], product: str) -> str | None:
    """Why this code cannot publish to or read from the cluster that answered ``GET /`` with ``info`` and
    lists ``plugins`` (None: it can). Pure: tested on literal answers."""
    version = info.get("version") or {}
    distribution = version.get("distribution") or "elasticsearch"
    number = str(version.get("number") or "?")
    major, minor = version_tuple(number)
    if product == "opensearch":
        if distribution != "opensearch":
            return f"the cluster is {distribution} {number}, not OpenSearch: set ELASTICSEARCH_URL for it instead"
        if major not in OPENSEARCH_MAJORS or (major, minor) < OPENSEARCH_MIN:
            return (f"OpenSearch {number} is not a version this code speaks (2.4 or later 2.x, or 3.x: the "
                    f"k-NN query with filters)")
        if not any("knn" in p.lower() for p in plugins):
            return (f"OpenSearch {number} has no k-NN plugin (opensearch-knn): the passages' vectors need "
                    f"knn_vector; install the plugin (infra/opensearch starts nodes with it)")
        return None
    if distribution == "opensearch":
        return f"the cluster is OpenSearch {number}: set OPENSEARCH_URL for it instead of ELASTICSEARCH_URL"
    if major not in ELASTICSEARCH_MAJORS:
        return f"Elasticsearch {number} is not a version this code speaks (8.x or 9.x)"
    return None


class Dialect:
    """One engine's client and spelling. ``client`` is the engine's own Python client."""

    kind = "abstract"
    product = "?"
    server_rrf: bool | None = None  # None: try the server's rrf retriever once; False: never

    def __init__(self, client, url: str):
        self.client, self.url = client, url

    # -- errors
    def unreachable(self, exc: Exception) -> bool:
        raise NotImplementedError

    def conflict_error(self) -> type[Exception]:
        raise NotImplementedError

    def not_found_error(self) -> type[Exception]:
        raise NotImplementedError

    # -- shapes
    def mapping(self, mapping: dict, dims: int) -> dict:
        """The engine's mapping from the schema's Elasticsearch mapping (``schemas.base.es_mapping``)."""
        return mapping

    def index_settings(self, shards: int, replicas: int) -> dict:
        return {"number_of_shards": shards, "number_of_replicas": replicas, "refresh_interval": "-1"}

    def knn_body(self, vector: Sequence[float], k: int, filters: list[dict]) -> dict:
        raise NotImplementedError

    # -- requests (the names are the REST API's)
    def info(self) -> dict:
        return dict(self.client.info())

    def plugins(self) -> list[str]:
        return []

    def put_index_template(self, name: str, patterns: list[str], priority: int, template: dict, meta: dict) -> None:
        raise NotImplementedError

    def create_index(self, name: str, mappings: dict, settings: dict | None = None,
                     aliases: dict | None = None) -> None:
        raise NotImplementedError

    def get_alias(self, name: str) -> list[str] | None:
        raise NotImplementedError

    def exists(self, index: str) -> bool:
        return bool(self.client.indices.exists(index=index))

    def get_indices(self, expr: str) -> dict:
        raise NotImplementedError

    def update_aliases(self, actions: list[dict]) -> None:
        raise NotImplementedError

    def refresh(self, index: str) -> None:
        self.client.indices.refresh(index=index)

    def reindex(self, source: str, dest: str, timeout: float) -> None:
        raise NotImplementedError

    def delete_indices(self, names: str) -> None:
        self.client.indices.delete(index=names)

    def count(self, index: str) -> int:
        return int(self.client.count(index=index)["count"])

    def search(self, index: str, body: dict, size: int, global_stats: bool = False) -> dict:
        """A search whose hits leave the vector out. ``global_stats``: BM25 from the term statistics of every
        index searched (``dfs_query_then_fetch``), not each index's own: a version is one index per fiscal
        year, and a passage's score must not depend on its year's index."""
        raise NotImplementedError

    def scan(self, index: str, query: dict, size: int, timeout: float, fields: Sequence[str] | None) -> Iterator[dict]:
        """Every hit of ``query``: the ``fields`` of its source, or no source when None."""
        raise NotImplementedError

    def helpers(self):
        """The client library's ``helpers`` module (scan, streaming_bulk)."""
        raise NotImplementedError

    def streaming_bulk(self, actions, chunk_size: int) -> Iterator[tuple[bool, dict]]:
        """Bulk writes with one retry policy for both engines; a failed row is yielded, never raised."""
        return self.helpers().streaming_bulk(self.client, actions, chunk_size=chunk_size, max_retries=5,
                                             initial_backoff=1, raise_on_error=False, raise_on_exception=False)

    def create_doc(self, index: str, doc_id: str, document: dict) -> None:
        raise NotImplementedError

    def get_doc(self, index: str, doc_id: str) -> dict:
        return dict(self.client.get(index=index, id=doc_id))

    def delete_doc(self, index: str, doc_id: str, seq_no: int | None = None, primary_term: int | None = None) -> None:
        kwargs = {"if_seq_no": seq_no, "if_primary_term": primary_term} if seq_no is not None else {}
        self.client.delete(index=index, id=doc_id, refresh="true", **kwargs)

    def update_doc(self, index: str, doc_id: str, doc: dict) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.client.close()


class ElasticDialect(Dialect):
    """The official 8.x client: keyword arguments, ``.options(ignore_status=...)``."""

    kind = "elasticsearch"
    product = "Elasticsearch"

    @classmethod
    def from_settings(cls, settings, timeout: float) -> ElasticDialect:
        from elasticsearch import Elasticsearch

        kwargs: dict = {"request_timeout": timeout, "retry_on_timeout": True, "max_retries": 3}
        if settings.elasticsearch_api_key:
            kwargs["api_key"] = settings.elasticsearch_api_key.get_secret_value()
        elif settings.elasticsearch_username:
            password = settings.elasticsearch_password.get_secret_value() if settings.elasticsearch_password else ""
            kwargs["basic_auth"] = (settings.elasticsearch_username, password)
        if settings.elasticsearch_ca_certs:
            kwargs["ca_certs"] = settings.elasticsearch_ca_certs
        return cls(Elasticsearch(settings.elasticsearch_url, **kwargs), settings.elasticsearch_url)

    def unreachable(self, exc: Exception) -> bool:
        from elasticsearch import ConnectionError as Unreachable

        return isinstance(exc, Unreachable)

    def conflict_error(self):
        from elasticsearch import ConflictError

        return ConflictError

    def not_found_error(self):
        from elasticsearch import NotFoundError

        return NotFoundError

    def knn_body(self, vector, k, filters):
        return {"knn": {"field": "vector", "query_vector": [float(x) for x in vector], "k": k,
                        "num_candidates": max(100, 2 * k), "filter": filters}}

    def put_index_template(self, name, patterns, priority, template, meta):
        self.client.indices.put_index_template(name=name, index_patterns=patterns, priority=priority,
                                               template=template, _meta=meta)

    def create_index(self, name, mappings, settings=None, aliases=None):
        kwargs = {k: v for k, v in {"settings": settings, "aliases": aliases}.items() if v is not None}
        self.client.indices.create(index=name, mappings=mappings, **kwargs)

    def get_alias(self, name):
        resp = self.client.options(ignore_status=404).indices.get_alias(name=name)
        return None if resp.meta.status == 404 else sorted(resp.body)

    def get_indices(self, expr):
        return self.client.indices.get(index=expr, allow_no_indices=True).body

    def update_aliases(self, actions):
        self.client.indices.update_aliases(actions=actions)

    def reindex(self, source, dest, timeout):
        self.client.reindex(source={"index": source}, dest={"index": dest}, refresh=True, wait_for_completion=True,
                            request_timeout=timeout)

    def search(self, index, body, size, global_stats=False):
        kwargs = {"search_type": "dfs_query_then_fetch"} if global_stats else {}
        return self.client.search(index=index, size=size, source_excludes=["vector"], **kwargs, **body)

    def helpers(self):
        from elasticsearch import helpers

        return helpers

    def scan(self, index, query, size, timeout, fields):
        source = {"source": {"includes": list(fields)}} if fields is not None else {"_source": False}
        return self.helpers().scan(self.client, index=index, query={"query": query}, size=size,
                                   request_timeout=timeout, **source)

    def create_doc(self, index, doc_id, document):
        self.client.create(index=index, id=doc_id, document=document, refresh="true")

    def update_doc(self, index, doc_id, doc):
        self.client.update(index=index, id=doc_id, doc=doc)


class OpenSearchDialect(Dialect):
    """``opensearch-py``: request bodies, ``ignore=`` for expected statuses, plain dict answers."""

    kind = "opensearch"
    product = "OpenSearch"
    server_rrf = False  # no rrf retriever: the lists are fused client-side, as the embedded engine fuses them

    @classmethod
    def from_settings(cls, settings, timeout: float) -> OpenSearchDialect:
        from opensearchpy import OpenSearch

        # opensearch-py logs each failed attempt with its traceback at WARNING; the backend's error says it once
        logging.getLogger("opensearch").setLevel(logging.ERROR)
        kwargs: dict = {"timeout": timeout, "retry_on_timeout": True, "max_retries": 3}
        if settings.opensearch_username:
            password = settings.opensearch_password.get_secret_value() if settings.opensearch_password else ""
            kwargs["http_auth"] = (settings.opensearch_username, password)
        if settings.opensearch_ca_certs:
            kwargs["ca_certs"] = settings.opensearch_ca_certs
        hosts = [u.strip() for u in settings.opensearch_url.split(",") if u.strip()]
        return cls(OpenSearch(hosts, **kwargs), settings.opensearch_url)

    def unreachable(self, exc):
        from opensearchpy import ConnectionError as Unreachable

        return isinstance(exc, Unreachable)

    def conflict_error(self):
        from opensearchpy import ConflictError

        return ConflictError

    def not_found_error(self):
        from opensearchpy import NotFoundError

        return NotFoundError

    def mapping(self, mapping, dims):
        out = {**mapping, "properties": dict(mapping["properties"])}
        for name, field in out["properties"].items():
            if field.get("type") == "dense_vector":
                out["properties"][name] = {"type": "knn_vector", "dimension": dims, "method": {
                    "name": "hnsw", "engine": KNN_ENGINE, "space_type": "cosinesimil"}}
            elif field.get("type") == "flattened":
                out["properties"][name] = {"type": "flat_object"}
        return out

    def index_settings(self, shards, replicas):
        return {**super().index_settings(shards, replicas), "index.knn": True}

    def knn_body(self, vector, k, filters):
        clause = {"vector": [float(x) for x in vector], "k": k}
        if filters:
            clause["filter"] = {"bool": {"filter": filters}}
        return {"query": {"knn": {"vector": clause}}}

    def plugins(self):
        return [row.get("component", "") for row in self.client.cat.plugins(format="json")]

    def put_index_template(self, name, patterns, priority, template, meta):
        self.client.indices.put_index_template(name=name, body={
            "index_patterns": patterns, "priority": priority, "template": template, "_meta": meta})

    def create_index(self, name, mappings, settings=None, aliases=None):
        body = {k: v for k, v in {"mappings": mappings, "settings": settings, "aliases": aliases}.items()
                if v is not None}
        self.client.indices.create(index=name, body=body)

    def get_alias(self, name):
        resp = self.client.indices.get_alias(name=name, ignore=404)
        if not resp or resp.get("status") == 404 or "error" in resp:
            return None
        return sorted(resp)

    def get_indices(self, expr):
        return self.client.indices.get(index=expr, allow_no_indices=True, ignore_unavailable=True)

    def update_aliases(self, actions):
        self.client.indices.update_aliases(body={"actions": actions})

    def reindex(self, source, dest, timeout):
        self.client.reindex(body={"source": {"index": source}, "dest": {"index": dest}}, refresh=True,
                            wait_for_completion=True, request_timeout=timeout)

    def search(self, index, body, size, global_stats=False):
        params = {"search_type": "dfs_query_then_fetch"} if global_stats else None
        return self.client.search(index=index, body={**body, "size": size, "_source": {"excludes": ["vector"]}},
                                  params=params)

    def helpers(self):
        from opensearchpy import helpers

        return helpers

    def scan(self, index, query, size, timeout, fields):
        source = {"includes": list(fields)} if fields is not None else False
        return self.helpers().scan(self.client, index=index, query={"query": query, "_source": source}, size=size,
                                   request_timeout=timeout)

    def create_doc(self, index, doc_id, document):
        self.client.create(index=index, id=doc_id, body=document, refresh="true")

    def update_doc(self, index, doc_id, doc):
        self.client.update(index=index, id=doc_id, body={"doc": doc})


def dialect_for(settings, timeout: float) -> Dialect:
    """OpenSearch when ``OPENSEARCH_URL`` is set, else Elasticsearch (``ELASTICSEARCH_URL``)."""
    if settings.opensearch_url:
        return OpenSearchDialect.from_settings(settings, timeout)
    return ElasticDialect.from_settings(settings, timeout)


__all__ = ["Dialect", "ElasticDialect", "OpenSearchDialect", "dialect_for", "product_problem", "version_tuple"]
