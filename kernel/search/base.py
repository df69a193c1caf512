"""The backend interface every search engine implements, and the client-side score fusion.

Indexes are versioned: a logical index (``documents``, ``passages``, ...) is stored as physical versions
``<prefix>-<index>-v<stamp>``, and served through a :class:`Release`: one record naming, for every index,
the exact target a reader searches (a physical version; on the embedded engine with its table version,
``<physical>@<n>``). A publish loads or upserts into versions no reader is served from, then makes its
release live in one atomic step, so readers see the previous release whole or the new one whole. Filters are typed values on keyword/number/date fields, never query strings, so user
text cannot reach a query parser.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import socket
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from kernel.clock import utc_now
from kernel.storage import pid_alive
from schemas.index import IndexSpec

Scalar = str | int | bool | dt.date
Filters = Mapping[str, Scalar | Sequence[Scalar]]


class BackendError(RuntimeError):
    """A search backend refused an operation (bad filter, failed bulk load, unknown version, ...)."""


class FilterError(BackendError):
    """A filter names a field the index cannot filter on, or gives a value of the wrong type (the caller's
    input: a usage error, HTTP 422)."""


class NotPublished(BackendError):
    """A reader asked for an index the live release does not have (nothing published yet)."""


class PublisherBusy(BackendError):
    """Another publisher holds the backend's publish lock; the message names it."""


def lock_owner() -> dict:
    """Who takes a lock: host, process, since when (what a second caller is told)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "since": utc_now().isoformat()}


def holder_dead(owner: dict) -> bool:
    """A lock's holder is known dead: a process of this host that no longer runs (a kill -9, an OOM kill).
    A holder on another host is judged by its heartbeat alone."""
    if owner.get("host") != socket.gethostname() or not str(owner.get("pid", "")).isdigit():
        return False
    return not pid_alive(int(owner["pid"]), since=_seconds(owner.get("since")))


def _seconds(since: object) -> float | None:
    """A lock's ``since`` (ISO 8601) as seconds since the epoch; None when absent or unreadable."""
    try:
        return dt.datetime.fromisoformat(str(since)).timestamp() if since else None
    except ValueError:
        return None


def busy_message(owner: dict) -> str:
    return (f"another publisher holds the publish lock (host {owner.get('host')}, pid {owner.get('pid')}, since "
            f"{str(owner.get('since', '?'))[:19]}): publishing waits for it to finish; try again then")


@dataclass
class Hit:
    id: str
    score: float
    source: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Release:
    """What readers are served together: index name -> target (see the module docstring). ``parent`` is the
    release that was live when this one was made: rollback returns to it."""

    id: str
    created: str
    targets: dict[str, str]
    parent: str | None = None
    modes: dict[str, str] = field(default_factory=dict)  # index -> rebuild | upsert | unchanged

    def physical(self, index: str) -> str | None:
        target = self.targets.get(index)
        return physical_of(target) if target else None

    def to_json(self) -> dict:
        return {"id": self.id, "created": self.created, "targets": dict(sorted(self.targets.items())),
                "parent": self.parent, "modes": dict(sorted(self.modes.items()))}

    @classmethod
    def from_json(cls, data: dict) -> Release:
        return cls(str(data["id"]), str(data.get("created", "")), dict(data.get("targets") or {}),
                   data.get("parent"), dict(data.get("modes") or {}))


LEGACY_RELEASE = "r0-aliases"  # a store published before releases existed, served from its aliases
_LAST_RELEASE: list[str] = [""]


def _stamp(when: dt.datetime) -> str:
    """A UTC time to the millisecond as 17 sortable digits (version and release names)."""
    return f"{when.strftime('%Y%m%d%H%M%S')}{when.microsecond // 1000:03d}"


def release_id(when: dt.datetime | None = None) -> str:
    """``r<UTC stamp to the millisecond>``: sortable by creation, lower case, never repeated by a process."""
    when = when or utc_now()
    while True:
        rid = f"r{_stamp(when)}"
        if rid > _LAST_RELEASE[0]:
            _LAST_RELEASE[0] = rid
            return rid
        when += dt.timedelta(milliseconds=1)


def physical_of(target: str) -> str:
    """The physical version a target reads (``name@7`` -> ``name``)."""
    return target.split("@", 1)[0]


@dataclass
class VersionInfo:
    name: str
    index: str
    created: str
    count: int | None  # rows; None when the caller did not ask (versions(counts=False))
    live: bool
    meta: dict = field(default_factory=dict)


def version_name(prefix: str, index: str, when: dt.datetime | None = None) -> str:
    """``<prefix>-<index>-v<UTC stamp to the millisecond>``: sortable, lower case (Elasticsearch's rule)."""
    when = when or utc_now()
    return f"{alias_name(prefix, index)}-v{_stamp(when)}"


def alias_name(prefix: str, index: str) -> str:
    return f"{prefix}-{index}"


def filter_fields(spec: IndexSpec) -> set[str]:
    """Fields a filter may name: exact-valued ones (not analyzed text, vectors or maps)."""
    out = set()
    for name, info in spec.model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if "dims" in extra or extra.get("es") == "text" or typing.get_origin(info.annotation) is dict:
            continue
        out.add(name)
    return out


