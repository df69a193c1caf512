"""Where a query's time goes: milliseconds per stage and per engine call, for ``--explain`` and benchmarks.

A search opens a clock (``clock()``); code marks its stage (``stage("documents")``); the engine's calls made
through a :class:`TimedBackend` (``Resources.timed_backend``) are booked under the current stage as
``<stage>.<call>`` (``documents.hybrid``). Stages are disjoint: a stage opened inside another (the pins'
``statements`` inside ``passages``) is its own time, not its parent's, and what no stage holds is booked as
``other``, so a query's stage times (the keys without a dot) add up to its ``total``.
Context variables keep concurrent searches (HTTP threads) apart.
"""

from __future__ import annotations

import contextlib
import functools
import time
from contextvars import ContextVar

_CLOCK: ContextVar[dict[str, float] | None] = ContextVar("secplat_query_clock", default=None)
_STAGE: ContextVar[str] = ContextVar("secplat_query_stage", default="query")
_INNER: ContextVar[list[float] | None] = ContextVar("secplat_query_inner", default=None)  # ms nested stages took
TIMED_CALLS = ("bm25", "knn", "hybrid", "get", "scan")


def _book(key: str, ms: float) -> None:
    clock = _CLOCK.get()
    if clock is not None:
        clock[key] = clock.get(key, 0.0) + ms


@contextlib.contextmanager
def clock():
    """Collect this search's timings into the yielded dict (ms, rounded when the block ends)."""
    timings: dict[str, float] = {}
    token = _CLOCK.set(timings)
    started = time.perf_counter()
    try:
        yield timings
    finally:
        _CLOCK.reset(token)
        total = 1000 * (time.perf_counter() - started)
        timings["other"] = max(0.0, total - sum(v for k, v in timings.items() if "." not in k))
        timings["total"] = total
        for key in timings:
            timings[key] = round(timings[key], 1)


@contextlib.contextmanager
def stage(name: str):
    """Book the block's time, less the stages opened inside it, under ``name``, and its engine calls under
    ``name.<call>``."""
    token = _STAGE.set(name)
    inner: list[float] = [0.0]
    inner_token = _INNER.set(inner)
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = 1000 * (time.perf_counter() - started)
        _INNER.reset(inner_token)
        _STAGE.reset(token)
        outer = _INNER.get()
        if outer is not None:
            outer[0] += elapsed
        _book(name, elapsed - inner[0])


class TimedBackend:
    """A search backend whose read calls are booked under the current stage (``<stage>.<call>``; the
    engine's own work inside a call, such as the embedded hybrid's two searches or Elasticsearch's
    server-side fusion, counts as that call). Everything else is the backend's own, passed through; the
    backend object itself is never changed, so others using it are not timed. Each timed call is wrapped
    once, on first use, and kept on this wrapper (queries call them many times)."""

    def __init__(self, backend):
        self._backend = backend

    def __getattr__(self, name: str):
        attr = getattr(self._backend, name)
        if name not in TIMED_CALLS:
            return attr

        @functools.wraps(attr)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                _book(f"{_STAGE.get()}.{name}", 1000 * (time.perf_counter() - started))

        self.__dict__[name] = timed  # found before __getattr__ from now on
        return timed
