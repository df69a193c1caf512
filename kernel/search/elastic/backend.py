"""The Elasticsearch-family backend: Elasticsearch 8.x/9.x and OpenSearch 2.x/3.x, one code path; what the two
engines spell differently (client, vector field, k-NN query, server fusion, product check) is their
:class:`~kernel.search.elastic.dialects.Dialect`.

Mappings come from schemas/ (``es_mapping``, adapted by the dialect): vectors with explicit dims and cosine
similarity (Elasticsearch's ``dense_vector`` with ``int8_hnsw``, OpenSearch's ``knn_vector`` on the Lucene
engine), the embedding model in ``_meta``. An index template per logical index carries
settings and mappings but never the serving alias, so a stray index matching the pattern is not served.
Bulk loads stream with retries on 429 and fail on any item error. Full-text queries are ``multi_match``
(analyzed, never parsed: no query-string syntax reaches the server); filters are ``term``/``terms``.
Hybrid search uses Elasticsearch's ``rrf`` retriever when the cluster offers it (8.14+, with a license that
includes it) and fuses client-side otherwise (always on OpenSearch, and for weighted min-max). Credentials come from
configuration and are never logged. Before the first write or read the cluster is checked once (``GET /``,
and OpenSearch's plugins): another product, a major this code does not speak or a missing k-NN plugin is one
line, before anything is written.

Client and server majors: the 8.x client sends ``compatible-with=8`` headers, which 8.x and 9.x servers
accept; a 9.x client's ``compatible-with=9`` is refused by 8.x servers, hence ``elasticsearch>=8.14,<9``.

Releases: a release is a marker index ``<prefix>-release-<id>`` whose mapping ``_meta`` holds the release
record; the alias ``<prefix>-release`` names the live one. Making a release live is one ``update_aliases``
request that moves every index alias whose target changed and the release alias together: one cluster
state update, so readers see the old release or the new one whole. Readers resolve the release alias once
per query and search the version aliases it names. A version is an alias over one index per filing year
(``kernel.search.elastic.partitions``): an upsert never writes into a served index, and copies server-side
(``_reindex``) only the years it changes into indexes of the new version, which shares every other year.

Visibility: version indices never refresh on a timer (``refresh_interval: -1``); a load, an upsert (its new
rows and the deletion of the replaced documents' stale rows) and a delete become visible in one explicit
refresh at the end, so readers see the old rows until then and the new rows after. Only the instant of that
refresh differs per shard: with several primary shards a query running during it can see some shards
before and some after.

Whole answers: a search some shard did not answer (a node lost between a query's phases: the engine returns
the hits of the shards that answered, with HTTP 200) is asked again while the engine moves to the shard's
other copy, and refused in one line if it stays partial; it is never returned as if whole.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
import threading
import time
from collections.abc import Iterable, Sequence

import pyarrow as pa

from kernel import faults
from kernel.clock import utc_now
from kernel.search.base import (
    BackendError,
    Filters,
    Hit,
    PublisherBusy,
    Release,
    SearchBackend,
    VersionInfo,
    alias_name,
    busy_message,
    check_filters,
    fuse_rrf,
    holder_dead,
    lock_owner,
    physical_of,
    version_name,
)
from kernel.search.elastic import partitions as parts
from kernel.search.elastic.dialects import Dialect, dialect_for, product_problem
from schemas.base import META_KEY, es_mapping
from schemas.index import IndexSpec

log = logging.getLogger(__name__)
BULK_CHUNK = 500
ID_BATCH = 1000  # document ids per terms query: far below index.max_terms_count (65,536)
# Elasticsearch's built-in templates (logs-*-*, metrics-*-*, synthetics-*-*) have priority 100, and two
# templates with overlapping patterns may not share one: ours sits above them.
TEMPLATE_PRIORITY = 500
REQUEST_TIMEOUT_S = 60
_VERSION = re.compile(r"-v\d{17}$")  # a version's name (base.version_name), not an index's alias
# Seconds between askings of a partial answer: the engine skips a lost node's copies at the next asking; a
# node lost for longer than these 3.7 s is the caller's one-line error.
PARTIAL_WAITS = (0.2, 0.5, 1.0, 2.0)


class PartialAnswer(Exception):
    """A search some shard did not answer (``_shards.failed``), or that timed out on the server."""


def partial_reason(resp: dict) -> str | None:
    """Why ``resp`` is not whole (None when every shard answered): the count and the first shard's reason."""
    shards = resp.get("_shards") or {}
    failed = int(shards.get("failed") or 0)
    if not failed and not resp.get("timed_out"):
        return None
    if not failed:
        return "the search timed out on the server"
    first = (shards.get("failures") or [{}])[0].get("reason") or {}
    why = (first.get("type") or first.get("reason")) if isinstance(first, dict) else str(first)
    return f"{failed} of {shards.get('total', '?')} shards did not answer ({why or 'no reason given'})"