def field_kind(spec: IndexSpec, name: str) -> type | None:
    """The scalar type of a field (``int | None`` -> int), from the record schema; None when not scalar."""
    annotation = spec.model.model_fields[name].annotation
    args = typing.get_args(annotation) or (annotation,)
    kinds = [a for a in args if a in (bool, int, float, str, dt.date)]
    return kinds[0] if len(kinds) == 1 else None


def _coerce(name: str, kind: type | None, value: object) -> Scalar:
    """A filter value as the field's type (digits for an integer field, an ISO date for a date field), or
    FilterError naming the field and the type it wants."""
    if kind is None or isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        if not isinstance(value, (str, int, bool, dt.date)) or isinstance(value, float):
            raise FilterError(f"filter {name}: {value!r} is not a string, integer, boolean or date")
        return value  # type: ignore[return-value]
    text = value.strip() if isinstance(value, str) else None
    if kind is int and text is not None and text.lstrip("-").isdigit():
        return int(text)
    if kind is bool and text is not None and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind is dt.date and text is not None:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return value
    wanted = {int: "an integer", bool: "true or false", dt.date: "a date (YYYY-MM-DD)", str: "a string",
              float: "a number"}[kind]
    raise FilterError(f"filter {name}: {value!r} is not {wanted}")


def check_filters(spec: IndexSpec, filters: Filters | None) -> dict[str, list[Scalar]]:
    """Filters as field -> allowed values of the field's type, or FilterError naming the bad field or value."""
    allowed = filter_fields(spec)
    out: dict[str, list[Scalar]] = {}
    for name, value in (filters or {}).items():
        if name not in allowed:
            raise FilterError(f"cannot filter {spec.name} on {name!r}; filterable fields: {sorted(allowed)}")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        kind = field_kind(spec, name)
        values = [_coerce(name, kind, v) for v in values]
        if values:
            out[name] = values
    return out


class SearchReader(ABC):
    """What a reader of one search engine needs: follow the releases and search what they serve. The query
    side is typed against this part only. ``target`` arguments take an alias or a physical version name."""

    kind: str = "abstract"
    prefix: str = "secplat"

    @abstractmethod
    def live_release(self) -> Release | None:
        """The release readers are served now (None: nothing published). Cheap: a reader asks once per query."""

    @abstractmethod
    def versions(self, spec: IndexSpec, counts: bool = True) -> list[VersionInfo]:
        """Every physical version of an index, oldest first."""

    @abstractmethod
    def count(self, target: str) -> int:
        """Rows visible in the index."""

    @abstractmethod
    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        """Some fields of every row (small indexes only: the document catalog, the lexicon)."""

    def changes(self, before: str, after: str, spec: IndexSpec,
                fields: Sequence[str]) -> tuple[list[str], list[dict]] | None:
        """What ``after`` changed from ``before``: (ids of the rows it no longer holds, its new rows' ``fields``),
        or None where the engine cannot tell without reading both (callers then :meth:`scan` ``after``)."""
        return None

    @abstractmethod
    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        """Rows by id (without vectors)."""

    @abstractmethod
    def bm25(self, target: str, spec: IndexSpec, text: str, filters: Filters | None = None, k: int = 10,
             fields: Sequence[str] | None = None) -> list[Hit]:
        """Full-text (BM25) search over the spec's text fields; ``text`` is matched, never parsed."""

    @abstractmethod
    def knn(self, target: str, spec: IndexSpec, vector: Sequence[float], filters: Filters | None = None,
            k: int = 10) -> list[Hit]:
        """Nearest neighbours by cosine similarity (higher is closer)."""

    def hybrid(self, target: str, spec: IndexSpec, text: str, vector: Sequence[float],
               filters: Filters | None = None, k: int = 10, fusion: str = "rrf", dense_weight: float = 0.5,
               window: int | None = None) -> list[Hit]:
        """BM25 and kNN lists of ``window`` hits each, fused client-side (``rrf`` or ``minmax``, both weighted:
        ``dense_weight`` for the kNN list, the rest for BM25; 0.5 is plain RRF)."""
        window = window or max(50, 2 * k)
        lexical = self.bm25(target, spec, text, filters, window) if text.strip() else []
        dense = self.knn(target, spec, vector, filters, window)
        return fuse(lexical, dense, fusion, dense_weight)[:k]

    def warm(self, target: str, spec: IndexSpec) -> None:  # noqa: B027 - optional hook
        """Load what searches of ``target`` keep in memory before the first query (a server engine: nothing)."""

    def retain(self, targets: set[str]) -> None:  # noqa: B027 - optional hook
        """Free what reads of targets outside ``targets`` keep in memory (a reader moved to a new release)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


class SearchBackend(SearchReader):
    """One search engine whole: the reader's part and what the publisher needs besides (versions, writes,
    releases, the publish lock). Each engine implements this; only the publish stage writes."""

    # -- releases
    @abstractmethod
    def releases(self) -> list[Release]:
        """Every kept release, oldest first."""

    @abstractmethod
    def commit_release(self, release: Release) -> None:
        """Make ``release`` live in one atomic step (every target must exist)."""

    @abstractmethod
    def drop_release(self, release_id: str) -> None:
        """Forget a release that is not live (retention)."""

    @abstractmethod
    def pin(self, physical: str) -> str:
        """The target that reads ``physical`` as it is now, unaffected by later writes to it."""

    def writable(self, target: str, spec: IndexSpec, meta: dict) -> str:
        """A physical version holding what ``target`` reads, that no release serves, for an upsert: the
        embedded engine writes new table versions of the same table (readers stay pinned to theirs);
        a server engine copies the version."""
        raise NotImplementedError

    def sweep(self) -> list[str]:
        """Remove what killed writers left outside any version (the embedded engine's half-written cache
        entries) and name it; a server engine's half-loaded versions are retention's (``drop``)."""
        return []

    def prune(self, keep: set[str]) -> None:  # noqa: B027 - optional hook
        """Free storage older than every kept target (the embedded engine's old table versions)."""

    def alias_target(self, alias: str) -> str | None:
        """The physical version the live release serves for ``<prefix>-<index>``, or None."""
        release = self.live_release()
        index = alias[len(self.prefix) + 1:] if alias.startswith(self.prefix + "-") else alias
        return release.physical(index) if release else None

    # -- versions
    @abstractmethod
    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        """A new, empty physical index for ``spec``; returns its name. Not served until a release names it."""

    @abstractmethod
    def drop(self, physical: str) -> None:
        """Delete a physical version (never the live one: callers check)."""

    # -- data
    @abstractmethod
    def load(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch]) -> int:
        """Bulk insert; every row must land (BackendError otherwise). Returns rows written."""

    @abstractmethod
    def upsert(self, target: str, spec: IndexSpec, batches: Iterable[pa.RecordBatch],
               replace_docs: Sequence[str] = ()) -> int:
        """Insert or replace rows by id. Rows of ``replace_docs`` (doc ids) not in the batches are deleted."""

    @abstractmethod
    def delete(self, target: str, spec: IndexSpec, ids: Sequence[str] = (), doc_ids: Sequence[str] = ()) -> int:
        """Delete rows by id and/or every row of some documents; returns how many were deleted."""

    @abstractmethod
    def publish_lock(self):
        """A context manager: one publisher at a time (loads, upserts, alias swaps, retention). A second
        caller gets :class:`PublisherBusy` at once; a lock whose holder died is taken over."""


