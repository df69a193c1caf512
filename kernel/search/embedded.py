"""The embedded search engine (default): LanceDB tables on local disk, no server.

Each physical version is a Lance table with a native BM25 full-text index per text field and an exact
cosine kNN over the table version's vectors held in memory, or Lance's IVF-HNSW index once a table passes
``VECTOR_INDEX_MIN_ROWS``. A release names each index's table *and its Lance table version*
(``<table>@<n>``), and readers open that version (Lance time travel), so an upsert into a served table
(new table versions) is invisible until its release is live. Releases live in ``releases/<id>.json``; the
live one is ``release.json``, replaced by an atomic rename under a file lock: a reader sees the old release
or the new one, never a mix. Table versions older than every kept release's are pruned after a publish.
Filters are built as typed Lance expressions, never as SQL text.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from domain.text import MAX_TOKEN
from kernel import faults
from kernel.search.base import (
    LEGACY_RELEASE,
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
    lock_owner,
    physical_of,
    version_name,
)
from kernel.search.exact_vectors import ExactVectors
from kernel.search.term_index import TermIndex
from kernel.search.version_cache import VersionCache
from schemas.base import arrow_schema
from schemas.index import IndexSpec

log = logging.getLogger(__name__)
META_KEY = b"secplat.meta"
LOAD_ROWS = 250_000  # rows per write when loading a version (one fragment each)
EXACT_MAX_ROWS = 200_000  # a filtered kNN over at most this many rows is exact, from memory; beyond, the ANN
ANN_NPROBES, ANN_REFINE = 300, 40  # IVF partitions searched, candidates re-ranked exactly: recall@50 1.0 at 936k rows (bench.query --scale)
# A BM25 restricted to documents holding at most this many rows scores them from memory (term_index); beyond,
# Lance's full-text search with a prefilter
TERM_MAX_ROWS = 100_000
SERVING_WAIT_S = 0.2  # a warmed engine's wait for a new version's postings before searching with Lance
PRUNE_MARGIN = dt.timedelta(seconds=1)  # table versions this much older than the oldest kept one stay too
LIVE_RELEASE = "release.json"
_VERSION_NAME = re.compile(r"-v\d{17}$")  # a physical version (base.version_name), not an alias


class EmbeddedBackend(SearchBackend):
    kind = "embedded"

    def __init__(self, root: str | os.PathLike, prefix: str = "secplat", vector_index_min_rows: int = 200_000):
        import lancedb

        self.root = Path(root)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where the directory should be, no permission
            raise BackendError(f"search directory {self.root} cannot be used: {exc.strerror or exc}") from None
        self.prefix = prefix
        self.vector_index_min_rows = vector_index_min_rows
        # Check for newer table versions on every read: a nightly upsert is visible at once.
        self._db = lancedb.connect(str(self.root), read_consistency_interval=dt.timedelta(0))
        self._tables: dict[str, object] = {}
        self._vectors: dict[str, ExactVectors] = {}
        self._terms: dict[str, TermIndex] = {}  # table -> postings of its latest version built
        self._building: dict[str, tuple[int, threading.Thread]] = {}  # table -> (version, builder)
        self._terms_lock = threading.Lock()
        self._cache = VersionCache(self.root)  # vectors and postings per table version, for the next process
        self.term_wait: float | None = None  # seconds a query waits for a version's postings (None: until built)
        self._live: tuple[tuple, Release | None] = ((), None)  # (stat of release.json, its release)

    @classmethod
    def from_settings(cls, settings) -> EmbeddedBackend:
        return cls(settings.search_root(), settings.search_prefix, settings.vector_index_min_rows)

    # -- the publish lock
    @contextlib.contextmanager
    def publish_lock(self):
        """An exclusive flock on ``.publish.lock`` under the engine's directory, holding the owner's host, pid
        and start time. The kernel drops the lock when its process dies (SIGKILL included), so a dead
        publisher never blocks the next one."""
        path = self.root / ".publish.lock"
        with open(path, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                try:
                    owner = json.loads(fh.read() or "{}")
                except ValueError:
                    owner = {}
                raise PublisherBusy(busy_message(owner)) from None
            fh.seek(0)
            fh.truncate()
            fh.write(json.dumps(lock_owner()))
            fh.flush()
            try:
                yield
            finally:
                fh.seek(0)
                fh.truncate()
                fcntl.flock(fh, fcntl.LOCK_UN)

    # -- releases
    @contextlib.contextmanager
    def _release_lock(self):
        with open(self.root / ".release.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def live_release(self) -> Release | None:
        """``release.json``, re-read only when its file changed (one ``stat`` per call: a reader asks once
        per query). A store written before releases existed is served from its ``aliases.json``."""
        path = self.root / LIVE_RELEASE
        try:
            st = path.stat()
        except FileNotFoundError:
            return self._legacy_release()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        cached_key, cached = self._live
        if key == cached_key:
            return cached
        try:
            release = Release.from_json(json.loads(path.read_bytes()))
        except FileNotFoundError:  # replaced between stat and read: ask again
            return self.live_release()
        self._live = (key, release)
        return release

    def _legacy_release(self) -> Release | None:
        try:
            aliases = json.loads((self.root / "aliases.json").read_text())
        except FileNotFoundError:
            return None
        prefix = self.prefix + "-"
        targets = {a[len(prefix):]: self.pin(p) for a, p in aliases.items()
                   if a.startswith(prefix) and p in self._table_names()}
        return Release(LEGACY_RELEASE, "", targets) if targets else None

    def releases(self) -> list[Release]:
        out = []
        for path in sorted((self.root / "releases").glob("r*.json")):
            try:
                out.append(Release.from_json(json.loads(path.read_bytes())))
            except (OSError, ValueError) as exc:
                log.warning("unreadable release record %s: %s", path.name, exc)
        live = self.live_release()
        if live is not None and all(r.id != live.id for r in out):
            out.append(live)
        return sorted(out, key=lambda r: r.id)

    def commit_release(self, release: Release) -> None:
        """Write the release's record, then replace ``release.json`` by one rename: the atomic step."""
        missing = [t for t in release.targets.values() if physical_of(t) not in self._table_names()]
        if missing:
            raise BackendError(f"release {release.id}: no index version {', '.join(missing)}")
        body = json.dumps(release.to_json(), indent=1, sort_keys=True).encode()
        (self.root / "releases").mkdir(exist_ok=True)
        with self._release_lock():
            _write_atomic(self.root / "releases" / f"{release.id}.json", body)
            _write_atomic(self.root / LIVE_RELEASE, body)

    def drop_release(self, release_id: str) -> None:
        live = self.live_release()
        if live is not None and live.id == release_id:
            raise BackendError(f"release {release_id} is live")
        (self.root / "releases" / f"{release_id}.json").unlink(missing_ok=True)

    def pin(self, physical: str) -> str:
        return f"{physical}@{self._table(physical).version}"

    def writable(self, target: str, spec: IndexSpec, meta: dict) -> str:
        """The target's own table, its latest version made the target's: a publish killed after writing,
        or a rollback, leaves newer table versions that no release serves; they are undone (a Lance restore,
        one commit) before the upsert builds on top."""
        physical, _, version = target.partition("@")
        table = self._table(physical)
        if version and table.version != int(version):
            log.info("%s: table version %s is not the live release's %s: restored", physical, table.version, version)
            table.restore(int(version))
            faults.point(f"engine:restored {spec.name}")
        return physical

    def retain(self, targets: set[str]) -> None:
        for cache in (self._tables, self._vectors, self._terms):
            for key in [k for k in cache if "@" in k and k not in targets]:
                cache.pop(key, None)

    def prune(self, keep: set[str]) -> None:
        """Remove table versions older than the oldest one a kept release reads (the latest stays anyway)."""
        oldest: dict[str, int] = {}
        for target in keep:
            physical, _, version = target.partition("@")
            if version:
                oldest[physical] = min(oldest.get(physical, int(version)), int(version))
        for physical, version in oldest.items():
            table = self._table(physical)
            stamps = {v["version"]: v["timestamp"] for v in table.list_versions()}
            if version not in stamps or min(stamps) >= version:
                continue
            when = stamps[version]
            now = dt.datetime.now(when.tzinfo) if when.tzinfo else dt.datetime.now()
            table.optimize(cleanup_older_than=max(now - when + PRUNE_MARGIN, PRUNE_MARGIN))

    # -- versions
    def _table_names(self) -> list[str]:
        return list(self._db.table_names(limit=100_000)) if _takes_limit(self._db) else list(self._db.table_names())

    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        name = version_name(self.prefix, spec.name)
        while name in self._table_names():  # two versions in the same millisecond
            name = version_name(self.prefix, spec.name, dt.datetime.now(dt.UTC) + dt.timedelta(milliseconds=1))
        schema = _lance_schema(spec, dims)
        meta = {**meta, "index": spec.name, "dims": dims, "created": dt.datetime.now(dt.UTC).isoformat()}
        schema = schema.with_metadata({META_KEY: json.dumps(meta).encode()})
        self._db.create_table(name, schema=schema)
        return name

    def versions(self, spec: IndexSpec, counts: bool = True) -> list[VersionInfo]:
        alias = alias_name(self.prefix, spec.name)
        live = self.alias_target(alias)
        out = []
        for name in sorted(self._table_names()):
            if not name.startswith(alias + "-v"):
                continue
            table = self._table(name)
            meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
            out.append(VersionInfo(name, spec.name, meta.get("created", ""), table.count_rows() if counts else None,
                                   name == live, meta))
        return out

    def drop(self, physical: str) -> None:
        for cache in (self._tables, self._vectors, self._terms, self._building):
            for key in [k for k in cache if physical_of(k) == physical]:
                cache.pop(key, None)
        self._db.drop_table(physical)
        self._cache.drop(physical)

    def _resolve(self, target: str) -> str:
        """An alias as the live release's target for it; any other target as it is."""
        if "@" in target or _VERSION_NAME.search(target):
            return target
        release = self.live_release()
        index = target[len(self.prefix) + 1:]
        if release is None or index not in release.targets:
            raise BackendError(f"no index or alias {target!r}")
        return release.targets[index]

    def _writable_table(self, target: str):
        """The latest version of the table a target names (writes never go to a pinned table version)."""
        return self._table(physical_of(self._resolve(target)))

    def _table(self, target: str):
        """A table to read: ``<table>@<n>`` that table version (read-only), a table name its latest
        version, an alias what the live release serves."""
        target = self._resolve(target)
        table = self._tables.get(target)
        if table is None:
            physical, _, version = target.partition("@")
            try:
                table = self._db.open_table(physical)
                if version:
                    table.checkout(int(version))
            except (FileNotFoundError, ValueError) as exc:
                raise BackendError(f"no index or alias {target!r}") from exc
            self._tables[target] = table
        return table

    # -- data
    def load(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch]) -> int:
        table = self._writable_table(target)
        schema = _without_meta(table.schema)
        written, pending, rows = 0, [], 0
        for batch in batches:  # few large writes: each write is a fragment, and a take or search pays per fragment
            data = _conform(batch, schema)
            pending.append(data)
            rows += data.num_rows
            if rows >= LOAD_ROWS:
                written += self._add(table, pending)
                pending, rows = [], 0
        written += self._add(table, pending)
        faults.point(f"engine:rows added {spec.name}")
        self._build_indexes(table, spec)
        if table.count_rows() != written:
            raise BackendError(f"{target}: {table.count_rows()} rows after loading {written}")
        return written

    def _add(self, table, tables: list[pa.Table]) -> int:
        data = pa.concat_tables(tables) if tables else None
        if data is None or not data.num_rows:
            return 0
        table.add(data)
        return data.num_rows

    def _build_indexes(self, table, spec: IndexSpec) -> None:
        for field in spec.text_fields:
            table.create_fts_index(field, replace=True, with_position=False, stem=True, remove_stop_words=True,
                                   ascii_folding=True, max_token_length=MAX_TOKEN)  # as term_index tokenizes
        for field in {spec.id_field, spec.doc_field} - {None}:
            table.create_scalar_index(field, replace=True)
        rows = table.count_rows()
        if spec.has_vector and rows >= self.vector_index_min_rows:
            table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                               replace=True)

    def upsert(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch],
               replace_docs: Sequence[str] = ()) -> int:
        from lancedb.expr import col, lit

        table = self._writable_table(target)
        schema = _without_meta(table.schema)
        data = pa.concat_tables([_conform(b, schema) for b in batches] or [schema.empty_table()])
        if not data.num_rows and not replace_docs:
            return 0
        merge = table.merge_insert(spec.id_field).when_matched_update_all().when_not_matched_insert_all()
        if replace_docs:
            if not spec.doc_field:
                raise BackendError(f"{spec.name} has no document field to replace by")
            merge = merge.when_not_matched_by_source_delete(col(spec.doc_field).isin([lit(d) for d in replace_docs]))
        merge.execute(data)  # one commit: inserts, updates and deletes together
        faults.point(f"engine:upserted {spec.name}")
        self._compact(table)
        return data.num_rows

    def _compact(self, table) -> None:
        """Fold new rows into the indexes. Old table versions stay: a release may read them (``prune``
        removes them once no kept release does)."""
        table.optimize()

    def delete(self, target: str, spec: IndexSpec, ids: Sequence[str] = (), doc_ids: Sequence[str] = ()) -> int:
        from lancedb.expr import col, lit

        table = self._writable_table(target)
        before = table.count_rows()
        conditions = []
        if ids:
            conditions.append(col(spec.id_field).isin([lit(i) for i in ids]))
        if doc_ids:
            conditions.append(col(spec.doc_field).isin([lit(d) for d in doc_ids]))
        if not conditions:
            return 0
        condition = conditions[0] if len(conditions) == 1 else conditions[0] | conditions[1]
        table.delete(condition)
        self._compact(table)
        return before - table.count_rows()

    def count(self, target: str) -> int:
        return self._table(target).count_rows()

    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        table = self._table(target).to_arrow()  # a field an older version lacks is left out of its rows
        return table.select([f for f in fields if f in table.schema.names]).to_pylist()

    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        from lancedb.expr import col, lit

        if not ids:
            return []
        table = self._table(target)
        exact = self._exact_vectors(table, spec) if spec.has_vector else None
        if exact is not None:  # by row id: reads those rows only
            rows = self._take(table, exact.rows_of(ids))
        else:
            rows = (table.search().where(col(spec.id_field).isin([lit(i) for i in ids]))
                    .select(_columns(table)).limit(len(ids)).to_arrow().to_pylist())
        order = {i: n for n, i in enumerate(ids)}
        return sorted(rows, key=lambda r: order.get(r[spec.id_field], len(order)))

    def _take(self, table, row_ids: list[int]) -> list[dict]:
        return table.take_row_ids(row_ids).select(_columns(table)).to_arrow().to_pylist() if row_ids else []

    # -- search
    def _where(self, spec: IndexSpec, filters: Filters | None):
        from lancedb.expr import col, lit

        expr = None
        for name, values in check_filters(spec, filters).items():
            term = col(name) == lit(values[0]) if len(values) == 1 else col(name).isin([lit(v) for v in values])
            expr = term if expr is None else expr & term
        return expr

    def bm25(self, target: str, spec: IndexSpec, text: str, filters: Filters | None = None, k: int = 10,
             fields: Sequence[str] | None = None) -> list[Hit]:
        from lancedb.query import BooleanQuery, MatchQuery, Occur

        if not text.strip():
            return []
        table = self._table(target)
        fields = tuple(fields or spec.text_fields)
        checked = check_filters(spec, filters)
        if spec.doc_field in checked and spec.has_vector:  # within documents: their rows, not the corpus
            exact = self._exact_vectors(table, spec)
            rows = exact.candidates(checked)
            terms = self._term_index(table, spec, exact) if len(rows) <= TERM_MAX_ROWS else None
            if terms is not None:
                found = terms.search(text, {f: spec.boost(f) for f in fields}, rows, k)
                taken = {r[spec.id_field]: r for r in self._take(table, [int(exact.row_ids[p]) for p, _ in found])}
                ids = [str(exact.ids[p]) for p, _ in found]
                return [Hit(i, score, taken[i]) for i, (_, score) in zip(ids, found, strict=True) if i in taken]
        # the fields' scores summed (SHOULD clauses), each times the spec's boost for it
        match = BooleanQuery([(Occur.SHOULD, MatchQuery(text, f, boost=spec.boost(f))) for f in fields])
        query = table.search(match, query_type="fts")
        where = self._where(spec, filters)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select([*_columns(table), "_score"]).limit(k).to_arrow().to_pylist()
        return [Hit(r[spec.id_field], float(r.pop("_score")), r) for r in rows]

    def _term_index(self, table, spec: IndexSpec, exact: ExactVectors) -> TermIndex | None:
        """The row-term postings of the table's current version, built once per version on a background
        thread. The caller waits ``term_wait`` seconds for them (None: until built); None when they are not
        ready by then, and the caller searches with Lance meanwhile: a new version never stalls a server."""
        key = _key(table)
        cached = self._terms.get(key)
        if cached is not None and cached.version == exact.version:
            return cached
        with self._terms_lock:
            version, thread = self._building.get(key, (None, None))
            if version != exact.version or thread is None:
                thread = threading.Thread(target=self._build_terms, args=(table, spec, exact, key), daemon=True,
                                          name=f"term-index {key}")
                self._building[key] = (exact.version, thread)
                thread.start()
        thread.join(self.term_wait)
        cached = self._terms.get(key)
        return cached if cached is not None and cached.version == exact.version else None

    def _build_terms(self, table, spec: IndexSpec, exact: ExactVectors, key: str) -> None:
        try:
            cached = self._cache.load(table.name, exact.version, "terms")
            built = TermIndex(table, exact, spec.text_fields, cached)
            if cached is None:
                self._cache.save(table.name, exact.version, "terms", *built.arrays())
        except Exception as exc:  # the Lance path keeps serving; the next query tries again
            log.warning("%s: row-term postings not built (%s); full-text search serves", table.name, exc)
            with self._terms_lock:
                self._building.pop(key, None)
            return
        with self._terms_lock:
            if self._building.get(key, (None,))[0] == built.version:
                self._terms[key] = built

    def warm(self, target: str, spec: IndexSpec) -> None:
        """Load what document-restricted searches of ``target`` read from memory (vectors, row-term
        postings), waiting until done: a server calls it before taking traffic, a benchmark before timing.
        From then on a newer version's postings are built in the background while Lance serves (a query
        waits at most ``SERVING_WAIT_S`` for them), so a nightly publish never stalls a server."""
        if not spec.has_vector:
            return
        table = self._table(target)
        exact = self._exact_vectors(table, spec)
        if spec.doc_field:
            self.term_wait = None
            self._term_index(table, spec, exact)
        self.term_wait = SERVING_WAIT_S

    def knn(self, target: str, spec: IndexSpec, vector: Sequence[float], filters: Filters | None = None,
            k: int = 10) -> list[Hit]:
        table = self._table(target)
        exact = self._exact_vectors(table, spec)
        big = table.count_rows() >= self.vector_index_min_rows  # the table has an ANN index
        found = exact.search(vector, check_filters(spec, filters), k, EXACT_MAX_ROWS if big else None)
        if found is not None:  # exact, from memory: every row of a few documents, or a small table
            rows = {r[spec.id_field]: r for r in self._take(table, [rid for _, _, rid in found])}
            return [Hit(i, score, rows[i]) for i, score, _ in found if i in rows]
        query = (table.search(np.asarray(vector, dtype=np.float32), query_type="vector", vector_column_name="vector")
                 .distance_type("cosine").nprobes(ANN_NPROBES).refine_factor(ANN_REFINE))
        where = self._where(spec, filters)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select([*_columns(table), "_distance"]).limit(k).to_arrow().to_pylist()
        return [Hit(r[spec.id_field], 1.0 - float(r.pop("_distance")), r) for r in rows]

    def _exact_vectors(self, table, spec: IndexSpec) -> ExactVectors:
        """The in-memory vectors of the table's current version (loaded once per version)."""
        key = _key(table)
        cached = self._vectors.get(key)
        if cached is not None and cached.version == table.version:
            return cached
        self._vectors.pop(key, None)
        version = table.version
        stored = self._cache.load(table.name, version, "vectors")
        exact = ExactVectors(table, spec.id_field, stored[0] if stored else None)
        if stored is not None and exact.version != version:  # the table moved on meanwhile: read it
            exact = ExactVectors(table, spec.id_field)
        elif stored is None and exact.version == version:
            self._cache.save(table.name, version, "vectors", exact.arrays(), {"rows": len(exact.ids)})
        self._vectors[_key(table)] = exact
        return exact


