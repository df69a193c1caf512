"""Where a query's time goes: milliseconds per stage and per engine call, for ``--explain`` and benchmarks.

A search opens a clock (``clock()``); code marks its stage (``stage("documents")``); the engine's calls are
timed by ``instrument(backend)`` and booked under the current stage as ``<stage>.<call>`` (``documents.knn``).
Context variables keep concurrent searches (HTTP threads) apart.
"""

from __future__ import annotations

import contextlib
import functools
import time
from contextvars import ContextVar

_CLOCK: ContextVar[dict[str, float] | None] = ContextVar("secplat_query_clock", default=None)
_STAGE: ContextVar[str] = ContextVar("secplat_query_stage", default="query")
TIMED_CALLS = ("bm25", "knn", "get", "scan")


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
        timings["total"] = 1000 * (time.perf_counter() - started)
        for key in timings:
            timings[key] = round(timings[key], 1)


@contextlib.contextmanager
def stage(name: str):
    """Book the block's time under ``name`` and its engine calls under ``name.<call>``."""
    token = _STAGE.set(name)
    started = time.perf_counter()
    try:
        yield
    finally:
        _STAGE.reset(token)
        _book(name, 1000 * (time.perf_counter() - started))


def instrument(backend):
    """Time the engine's read calls on this instance (its own internal calls included: hybrid = bm25 + knn)."""
    for name in TIMED_CALLS:
        call = getattr(backend, name)
        if getattr(call, "_timed", False):
            continue

        @functools.wraps(call)
        def timed(*args, _call=call, _name=name, **kwargs):
            started = time.perf_counter()
            try:
                return _call(*args, **kwargs)
            finally:
                _book(f"{_STAGE.get()}.{_name}", 1000 * (time.perf_counter() - started))

        timed._timed = True
        setattr(backend, name, timed)
    return backend
