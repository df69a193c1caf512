"""Elasticsearch 8.x/9.x through the official client (production backend).

Mappings come from schemas/ (``es_mapping``): ``dense_vector`` with explicit dims, cosine similarity and
``int8_hnsw`` index options, the embedding model in ``_meta``. An index template per logical index carries
settings and mappings but never the serving alias, so a stray index matching the pattern is not served.
Bulk loads stream with retries on 429 and fail on any item error. Full-text queries are ``multi_match``
(analyzed, never parsed: no query-string syntax reaches the server); filters are ``term``/``terms``.
Hybrid search uses the server's ``rrf`` retriever when the cluster offers it and fuses client-side
otherwise (and always for weighted min-max). Credentials come from configuration and are never logged.
The client's major version must match the server's (``elasticsearch>=9`` for 9.x clusters).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
from collections.abc import Iterable, Sequence

import pyarrow as pa

from kernel.search.base import (
    BackendError,
    Filters,
    Hit,
    PublisherBusy,
    SearchBackend,
    VersionInfo,
    alias_name,
    busy_message,
    check_filters,
    fuse_rrf,
    lock_owner,
    version_name,
)
from schemas.base import es_mapping
from schemas.index import IndexSpec

log = logging.getLogger(__name__)
BULK_CHUNK = 500


class ElasticBackend(SearchBackend):
    kind = "elasticsearch"

    def __init__(self, client, prefix: str = "secplat", shards: int = 1, replicas: int = 1):
        self.client = client
        self.prefix = prefix
        self.shards, self.replicas = shards, replicas
        self._server_rrf: bool | None = None

    @classmethod
    def from_settings(cls, settings) -> ElasticBackend:
        from elasticsearch import Elasticsearch

        kwargs: dict = {"request_timeout": 60, "retry_on_timeout": True, "max_retries": 3}
        if settings.elasticsearch_api_key:
            kwargs["api_key"] = settings.elasticsearch_api_key.get_secret_value()
        elif settings.elasticsearch_username:
            password = settings.elasticsearch_password.get_secret_value() if settings.elasticsearch_password else ""
            kwargs["basic_auth"] = (settings.elasticsearch_username, password)
        if settings.elasticsearch_ca_certs:
            kwargs["ca_certs"] = settings.elasticsearch_ca_certs
        return cls(Elasticsearch(settings.elasticsearch_url, **kwargs), settings.search_prefix)

    def _error(self, action: str, exc: Exception) -> BackendError:
        return BackendError(f"elasticsearch {action} failed: {type(exc).__name__}: {getattr(exc, 'message', exc)}")

    # -- versions and aliases
    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        alias = alias_name(self.prefix, spec.name)
        meta = {**meta, "index": spec.name, "created": dt.datetime.now(dt.UTC).isoformat()}
        mapping = es_mapping(spec.model, dims or 1, meta)
        if not spec.has_vector:
            mapping["properties"].pop("vector", None)
        try:
            self.client.indices.put_index_template(
                name=alias, index_patterns=[f"{alias}-v*"], priority=100,
                template={"settings": {"number_of_shards": self.shards, "number_of_replicas": self.replicas,
                                       "refresh_interval": "1s"}, "mappings": mapping},
                _meta={"managed_by": "secplat"})
            name = version_name(self.prefix, spec.name)
            self.client.indices.create(index=name, mappings=mapping)
        except Exception as exc:  # elasticsearch.ApiError and transport errors
            raise self._error(f"create {spec.name} version", exc) from exc
        return name

    def alias_target(self, alias: str) -> str | None:
        try:
            if not self.client.indices.exists_alias(name=alias):
                return None
            return next(iter(self.client.indices.get_alias(name=alias).body))
        except Exception as exc:
            raise self._error(f"read alias {alias}", exc) from exc

    def swap_alias(self, alias: str, physical: str) -> str | None:
        before = self.alias_target(alias)
        actions = [{"add": {"index": physical, "alias": alias}}]
        if before and before != physical:
            actions.insert(0, {"remove": {"index": before, "alias": alias}})
        try:
            self.client.indices.refresh(index=physical)
            self.client.indices.update_aliases(actions=actions)  # one cluster-state update: atomic
        except Exception as exc:
            raise self._error(f"swap alias {alias}", exc) from exc
        return before

    def versions(self, spec: IndexSpec) -> list[VersionInfo]:
        alias = alias_name(self.prefix, spec.name)
        live = self.alias_target(alias)
        try:
            indices = self.client.indices.get(index=f"{alias}-v*", allow_no_indices=True).body
        except Exception as exc:
            raise self._error(f"list {spec.name} versions", exc) from exc
        out = []
        for name in sorted(indices):
            meta = indices[name].get("mappings", {}).get("_meta", {})
            out.append(VersionInfo(name, spec.name, meta.get("created", ""), self.count(name), name == live, meta))
        return out

    def drop(self, physical: str) -> None:
        try:
            self.client.indices.delete(index=physical)
        except Exception as exc:
            raise self._error(f"drop {physical}", exc) from exc

    # -- data
    def _actions(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch]):
        for batch in batches:
            for row in batch.to_pylist():
                if not spec.has_vector:
                    row.pop("vector", None)
                row = {k: (v.isoformat() if isinstance(v, dt.date) else dict(v) if isinstance(v, list)
                           and k == "item_weights" else v) for k, v in row.items()}
                yield {"_op_type": "index", "_index": target, "_id": row[spec.id_field], "_source": row}

    def _bulk(self, target: str, actions) -> int:
        from elasticsearch import helpers

        written, failed, examples = 0, 0, []
        for ok, item in helpers.streaming_bulk(self.client, actions, chunk_size=BULK_CHUNK, max_retries=5,
                                               initial_backoff=1, raise_on_error=False, raise_on_exception=False):
            if ok:
                written += 1
            else:
                failed += 1
                if len(examples) < 3:
                    examples.append(item)
        if failed:
            raise BackendError(f"bulk load into {target}: {failed} item(s) failed, e.g. {examples}")
        self.client.indices.refresh(index=target)
        return written

    def load(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch]) -> int:
        written = self._bulk(target, self._actions(target, spec, batches))
        if self.count(target) != written:
            raise BackendError(f"{target}: {self.count(target)} documents after loading {written}")
        return written

    def upsert(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch],
               replace_docs: Sequence[str] = ()) -> int:
        physical = self.alias_target(target) or target
        batches = list(batches)
        ids = [i for b in batches for i in b.column(spec.id_field).to_pylist()]
        written = self._bulk(physical, self._actions(physical, spec, batches))
        if replace_docs:  # rows of these documents that the new data no longer has
            query = {"bool": {"filter": [{"terms": {spec.doc_field: list(replace_docs)}}],
                              "must_not": [{"ids": {"values": ids}}]}}
            try:
                self.client.delete_by_query(index=physical, query=query, refresh=True, conflicts="proceed")
            except Exception as exc:
                raise self._error(f"delete stale rows in {physical}", exc) from exc
        return written

    def delete(self, target: str, spec: IndexSpec, ids: Sequence[str] = (), doc_ids: Sequence[str] = ()) -> int:
        should = []
        if ids:
            should.append({"ids": {"values": list(ids)}})
        if doc_ids:
            should.append({"terms": {spec.doc_field: list(doc_ids)}})
        if not should:
            return 0
        try:
            resp = self.client.delete_by_query(index=self.alias_target(target) or target,
                                               query={"bool": {"should": should, "minimum_should_match": 1}},
                                               refresh=True, conflicts="proceed")
        except Exception as exc:
            raise self._error(f"delete from {target}", exc) from exc
        return int(resp.get("deleted", 0))

    def count(self, target: str) -> int:
        try:
            return int(self.client.count(index=target)["count"])
        except Exception as exc:
            raise self._error(f"count {target}", exc) from exc

    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        from elasticsearch import helpers

        try:
            return [h["_source"] for h in helpers.scan(self.client, index=target, query={"query": {"match_all": {}}},
                                                       _source=list(fields), size=1000)]
        except Exception as exc:
            raise self._error(f"scan {target}", exc) from exc

    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        if not ids:
            return []
        try:
            resp = self.client.mget(index=target, ids=list(ids), source_excludes=["vector"])
        except Exception as exc:
            raise self._error(f"get from {target}", exc) from exc
        return [d["_source"] for d in resp["docs"] if d.get("found")]

    # -- search
    def _filter(self, spec: IndexSpec, filters: Filters | None) -> list[dict]:
        out = []
        for name, values in check_filters(spec, filters).items():
            values = [v.isoformat() if isinstance(v, dt.date) else v for v in values]
            out.append({"term": {name: values[0]}} if len(values) == 1 else {"terms": {name: values}})
        return out

    def _hits(self, resp, spec: IndexSpec) -> list[Hit]:
        return [Hit(h["_id"], float(h["_score"] or 0.0), h["_source"]) for h in resp["hits"]["hits"]]

    def _match(self, spec: IndexSpec, text: str, fields: Sequence[str] | None) -> dict:
        # most_fields: the fields' scores summed, each times the spec's boost (as the embedded engine does)
        names = [f if spec.boost(f) == 1.0 else f"{f}^{spec.boost(f):g}" for f in (fields or spec.text_fields)]
        return {"multi_match": {"query": text, "fields": names, "type": "most_fields"}}

    def bm25(self, target: str, spec: IndexSpec, text: str, filters: Filters | None = None, k: int = 10,
             fields: Sequence[str] | None = None) -> list[Hit]:
        if not text.strip():
            return []
        query = {"bool": {"must": [self._match(spec, text, fields)], "filter": self._filter(spec, filters)}}
        try:
            resp = self.client.search(index=target, query=query, size=k, source_excludes=["vector"])
        except Exception as exc:
            raise self._error(f"search {target}", exc) from exc
        return self._hits(resp, spec)

    def _knn(self, spec: IndexSpec, vector: Sequence[float], filters: Filters | None, k: int) -> dict:
        return {"field": "vector", "query_vector": [float(x) for x in vector], "k": k,
                "num_candidates": max(100, 2 * k), "filter": self._filter(spec, filters)}

    def knn(self, target: str, spec: IndexSpec, vector: Sequence[float], filters: Filters | None = None,
            k: int = 10) -> list[Hit]:
        try:
            resp = self.client.search(index=target, knn=self._knn(spec, vector, filters, k), size=k,
                                      source_excludes=["vector"])
        except Exception as exc:
            raise self._error(f"knn search {target}", exc) from exc
        # Cosine similarity from ES's (1 + cos) / 2 score.
        return [Hit(h.id, 2 * h.score - 1, h.source) for h in self._hits(resp, spec)]

    def hybrid(self, target: str, spec: IndexSpec, text: str, vector: Sequence[float],
               filters: Filters | None = None, k: int = 10, fusion: str = "rrf", dense_weight: float = 0.5,
               window: int | None = None) -> list[Hit]:
        window = window or max(50, 2 * k)
        # The rrf retriever weighs its lists equally: other weights are fused here.
        if fusion != "rrf" or dense_weight != 0.5 or self._server_rrf is False or not text.strip():
            return super().hybrid(target, spec, text, vector, filters, k, fusion, dense_weight, window)
        retriever = {"rrf": {"retrievers": [
            {"standard": {"query": {"bool": {"must": [self._match(spec, text, None)],
                                             "filter": self._filter(spec, filters)}}}},
            {"knn": self._knn(spec, vector, filters, window)}], "rank_window_size": window}}
        try:
            resp = self.client.search(index=target, retriever=retriever, size=k, source_excludes=["vector"])
            self._server_rrf = True
            return self._hits(resp, spec)
        except Exception as exc:  # no retriever support or no license for it: fuse here instead
            if self._server_rrf is None:
                log.info("elasticsearch rrf retriever unavailable (%s); fusing client-side", type(exc).__name__)
            self._server_rrf = False
            return fuse_rrf([self.bm25(target, spec, text, filters, window),
                             self.knn(target, spec, vector, filters, window)], weights=(0.5, 0.5))[:k]

    # -- the publish lock: a document in <prefix>-locks, created only if absent, kept alive by a heartbeat
    LOCK_TTL_S = 300  # a lock whose heartbeat is older than this belonged to a dead publisher

    @contextlib.contextmanager
    def publish_lock(self):
        from elasticsearch import ConflictError, NotFoundError

        index, doc_id = f"{self.prefix}-locks", "publish"
        owner = lock_owner()

        def stamp() -> dict:
            return {**owner, "heartbeat": dt.datetime.now(dt.UTC).isoformat()}

        for _ in range(2):
            try:
                self.client.create(index=index, id=doc_id, document=stamp(), refresh="true")
                break
            except ConflictError:
                try:
                    held = self.client.get(index=index, id=doc_id)
                except NotFoundError:
                    continue  # released meanwhile: try again
                beat = dt.datetime.fromisoformat(held["_source"].get("heartbeat", "1970-01-01T00:00:00+00:00"))
                if (dt.datetime.now(dt.UTC) - beat).total_seconds() < self.LOCK_TTL_S:
                    raise PublisherBusy(busy_message(held["_source"])) from None
                log.warning("taking over a stale publish lock of %s", held["_source"])
                with contextlib.suppress(ConflictError, NotFoundError):  # only the stale one, not a new holder's
                    self.client.delete(index=index, id=doc_id, if_seq_no=held["_seq_no"],
                                       if_primary_term=held["_primary_term"], refresh="true")
            except Exception as exc:
                raise self._error("take the publish lock", exc) from exc
        else:
            raise PublisherBusy(busy_message({}))
        stop = threading.Event()

        def heartbeat() -> None:
            while not stop.wait(self.LOCK_TTL_S / 3):
                with contextlib.suppress(Exception):  # a missed beat only shortens the lock's life
                    self.client.update(index=index, id=doc_id, doc=stamp())

        beater = threading.Thread(target=heartbeat, name="publish-lock-heartbeat", daemon=True)
        beater.start()
        try:
            yield
        finally:
            stop.set()
            beater.join()
            with contextlib.suppress(Exception):
                self.client.delete(index=index, id=doc_id, refresh="true")

    def close(self) -> None:
        self.client.close()