def serve_version(backend: SearchBackend, index: str, physical: str) -> str | None:
    """Make live a release like the live one with ``index`` served from ``physical`` (pinned as it is now);
    returns what it served before. A publish serves every index at once; this serves one (benchmarks
    that load a version of their own, and tests)."""
    release = backend.live_release()
    before = release.physical(index) if release else None
    targets = {**(release.targets if release else {}), index: backend.pin(physical)}
    backend.commit_release(Release(release_id(), utc_now().isoformat(), targets,
                                   release.id if release else None, {index: "swap"}))
    return before


def fuse(lexical: Sequence[Hit], dense: Sequence[Hit], fusion: str, dense_weight: float) -> list[Hit]:
    """A BM25 and a kNN list fused (``rrf`` or ``minmax``, ``dense_weight`` for the kNN list), best first."""
    if fusion == "rrf":
        return fuse_rrf([lexical, dense], weights=(1 - dense_weight, dense_weight))
    if fusion == "minmax":
        return fuse_minmax([lexical, dense], [1 - dense_weight, dense_weight])
    raise BackendError(f"unknown fusion {fusion!r} (rrf or minmax)")


def fuse_rrf(lists: Sequence[Sequence[Hit]], k: int = 60, weights: Sequence[float] | None = None) -> list[Hit]:
    """Reciprocal rank fusion: sum of weight / (k + rank) over the lists a hit appears in (equal weights:
    plain RRF, up to a constant factor)."""
    scores: dict[str, float] = {}
    sources: dict[str, dict] = {}
    for hits, weight in zip(lists, weights or [1.0] * len(lists), strict=True):
        for rank, hit in enumerate(hits, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + weight / (k + rank)
            sources.setdefault(hit.id, hit.source)
    return [Hit(i, s, sources[i]) for i, s in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def fuse_minmax(lists: Sequence[Sequence[Hit]], weights: Sequence[float]) -> list[Hit]:
    """Weighted sum of min-max normalized scores (a hit missing from a list scores 0 there)."""
    scores: dict[str, float] = {}
    sources: dict[str, dict] = {}
    for hits, weight in zip(lists, weights, strict=True):
        if not hits:
            continue
        values = [h.score for h in hits if math.isfinite(h.score)]
        lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
        for hit in hits:
            norm = 1.0 if hi == lo else (hit.score - lo) / (hi - lo)
            scores[hit.id] = scores.get(hit.id, 0.0) + weight * norm
            sources.setdefault(hit.id, hit.source)
    return [Hit(i, s, sources[i]) for i, s in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