def failed_phase(exc: Exception) -> str | None:
    """Why a refused search may answer whole when asked again: the engine's HTTP 500 or 503
    "search_phase_execution_exception", every copy of some shard failing the phase, as while a lost node's
    replicas are promoted; None for any other error (a malformed request's 400 among them)."""
    status = getattr(exc, "status_code", None)
    if status in (500, 503) and "search_phase_execution_exception" in str(exc):
        return f"the search phase failed on every copy of a shard (HTTP {status})"
    return None


class ElasticBackend(SearchBackend):
    """One Elasticsearch-family cluster; ``dialect`` (or a bare Elasticsearch client) says which engine."""

    def __init__(self, client, prefix: str = "secplat", shards: int = 1, replicas: int = 1,
                 request_timeout: float = REQUEST_TIMEOUT_S):
        self.dialect: Dialect = client if isinstance(client, Dialect) else _elastic(client)
        self.kind = self.dialect.kind
        self.request_timeout = request_timeout
        self.prefix = prefix
        self.shards, self.replicas = shards, replicas
        self._server_rrf: bool | None = self.dialect.server_rrf
        self._release_cache: dict[str, Release] = {}  # marker index -> its release (never changes)
        self._product_ok = False

    @property
    def client(self):
        """The engine's own client (tests and tools reach the cluster through it)."""
        return self.dialect.client

    @client.setter
    def client(self, value) -> None:
        self.dialect.client = value

    @classmethod
    def from_settings(cls, settings) -> ElasticBackend:
        return cls(dialect_for(settings, REQUEST_TIMEOUT_S), settings.search_prefix)

    def _error(self, action: str, exc: Exception) -> BackendError:
        """One line: an unreachable cluster names its URL; a refused request its reason (never a document)."""
        product, url = self.dialect.product, self.dialect.url
        if self.dialect.unreachable(exc):
            return BackendError(f"{product} at {url} is unreachable ({action}): {type(exc).__name__}")
        reason = " ".join(str(getattr(exc, "message", exc)).split())[:300]
        return BackendError(f"{product.lower()} {action} failed: {type(exc).__name__}: {reason}")

    def check_cluster(self) -> None:
        """Once per backend: the cluster is the engine this dialect speaks, of a major it speaks, with the
        k-NN plugin where the engine needs one (BackendError naming what is missing, before any write)."""
        if self._product_ok:
            return
        try:
            info, plugins = self.dialect.info(), self.dialect.plugins()
        except Exception as exc:
            raise self._error("read the cluster's version", exc) from exc
        problem = product_problem(info, plugins, self.dialect.kind)
        if problem:
            raise BackendError(f"{self.dialect.url}: {problem}")
        self._product_ok = True

    # -- versions and aliases
    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        alias = alias_name(self.prefix, spec.name)
        meta = {k: v for k, v in {**meta, "index": spec.name, "created": utc_now().isoformat()}.items()
                if v is not None}  # no nulls in _meta (the lexicon index has no vector width)
        mapping = self.mapping(spec, dims or 1, meta)
        try:
            self.dialect.put_index_template(
                alias, [f"{alias}-v*"], TEMPLATE_PRIORITY,
                {"settings": self.dialect.index_settings(self.shards, self.replicas), "mappings": mapping},
                {META_KEY: {"managed": True}})
            name = version_name(self.prefix, spec.name)
            self.dialect.create_index(parts.partition_index(name, parts.NONE), mapping, aliases={name: {}})
        except Exception as exc:  # elasticsearch.ApiError and transport errors
            raise self._error(f"create {spec.name} version", exc) from exc
        return name

    def mapping(self, spec: IndexSpec, dims: int, meta: dict) -> dict:
        """The mapping this code gives a new version of ``spec`` on this engine."""
        mapping = self.dialect.mapping(es_mapping(spec.model, dims, meta), dims)
        if not spec.has_vector:
            mapping["properties"].pop("vector", None)
        return mapping

    def alias_target(self, alias: str) -> str | None:
        """The release marker for the release alias; for an index's alias, the version the live release serves."""
        if alias == self._release_alias():
            members = self._alias_members(alias)
            return members[0] if members else None
        return super().alias_target(alias)

    def _alias_members(self, alias: str) -> list[str] | None:
        """One ``GET /_alias/<name>``: the indices it names (a missing alias answers 404: None)."""
        try:
            return self.dialect.get_alias(alias)
        except Exception as exc:
            raise self._error(f"read alias {alias}", exc) from exc

    def _members(self, version: str) -> list[str]:
        """A version's partition indices (a pre-partition version index is its own only partition)."""
        members = self._alias_members(version)
        if members is not None:
            return members
        try:
            return [version] if self.dialect.exists(version) else []
        except Exception as exc:
            raise self._error(f"read {version}", exc) from exc

    def _version(self, target: str) -> str:
        """The version a target names: an index's alias is the live release's version for it."""
        if _VERSION.search(target):
            return target
        return SearchBackend.alias_target(self, target) or target

    # -- releases
    def _release_alias(self) -> str:
        return alias_name(self.prefix, "release")

    def live_release(self) -> Release | None:
        """One ``GET /_alias`` per call; a marker's record is read once (a release never changes)."""
        self.check_cluster()
        marker = self.alias_target(self._release_alias())
        if marker is None:
            return None
        cache = self._release_cache
        if marker not in cache:
            found = self._markers(marker)
            if not found:
                return None
            cache.clear()
            cache[marker] = found[0]
        return cache[marker]

    def _markers(self, expr: str) -> list[Release]:
        try:
            indices = self.dialect.get_indices(expr)
        except Exception as exc:
            raise self._error("read releases", exc) from exc
        out = []
        for name in sorted(indices):
            record = indices[name].get("mappings", {}).get("_meta", {}).get(META_KEY, {}).get("release")
            if record:
                out.append(Release.from_json(record))
        return out

    def releases(self) -> list[Release]:
        return sorted(self._markers(f"{self._release_alias()}-r*"), key=lambda r: r.id)

    def commit_release(self, release: Release) -> None:
        """The marker index, a refresh of every target, then one ``update_aliases``: each index alias whose
        target changed and the release alias move together."""
        marker = f"{self._release_alias()}-{release.id}"
        live = self.live_release()
        before = dict(live.targets) if live else {}
        actions: list[dict] = []
        for index, target in sorted(release.targets.items()):  # each index's alias names its version's partitions
            alias = alias_name(self.prefix, index)
            actions += parts.alias_moves(alias, self._alias_members(alias) or [], self._members(target))
        current_marker = self.alias_target(self._release_alias())
        if current_marker and current_marker != marker:
            actions.append({"remove": {"index": current_marker, "alias": self._release_alias()}})
        actions.append({"add": {"index": marker, "alias": self._release_alias()}})
        try:
            if not self.dialect.exists(marker):
                self.dialect.create_index(marker, {
                    "dynamic": "false", "_meta": {META_KEY: {"managed": True, "release": release.to_json()}}},
                    settings={"number_of_shards": 1, "number_of_replicas": self.replicas})
            changed = sorted({t for i, t in release.targets.items() if before.get(i) != t})
            if changed:
                self.dialect.refresh(",".join(changed))
            faults.point("engine:release marker made")
            self.dialect.update_aliases(actions)  # one cluster-state update: atomic
        except Exception as exc:
            raise self._error(f"make release {release.id} live", exc) from exc

    def drop_release(self, release_id: str) -> None:
        marker = f"{self._release_alias()}-{release_id}"
        if self.alias_target(self._release_alias()) == marker:
            raise BackendError(f"release {release_id} is live")
        self.drop(marker)

    def pin(self, physical: str) -> str:
        return physical  # a physical index no release serves is written; served ones are never written

    def writable(self, target: str, spec: IndexSpec, meta: dict) -> str:
        """A new version over the served one's partitions (one alias request, nothing copied): the upsert
        copies the partitions it writes (``_own``)."""
        source = physical_of(target)
        version = version_name(self.prefix, spec.name)
        members = self._members(source)
        if not members:
            raise BackendError(f"no index version {source}")
        try:
            served = self.dialect.get_indices(members[0])[members[0]]["mappings"]
        except Exception as exc:
            raise self._error(f"read the mapping of {source}", exc) from exc
        conflicts = mapping_conflicts(served, self.mapping(spec, meta.get("dims") or 1, meta))
        if conflicts:  # before anything is written: the live release stays as it is
            raise BackendError(f"mapping conflict: {source} (live) maps {'; '.join(conflicts[:3])}: its rows cannot "
                               f"be upserted; publish with --rebuild to make a new version")
        try:
            self.dialect.update_aliases([{"add": {"index": i, "alias": version}} for i in members])
        except Exception as exc:
            raise self._error(f"make version {version}", exc) from exc
        return version

    def _own(self, version: str, keys: set[str]) -> dict[str, str]:
        """partition key -> the version's own index for it, copying shared partitions (``_reindex`` of that
        partition only) and creating missing ones (with the version's mapping) first."""
        members = self._members(version)
        if not members:
            raise BackendError(f"no index version {version}")
        copies, creates = parts.plan_writes(version, members, keys)
        if copies or creates:
            mapping = self.dialect.get_indices(members[0])[members[0]]["mappings"]
        try:
            for source, dest in copies:
                self.dialect.create_index(dest, mapping)
                self.dialect.reindex(source, dest, self.request_timeout * 10)
                faults.point("engine:partition copied")
                self.dialect.update_aliases([{"remove": {"index": source, "alias": version}},
                                             {"add": {"index": dest, "alias": version}}])
            for dest in creates:
                self.dialect.create_index(dest, mapping, aliases={version: {}})
        except Exception as exc:
            raise self._error(f"prepare partitions of {version}", exc) from exc
        return {parts.key_of(i): i for i in self._members(version) if parts.own(version, i)}

    def _partitions(self, alias: str) -> tuple[dict, dict[str, list[str]]]:
        """(every partition index of the logical index with its aliases and mappings, version -> partitions)."""
        try:
            indices = self.dialect.get_indices(f"{alias}-v*")
        except Exception as exc:
            raise self._error(f"list {alias} versions", exc) from exc
        return indices, parts.versions_of({i: body.get("aliases", {}) for i, body in indices.items()}, alias)

    def versions(self, spec: IndexSpec, counts: bool = True) -> list[VersionInfo]:
        alias = alias_name(self.prefix, spec.name)
        live = self.alias_target(alias)
        indices, versions = self._partitions(alias)
        out = []
        for name, members in versions.items():
            meta = indices[members[0]].get("mappings", {}).get("_meta", {}).get(META_KEY, {})
            out.append(VersionInfo(name, spec.name, meta.get("created", ""), self.count(name) if counts else None,
                                   name == live, meta))
        return out

    def drop(self, physical: str) -> None:
        """A version: its own partitions deleted, its alias removed from the partitions it shares."""
        if physical.startswith(self._release_alias() + "-"):  # a release marker
            return self._delete_indices([physical])
        alias = physical.rsplit("-v", 1)[0]
        _, versions = self._partitions(alias)
        shared = {i for v, members in versions.items() if v != physical for i in members}
        members = versions.get(physical, [])
        self._delete_indices([i for i in members if i not in shared])
        kept = [i for i in members if i in shared and i != physical]
        if kept:
            try:
                self.dialect.update_aliases([{"remove": {"index": i, "alias": physical}} for i in kept])
            except Exception as exc:
                raise self._error(f"drop {physical}", exc) from exc

    def _delete_indices(self, names: list[str]) -> None:
        if not names:
            return
        try:
            self.dialect.delete_indices(",".join(names))
        except Exception as exc:
            raise self._error(f"drop {', '.join(names)}", exc) from exc

    # -- data
    def _rows(self, spec: IndexSpec, batches: Iterable[pa.RecordBatch]):
        for batch in batches:
            for row in batch.to_pylist():
                if not spec.has_vector:
                    row.pop("vector", None)
                yield {k: (v.isoformat() if isinstance(v, dt.date) else dict(v) if isinstance(v, list)
                           and k == "item_weights" else v) for k, v in row.items()}

    def _bulk(self, target: str, actions) -> int:
        """Stream actions (index or delete) without refreshing; any failed item or transport error is a
        BackendError naming the ids and reasons, never the documents' contents."""
        done, failed, examples = 0, 0, []
        try:
            for ok, item in self.dialect.streaming_bulk(actions, BULK_CHUNK):
                if ok:
                    done += 1
                    continue
                failed += 1
                if len(examples) < 3:
                    examples.append(_item_reason(item))
        except BackendError:  # from the actions themselves (a version that does not exist)
            raise
        except Exception as exc:  # transport errors outside a chunk's own retries
            raise self._error(f"bulk request to {target}", exc) from exc
        if failed:
            raise BackendError(f"bulk request to {target}: {failed} item(s) failed, e.g. {'; '.join(examples)}")
        return done

    def _refresh(self, target: str) -> None:
        try:
            self.dialect.refresh(target)
        except Exception as exc:
            raise self._error(f"refresh {target}", exc) from exc

    def load(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch]) -> int:
        """Each row into its year's partition of the version (made on first sight), streamed."""
        field, own = _partition_field(spec), {}

        def actions():
            for row in self._rows(spec, batches):
                key = parts.partition_key(row, field)
                if key not in own:
                    own.update(self._own(target, {key}))
                yield {"_op_type": "index", "_index": own[key], "_id": row[spec.id_field], "_source": row}

        written = self._bulk(target, actions())
        faults.point(f"engine:rows added {spec.name}")
        self._refresh(target)
        if self.count(target) != written:
            raise BackendError(f"{target}: {self.count(target)} documents after loading {written}")
        return written

    def _locate(self, target: str, spec: IndexSpec, ids: Sequence[str] = (),
                doc_ids: Sequence[str] = ()) -> list[tuple[str, str]]:
        """(partition index, row id) of rows by id and of some documents' rows, as readers see them now (the
        last refresh), in batches of ID_BATCH ids."""
        out: list[tuple[str, str]] = []
        queries = [{"terms": {spec.doc_field: list(doc_ids[i:i + ID_BATCH])}} for i in range(0, len(doc_ids), ID_BATCH)]
        queries += [{"ids": {"values": list(ids[i:i + ID_BATCH])}} for i in range(0, len(ids), ID_BATCH)]
        try:
            for clause in queries:
                out += [(h["_index"], h["_id"]) for h in self.dialect.scan(
                    target, {"bool": {"filter": [clause]}}, BULK_CHUNK, self.request_timeout, None)]
        except Exception as exc:
            raise self._error(f"read row ids in {target}", exc) from exc
        return sorted(set(out))

    def upsert(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch],
               replace_docs: Sequence[str] = ()) -> int:
        """New rows into their years' partitions, then the replaced documents' rows the new data no longer
        has (or has in another year) deleted by id, then one refresh: readers see the old rows until it and
        the new rows after (no delete_by_query: bounded requests, every deletion checked). Only the partitions
        written are the version's own (copied first when shared)."""
        version, field = self._version(target), _partition_field(spec)
        rows = list(self._rows(spec, batches))
        if not rows and not replace_docs:
            return 0
        new = {r[spec.id_field]: parts.partition_key(r, field) for r in rows}
        stale = self._locate(version, spec, doc_ids=list(replace_docs)) if replace_docs else []
        deletes = [(parts.key_of(index), i) for index, i in stale if new.get(i) != parts.key_of(index)]
        own = self._own(version, set(new.values()) | {key for key, _ in deletes})
        written = self._bulk(version, ({"_op_type": "index", "_index": own[new[r[spec.id_field]]],
                                        "_id": r[spec.id_field], "_source": r} for r in rows))
        faults.point(f"engine:rows added {spec.name}")
        self._bulk(version, self._deletes(own, deletes))
        faults.point(f"engine:replaced rows deleted {spec.name}")
        self._refresh(",".join(sorted({own[k] for k in {*new.values(), *(k for k, _ in deletes)}})))
        faults.point(f"engine:upserted {spec.name}")
        return written

    def _deletes(self, own: dict[str, str], rows: Iterable[tuple[str, str]]):
        return ({"_op_type": "delete", "_index": own[key], "_id": i} for key, i in rows)

    def delete(self, target: str, spec: IndexSpec, ids: Sequence[str] = (), doc_ids: Sequence[str] = ()) -> int:
        version = self._version(target)
        found = self._locate(version, spec, ids=list(ids), doc_ids=list(doc_ids) if doc_ids else [])
        if not found:
            return 0
        rows = [(parts.key_of(index), i) for index, i in found]
        own = self._own(version, {key for key, _ in rows})
        self._bulk(version, self._deletes(own, rows))
        self._refresh(",".join(sorted({own[k] for k, _ in rows})))
        return len(found)

    def count(self, target: str) -> int:
        try:
            return self.dialect.count(target)
        except Exception as exc:
            raise self._error(f"count {target}", exc) from exc

    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        try:
            return [h["_source"] for h in self.dialect.scan(target, {"match_all": {}}, 1000, self.request_timeout,
                                                            fields)]
        except Exception as exc:
            raise self._error(f"scan {target}", exc) from exc

    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        """Rows by id, in the order asked (an ``ids`` search: a version's alias names several indices, which
        ``_mget`` refuses)."""
        found: dict[str, dict] = {}
        try:
            for i in range(0, len(ids), ID_BATCH):
                batch = list(ids[i:i + ID_BATCH])
                resp = self._whole(target, {"query": {"bool": {"filter": [{"ids": {"values": batch}}]}}},
                                   len(batch))
                found.update({h["_id"]: h["_source"] for h in resp["hits"]["hits"]})
        except Exception as exc:
            raise self._error(f"get from {target}", exc) from exc
        return [found[i] for i in ids if i in found]

    # -- search
    def _filter(self, spec: IndexSpec, filters: Filters | None) -> list[dict]:
        out = []
        for name, values in check_filters(spec, filters).items():
            values = [v.isoformat() if isinstance(v, dt.date) else v for v in values]
            out.append({"term": {name: {"value": values[0]}}} if len(values) == 1 else {"terms": {name: values}})
        return out

    def _hits(self, resp, spec: IndexSpec) -> list[Hit]:
        return [Hit(h["_id"], float(h["_score"] or 0.0), h["_source"]) for h in resp["hits"]["hits"]]

    def _whole(self, target: str, body: dict, size: int, global_stats: bool = False) -> dict:
        """The engine's answer from every shard: a partial one, or a phase every copy of a shard failed
        (:func:`failed_phase`), is asked again (PARTIAL_WAITS), then raised as PartialAnswer; the engine's
        other errors pass through to the caller's one line."""
        waits = iter(PARTIAL_WAITS)
        while True:
            try:
                resp = self.dialect.search(target, body, size, global_stats)
            except Exception as exc:  # a phase every copy of a shard failed (a node lost): asked again too
                if (reason := failed_phase(exc)) is None:
                    raise
            else:
                if (reason := partial_reason(resp)) is None:
                    return resp
            wait = next(waits, None)
            if wait is None:
                raise PartialAnswer(f"{reason}, asked {len(PARTIAL_WAITS) + 1} times")
            log.warning("%s: a partial answer from %s (%s); asking again", self.dialect.product, target, reason)
            time.sleep(wait)

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
            resp = self._whole(target, {"query": query}, k, global_stats=True)
        except Exception as exc:
            raise self._error(f"search {target}", exc) from exc
        return self._hits(resp, spec)

    def _knn(self, spec: IndexSpec, vector: Sequence[float], filters: Filters | None, k: int) -> dict:
        """The engine's k-NN request body (Elasticsearch: ``knn``; OpenSearch: a ``knn`` query)."""
        return self.dialect.knn_body(vector, k, self._filter(spec, filters))

    def knn(self, target: str, spec: IndexSpec, vector: Sequence[float], filters: Filters | None = None,
            k: int = 10) -> list[Hit]:
        body = self._knn(spec, vector, filters, k)  # a bad filter is the caller's FilterError, not the engine's
        try:
            resp = self._whole(target, body, k)
        except Exception as exc:
            raise self._error(f"knn search {target}", exc) from exc
        # Cosine similarity from the (1 + cos) / 2 score both engines give.
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
            {"knn": self._knn(spec, vector, filters, window)["knn"]}], "rank_window_size": window}}
        try:
            resp = self._whole(target, {"retriever": retriever}, k, global_stats=True)
        except Exception as exc:
            if not _rrf_unavailable(exc):  # a timeout, 429 or 503 is an error like any other search's
                raise self._error(f"hybrid search {target}", exc) from exc
            log.info("elasticsearch rrf retriever unavailable (%s); fusing client-side from now on",
                     getattr(exc, "message", type(exc).__name__))
            self._server_rrf = False
            return fuse_rrf([self.bm25(target, spec, text, filters, window),
                             self.knn(target, spec, vector, filters, window)], weights=(0.5, 0.5))[:k]
        self._server_rrf = True
        return self._hits(resp, spec)

    # -- the publish lock: a document in <prefix>-locks, created only if absent, kept alive by a heartbeat
    LOCK_TTL_S = 300  # a lock whose heartbeat is older than this belonged to a dead publisher

    @contextlib.contextmanager
    def publish_lock(self):
        self.check_cluster()  # another engine, major or a missing plugin: one line, nothing written
        conflict, not_found = self.dialect.conflict_error(), self.dialect.not_found_error()
        index, doc_id = f"{self.prefix}-locks", "publish"
        owner = lock_owner()

        def stamp() -> dict:
            return {**owner, "heartbeat": utc_now().isoformat()}

        for _ in range(2):
            try:
                self.dialect.create_doc(index, doc_id, stamp())
                break
            except conflict:
                try:
                    held = self.dialect.get_doc(index, doc_id)
                except not_found:
                    continue  # released meanwhile: try again
                beat = dt.datetime.fromisoformat(held["_source"].get("heartbeat", "1970-01-01T00:00:00+00:00"))
                fresh = (utc_now() - beat).total_seconds() < self.LOCK_TTL_S
                if fresh and not holder_dead(held["_source"]):
                    raise PublisherBusy(busy_message(held["_source"])) from None
                log.warning("taking over the publish lock of %s (%s)", held["_source"],
                            "its process is gone" if fresh else "no heartbeat")
                with contextlib.suppress(conflict, not_found):  # only the stale one, not a new holder's
                    self.dialect.delete_doc(index, doc_id, held["_seq_no"], held["_primary_term"])
            except Exception as exc:
                raise self._error("take the publish lock", exc) from exc
        else:
            raise PublisherBusy(busy_message({}))
        stop = threading.Event()

        def heartbeat() -> None:
            while not stop.wait(self.LOCK_TTL_S / 3):
                with contextlib.suppress(Exception):  # a missed beat only shortens the lock's life
                    self.dialect.update_doc(index, doc_id, stamp())

        beater = threading.Thread(target=heartbeat, name="publish-lock-heartbeat", daemon=True)
        beater.start()
        try:
            yield
        finally:
            stop.set()
            beater.join()
            with contextlib.suppress(Exception):
                self.dialect.delete_doc(index, doc_id)

    def close(self) -> None:
        self.dialect.close()


