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
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from domain.text import MAX_TOKEN
from kernel import faults
from kernel.clock import utc_now
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
    fuse,
    lock_owner,
    physical_of,
    version_name,
)
from kernel.search.embedded.fragment_cache import FragmentCache
from kernel.search.embedded.version_cache import VersionCache
from kernel.storage import file_mode
from schemas.base import META_KEY, arrow_schema
from schemas.index import IndexSpec

log = logging.getLogger(__name__)
_META = META_KEY.encode()  # a Lance table's schema metadata entry: the same key as an Elasticsearch mapping's _meta
_META_BEFORE = b"secplat.meta"  # the entry's key in tables written before it was that one (read only)
FRAGMENT_ROWS = 1024 * 1024  # rows per fragment a load writes: Lance's compaction target, so compaction leaves them be
# Upkeep after an upsert or delete, both bounded by what changed since the last: new rows are folded into the
# indexes (Lance searches unindexed rows flat until then) once this many wait; small fragments (nightly
# upserts) are merged once this many exist, and a fragment is rewritten once this share of its rows is deleted.
INDEX_DEBT_ROWS = 100_000
SMALL_FRAGMENTS = 16
REWRITE_DELETED = 0.5
EXACT_MAX_ROWS = 200_000  # a filtered kNN over at most this many rows is exact, from memory; beyond, the ANN
ANN_NPROBES, ANN_REFINE = 300, 40  # IVF partitions searched, candidates re-ranked exactly: recall@50 1.0 at 936k rows (bench.query --scale)
# A BM25 restricted to documents holding at most this many rows scores them from memory (fragment_bm25); beyond,
# Lance's full-text search with a prefilter
TERM_MAX_ROWS = 100_000
PRUNE_MARGIN = dt.timedelta(seconds=1)  # table versions this much older than the oldest kept one stay too
CHANGES_MAX_SHARE = 0.2  # a release that changed more of a table than this is read whole by its readers
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
        self.versions_cache = VersionCache(FragmentCache(self.root))  # per-fragment pieces, shared by versions and processes
        self._column_names: dict[str, list[str]] = {}  # <table>@<version> -> its columns but the vector
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
        return f"{physical}@{self.table(physical).version}"

    def writable(self, target: str, spec: IndexSpec, meta: dict) -> str:
        """The target's own table, its latest version made the target's: a publish killed after writing,
        or a rollback, leaves newer table versions that no release serves; they are undone (a Lance restore,
        one commit) before the upsert builds on top."""
        physical, _, version = target.partition("@")
        table = self.table(physical)
        if version and table.version != int(version):
            log.info("%s: table version %s is not the live release's %s: restored", physical, table.version, version)
            table.restore(int(version))
            faults.point(f"engine:restored {spec.name}")
        return physical

    def sweep(self) -> list[str]:
        return self.versions_cache.store.sweep()

    def retain(self, targets: set[str]) -> None:
        for cache in (self._tables, self._column_names):
            for key in [k for k in cache if "@" in k and k not in targets]:
                cache.pop(key, None)
        self.versions_cache.retain(targets)

    def prune(self, keep: set[str]) -> None:
        """Remove table versions older than the oldest one a kept release reads (the latest stays anyway)."""
        oldest: dict[str, int] = {}
        for target in keep:
            physical, _, version = target.partition("@")
            if version:
                oldest[physical] = min(oldest.get(physical, int(version)), int(version))
        for physical, version in oldest.items():
            table = self.table(physical)
            stamps = {v["version"]: v["timestamp"] for v in table.list_versions()}
            if version not in stamps or min(stamps) >= version:
                continue
            when = stamps[version]
            now = dt.datetime.now(when.tzinfo) if when.tzinfo else dt.datetime.now()
            table.to_lance().cleanup_old_versions(older_than=max(now - when + PRUNE_MARGIN, PRUNE_MARGIN))
        self._keep_pieces(keep)

    def _keep_pieces(self, keep: set[str]) -> None:
        """Drop the stored pieces of fragments that neither a kept release nor a table's latest version holds."""
        tables: dict[str, set[int]] = {}
        for target in {*keep, *(physical_of(t) for t in keep)}:
            try:
                fragments = self.table(target).to_lance().get_fragments()
            except BackendError:
                continue
            tables.setdefault(physical_of(target), set()).update(f.fragment_id for f in fragments)
        for table, fragments in tables.items():
            self.versions_cache.store.keep(table, fragments)

    # -- versions
    def _table_names(self) -> list[str]:
        return list(self._db.table_names(limit=100_000)) if _takes_limit(self._db) else list(self._db.table_names())

    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        name = version_name(self.prefix, spec.name)
        while name in self._table_names():  # two versions in the same millisecond
            name = version_name(self.prefix, spec.name, utc_now() + dt.timedelta(milliseconds=1))
        schema = _lance_schema(spec, dims)
        meta = {**meta, "index": spec.name, "dims": dims, "created": utc_now().isoformat()}
        schema = schema.with_metadata({_META: json.dumps(meta).encode()})
        self._db.create_table(name, schema=schema)
        return name

    def versions(self, spec: IndexSpec, counts: bool = True) -> list[VersionInfo]:
        alias = alias_name(self.prefix, spec.name)
        live = self.alias_target(alias)
        out = []
        for name in sorted(self._table_names()):
            if not name.startswith(alias + "-v"):
                continue
            table = self.table(name)
            meta = table_meta(table.schema)
            out.append(VersionInfo(name, spec.name, meta.get("created", ""), table.count_rows() if counts else None,
                                   name == live, meta))
        return out

    def drop(self, physical: str) -> None:
        for cache in (self._tables, self._column_names):
            for key in [k for k in cache if physical_of(k) == physical]:
                cache.pop(key, None)
        self._db.drop_table(physical)
        self.versions_cache.drop(physical)

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
        return self.table(physical_of(self._resolve(target)))

    def table(self, target: str):
        """The Lance table a target reads: ``<table>@<n>`` that table version (read-only), a table name its
        latest version, an alias what the live release serves. Public for the tools that read a version whole
        (the scale benchmark copies one; the query benchmark reads its row count)."""
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
        """One streamed write: Lance cuts it into fragments of ``FRAGMENT_ROWS`` (a take or search pays per
        fragment, and compaction leaves full ones alone), never holding more than a batch."""
        table = self._writable_table(target)
        schema = _without_meta(table.schema)
        written = 0

        def conformed():
            nonlocal written
            for batch in batches:
                for part in _conform(batch, schema).to_batches():
                    written += part.num_rows
                    yield part

        table.add(pa.RecordBatchReader.from_batches(schema, conformed()))
        faults.point(f"engine:rows added {spec.name}")
        self._build_indexes(table, spec)
        if table.count_rows() != written:
            raise BackendError(f"{target}: {table.count_rows()} rows after loading {written}")
        return written

    def _build_indexes(self, table, spec: IndexSpec) -> None:
        for field in spec.text_fields:
            table.create_fts_index(field, replace=True, with_position=False, stem=True, remove_stop_words=True,
                                   ascii_folding=True, max_token_length=MAX_TOKEN)  # as fragment_bm25 tokenizes
        for field in {spec.id_field, spec.doc_field} - {None}:
            table.create_scalar_index(field, replace=True)
        rows = table.count_rows()
        if spec.has_vector and rows >= self.vector_index_min_rows:
            table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                               replace=True)

    def upsert(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch],
               replace_docs: Sequence[str] = ()) -> int:
        """The replaced documents' rows (and rows of the new ids elsewhere) deleted, then the new rows added:
        two commits, a deletion file per fragment touched and one new fragment, each costing what changed.
        (Lance's merge-insert with a delete of unmatched rows joins the whole table in memory: 24 GB at 9
        million passages.) Readers are pinned to their release's table version, so the commit between is
        never served, and a publish killed there is undone by the next one's ``writable``."""
        from lancedb.expr import col, lit

        table = self._writable_table(target)
        schema = _without_meta(table.schema)
        data = pa.concat_tables([_conform(b, schema) for b in batches] or [schema.empty_table()])
        if not data.num_rows and not replace_docs:
            return 0
        if replace_docs and not spec.doc_field:
            raise BackendError(f"{spec.name} has no document field to replace by")
        replaced = set(replace_docs)
        elsewhere = [i for i, d in zip(data.column(spec.id_field).to_pylist(), data.column(spec.doc_field).to_pylist()
                                       if spec.doc_field else [None] * data.num_rows, strict=True)
                     if d not in replaced]
        conditions = ([col(spec.doc_field).isin([lit(d) for d in sorted(replaced)])] if replaced else []) + \
            ([col(spec.id_field).isin([lit(i) for i in elsewhere])] if elsewhere else [])
        if conditions:
            table.delete(conditions[0] if len(conditions) == 1 else conditions[0] | conditions[1])
            faults.point(f"engine:replaced rows deleted {spec.name}")
        if data.num_rows:
            table.add(data)
        faults.point(f"engine:upserted {spec.name}")
        self._upkeep(table)
        return data.num_rows

    def _upkeep(self, table) -> None:
        """Merge small fragments and fold unindexed rows into the indexes when enough wait (the constants
        above), so a nightly upsert rewrites nothing it did not change and its new fragment is all a server
        maps in. Old table versions stay: a release may read them (``prune`` removes them once none does)."""
        small = [f for f in table.to_lance().get_fragments() if f.metadata.physical_rows < FRAGMENT_ROWS // 4]
        if len(small) >= SMALL_FRAGMENTS:
            table.to_lance().optimize.compact_files(target_rows_per_fragment=FRAGMENT_ROWS,
                                                    materialize_deletions_threshold=REWRITE_DELETED)
            table.checkout_latest()
        if max((table.index_stats(i.name).num_unindexed_rows for i in table.list_indices()), default=0) \
                >= INDEX_DEBT_ROWS:
            table.to_lance().optimize.optimize_indices()
            table.checkout_latest()

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
        self._upkeep(table)
        return before - table.count_rows()

    def count(self, target: str) -> int:
        return self.table(target).count_rows()

    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        table = self.table(target)  # a field an older version lacks is left out of its rows
        names = [f for f in fields if f in table.schema.names]
        return table.to_lance().to_table(columns=names).to_pylist()  # those columns only: never the vectors

    def changes(self, before: str, after: str, spec: IndexSpec,
                fields: Sequence[str]) -> tuple[list[str], list[dict]] | None:
        """Between two versions of one table, from their views: the rows of fragments only ``after`` holds
        are new, the rows it deleted (or whose fragment it no longer holds) are gone. None for two tables,
        or when more than ``CHANGES_MAX_SHARE`` of the rows changed (reading ``after`` whole is cheaper)."""
        if physical_of(before) != physical_of(after) or not spec.has_vector:
            return None
        (old_table, old_key), (table, key) = self._opened(before), self._opened(after)
        old, new = self.versions_cache.view(old_table, spec, old_key), self.versions_cache.view(table, spec, key)
        kept = {p.fragment: n for n, p in enumerate(old.pieces)}
        added, removed = [], []
        for n, piece in enumerate(new.pieces):
            was = kept.pop(piece.fragment, None)
            if was is None:
                added += new.row_ids_at(new.base[n] + new.live(n, np.arange(piece.rows))).tolist()
            else:
                gone = np.setdiff1d(new.deleted[n], old.deleted[was])
                removed += [i.decode() for i in piece.ids[gone]]
        for n in kept.values():
            piece = old.pieces[n]
            removed += [i.decode() for i in piece.ids[old.live(n, np.arange(piece.rows))]]
        if len(added) + len(removed) > CHANGES_MAX_SHARE * max(new.live_rows, 1):
            return None
        columns = [f for f in fields if f in self._columns(table, key)]
        rows = table.take_row_ids(sorted(added)).select(columns).to_arrow().to_pylist() if added else []
        return removed, rows

    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        from lancedb.expr import col, lit

        if not ids:
            return []
        table, key = self._opened(target)
        if spec.has_vector:  # by row address: reads those rows only
            rows = self._take(table, key, self.versions_cache.view(table, spec, key).rows_of(ids))
        else:
            rows = (table.search().where(col(spec.id_field).isin([lit(i) for i in ids]))
                    .select(self._columns(table, key)).limit(len(ids)).to_arrow().to_pylist())
        order = {i: n for n, i in enumerate(ids)}
        return sorted(rows, key=lambda r: order.get(r[spec.id_field], len(order)))

    def _opened(self, target: str) -> tuple[object, str]:
        """The table a target reads and its ``<table>@<version>`` key (a release's pinned target is its own
        key: no Lance call to ask the version)."""
        table = self.table(target)
        resolved = self._resolve(target)
        return table, resolved if "@" in resolved else f"{table.name}@{table.version}"

    def _columns(self, table, key: str) -> list[str]:
        """The table version's columns but the vector (read once per version)."""
        columns = self._column_names.get(key)
        if columns is None:
            columns = self._column_names[key] = [n for n in table.schema.names if n != "vector"]
        return columns

    def _take(self, table, key: str, row_ids: list[int]) -> list[dict]:
        if not row_ids:
            return []
        return table.take_row_ids(row_ids).select(self._columns(table, key)).to_arrow().to_pylist()

    def _found(self, table, key: str, spec: IndexSpec, found: list[tuple[str, float, int]]) -> list[Hit]:
        """Hits of (id, score, row address) with their rows, read in one take."""
        rows = {r[spec.id_field]: r for r in self._take(table, key, [a for _, _, a in found])}
        return [Hit(i, score, rows[i]) for i, score, _ in found if i in rows]

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
        table, key = self._opened(target)
        fields = tuple(fields or spec.text_fields)
        found = self._bm25_in_memory(table, key, spec, text, check_filters(spec, filters), k, fields)
        if found is not None:
            return self._found(table, key, spec, found)
        # the fields' scores summed (SHOULD clauses), each times the spec's boost for it
        match = BooleanQuery([(Occur.SHOULD, MatchQuery(text, f, boost=spec.boost(f))) for f in fields])
        query = table.search(match, query_type="fts")
        where = self._where(spec, filters)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select([*self._columns(table, key), "_score"]).limit(k).to_arrow().to_pylist()
        return [Hit(r[spec.id_field], float(r.pop("_score")), r) for r in rows]

    def _bm25_in_memory(self, table, key: str, spec: IndexSpec, text: str, checked: dict, k: int,
                        fields: Sequence[str]) -> list[tuple[str, float, int]] | None:
        """(id, score, row address) of BM25 within documents, from the view; None where Lance's full-text
        search serves (no document filter, or more rows than ``TERM_MAX_ROWS``)."""
        if spec.doc_field not in checked or not spec.has_vector:
            return None
        view = self.versions_cache.view(table, spec, key)
        rows = view.candidates(checked)
        if len(rows) > TERM_MAX_ROWS:
            return None
        found = view.bm25(self.versions_cache.vocabulary.tokens(text), {f: spec.boost(f) for f in fields}, rows, k)
        positions = np.asarray([p for p, _ in found], dtype=np.int64)
        return [(i.decode(), score, int(a)) for i, (_, score), a in
                zip(view.ids_at(positions), found, view.row_ids_at(positions), strict=True)]

    def _knn_in_memory(self, table, key: str, spec: IndexSpec, vector: Sequence[float], checked: dict,
                       k: int) -> list[tuple[str, float, int]] | None:
        """(id, cosine, row address) of exact kNN from the view; None where the ANN index serves (a table
        past ``vector_index_min_rows``, searched over more than ``EXACT_MAX_ROWS`` rows)."""
        view = self.versions_cache.view(table, spec, key)
        big = view.live_rows >= self.vector_index_min_rows  # the table has an ANN index
        return view.search(vector, checked, k, EXACT_MAX_ROWS if big else None)

    def hybrid(self, target: str, spec: IndexSpec, text: str, vector: Sequence[float],
               filters: Filters | None = None, k: int = 10, fusion: str = "rrf", dense_weight: float = 0.5,
               window: int | None = None) -> list[Hit]:
        """As every engine's (``SearchBackend.hybrid``), but where both lists come from memory they are fused
        on ids and only the ``k`` rows kept are read from Lance."""
        window = window or max(50, 2 * k)
        table, key = self._opened(target)
        checked = check_filters(spec, filters)
        lexical = self._bm25_in_memory(table, key, spec, text, checked, window, spec.text_fields) \
            if text.strip() else []
        dense = self._knn_in_memory(table, key, spec, vector, checked, window) if spec.has_vector else None
        if lexical is None or dense is None:
            return super().hybrid(target, spec, text, vector, filters, k, fusion, dense_weight, window)
        address = {i: a for i, _, a in [*lexical, *dense]}
        fused = fuse([Hit(i, s, None) for i, s, _ in lexical], [Hit(i, s, None) for i, s, _ in dense], fusion,
                     dense_weight)[:k]
        return self._found(table, key, spec, [(h.id, h.score, address[h.id]) for h in fused])

    def warm(self, target: str, spec: IndexSpec) -> None:
        """Map what document-restricted searches of ``target`` read from memory (its fragments' pieces,
        computed and stored where missing): a publisher calls it before the release goes live, a server
        before taking traffic, a benchmark before timing."""
        if spec.has_vector:
            table, key = self._opened(target)
            self.versions_cache.view(table, spec, key)

    def knn(self, target: str, spec: IndexSpec, vector: Sequence[float], filters: Filters | None = None,
            k: int = 10) -> list[Hit]:
        table, key = self._opened(target)
        found = self._knn_in_memory(table, key, spec, vector, check_filters(spec, filters), k)
        if found is not None:  # exact, from memory: every row of a few documents, or a small table
            return self._found(table, key, spec, found)
        query = (table.search(np.asarray(vector, dtype=np.float32), query_type="vector", vector_column_name="vector")
                 .distance_type("cosine").nprobes(ANN_NPROBES).refine_factor(ANN_REFINE))
        where = self._where(spec, filters)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select([*self._columns(table, key), "_distance"]).limit(k).to_arrow().to_pylist()
        return [Hit(r[spec.id_field], 1.0 - float(r.pop("_distance")), r) for r in rows]


def _write_atomic(path: Path, body: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, file_mode())  # mkstemp's 0600 would hide the release from a server of another user
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


def table_meta(schema: pa.Schema) -> dict:
    """What a version's table says of itself (index, model, dims, creation time): its schema metadata entry."""
    found = schema.metadata or {}
    return json.loads(found.get(_META) or found.get(_META_BEFORE) or b"{}")
