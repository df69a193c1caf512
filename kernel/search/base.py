"""The backend interface every search engine implements, and the client-side score fusion.

Indexes are versioned: a logical index (``documents``, ``passages``, ``tree_nodes``, ``lexicon``) is served
through an alias ``<prefix>-<index>`` that points at one physical version ``<prefix>-<index>-v<stamp>``.
A rebuild loads a new version completely and then moves the alias in one step; nightly runs upsert into
the live version. Filters are typed values on keyword/number/date fields, never query strings, so user
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

from schemas.index import IndexSpec

Scalar = str | int | bool | dt.date
Filters = Mapping[str, Scalar | Sequence[Scalar]]


class BackendError(RuntimeError):
    """A search backend refused an operation (bad filter, failed bulk load, unknown version, ...)."""


class PublisherBusy(BackendError):
    """Another publisher holds the backend's publish lock; the message names it."""


def lock_owner() -> dict:
    """Who takes a lock: host, process, since when (what a second caller is told)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "since": dt.datetime.now(dt.UTC).isoformat()}


def busy_message(owner: dict) -> str:
    return (f"another publisher holds the publish lock (host {owner.get('host')}, pid {owner.get('pid')}, since "
            f"{str(owner.get('since', '?'))[:19]}): publishing waits for it to finish; try again then")


@dataclass
class Hit:
    id: str
    score: float
    source: dict = field(default_factory=dict)


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
    when = when or dt.datetime.now(dt.UTC)
    return f"{alias_name(prefix, index)}-v{when.strftime('%Y%m%d%H%M%S')}{when.microsecond // 1000:03d}"


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


def check_filters(spec: IndexSpec, filters: Filters | None) -> dict[str, list[Scalar]]:
    """Filters as field -> allowed values, or BackendError naming the bad field or value."""
    allowed = filter_fields(spec)
    out: dict[str, list[Scalar]] = {}
    for name, value in (filters or {}).items():
        if name not in allowed:
            raise BackendError(f"cannot filter {spec.name} on {name!r}; filterable fields: {sorted(allowed)}")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        for v in values:
            if not isinstance(v, (str, int, bool, dt.date)) or isinstance(v, float):
                raise BackendError(f"filter {name}: {v!r} is not a string, integer, boolean or date")
        if values:
            out[name] = values
    return out


class SearchBackend(ABC):
    """One search engine. ``target`` arguments take an alias or a physical version name."""

    kind: str = "abstract"
    prefix: str = "secplat"

    # -- versions and aliases
    @abstractmethod
    def create_version(self, spec: IndexSpec, dims: int | None, meta: dict) -> str:
        """A new, empty physical index for ``spec``; returns its name. Not served until an alias swap."""

    @abstractmethod
    def alias_target(self, alias: str) -> str | None:
        """The physical version an alias serves, or None."""

    @abstractmethod
    def swap_alias(self, alias: str, physical: str) -> str | None:
        """Point the alias at ``physical`` in one atomic step; returns the version it served before."""

    @abstractmethod
    def versions(self, spec: IndexSpec, counts: bool = True) -> list[VersionInfo]:
        """Every physical version of an index, oldest first."""

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
    def count(self, target: str) -> int:
        """Rows visible in the index."""

    @abstractmethod
    def scan(self, target: str, spec: IndexSpec, fields: Sequence[str]) -> list[dict]:
        """Some fields of every row (small indexes only: the document catalog, the lexicon)."""

    @abstractmethod
    def get(self, target: str, spec: IndexSpec, ids: Sequence[str]) -> list[dict]:
        """Rows by id (without vectors)."""

    # -- search
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
        if fusion == "rrf":
            return fuse_rrf([lexical, dense], weights=(1 - dense_weight, dense_weight))[:k]
        if fusion == "minmax":
            return fuse_minmax([lexical, dense], [1 - dense_weight, dense_weight])[:k]
        raise BackendError(f"unknown fusion {fusion!r} (rrf or minmax)")

    @abstractmethod
    def publish_lock(self):
        """A context manager: one publisher at a time (loads, upserts, alias swaps, retention). A second
        caller gets :class:`PublisherBusy` at once; a lock whose holder died is taken over."""

    def warm(self, target: str, spec: IndexSpec) -> None:  # noqa: B027 - optional hook
        """Load what searches of ``target`` keep in memory before the first query (a server engine: nothing)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


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