_SHAPE = ("type", "analyzer", "dims", "dimension", "similarity")


def mapping_conflicts(served: dict, wanted: dict) -> list[str]:
    """Fields a version's mapping (``served``) gives another shape than this code's (``wanted``): type,
    analyzer, vector width and similarity; a field it lacks. Pure: the publish refuses an upsert over them."""
    have, want = served.get("properties") or {}, wanted.get("properties") or {}
    out = []
    for name, field in sorted(want.items()):
        if name not in have:
            out.append(f"no field {name}")
            continue
        diff = [f"{k} {have[name].get(k)} (this code: {field.get(k)})" for k in _SHAPE
                if field.get(k) != have[name].get(k) and not (k == "analyzer" and field.get(k) is None)]
        if field.get("method", {}).get("space_type") != have[name].get("method", {}).get("space_type"):
            diff.append(f"space_type {have[name].get('method', {}).get('space_type')}")
        if diff:
            out.append(f"{name} with {', '.join(diff)}")
    return out


def _partition_field(spec: IndexSpec) -> str | None:
    return parts.PARTITION_FIELD if parts.PARTITION_FIELD in spec.model.model_fields else None


def _rrf_unavailable(exc: Exception) -> bool:
    """The server cannot run the rrf retriever: no license for it (403 ``security_exception`` or a
    license error) or a version without retrievers (400 naming ``retriever``/``rrf``)."""
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "meta", None), "status", None)
    text = str(getattr(exc, "body", "") or exc).lower()
    return status == 403 or (status == 400 and ("retriever" in text or "rrf" in text)) or "license" in text


def _item_reason(item: dict) -> str:
    """One failed bulk item as id, status and reason: never its document (vectors, text)."""
    op, body = next(iter(item.items()))
    error = body.get("error")
    reason = f"{error.get('type')}: {error.get('reason')}" if isinstance(error, dict) else str(error)
    return f"{op} {body.get('_id') or (body.get('data') or {}).get('_id', '?')} ({body.get('status')}: {reason[:200]})"


def _elastic(client) -> Dialect:
    """A bare Elasticsearch client (tests, tools) as its dialect."""
    from kernel.search.elastic.dialects import ElasticDialect

    return ElasticDialect(client, "the Elasticsearch cluster")