def _key(table) -> str:
    """Caches are per table version: ``<table>@<n>``."""
    return f"{table.name}@{table.version}"


def _write_atomic(path: Path, body: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _takes_limit(db) -> bool:
    import inspect

    return "limit" in inspect.signature(db.table_names).parameters


def _lance_schema(spec: IndexSpec, dims: int | None) -> pa.Schema:
    """The dataset's Arrow schema with the vector as a fixed-size list (what Lance's vector search needs)."""
    schema = arrow_schema(spec.model)
    if spec.has_vector:
        if not dims:
            raise BackendError(f"{spec.name}: a vector index needs its dimension")
        i = schema.get_field_index("vector")
        schema = schema.set(i, pa.field("vector", pa.list_(pa.float32(), dims), nullable=False))
    return schema.remove_metadata()


def _without_meta(schema: pa.Schema) -> pa.Schema:
    return schema.remove_metadata()


def _conform(batch: pa.RecordBatch | pa.Table, schema: pa.Schema) -> pa.Table:
    """A batch in the table's column order and types; a vector of the wrong width is an error."""
    table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
    missing = [n for n in schema.names if n not in table.column_names]
    if missing:
        raise BackendError(f"rows lack column(s) {missing}")
    table = table.select(schema.names)
    try:
        return table.cast(schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise BackendError(f"rows do not fit the index schema: {exc}") from exc


def _columns(table) -> list[str]:
    return [n for n in table.schema.names if n != "vector"]
