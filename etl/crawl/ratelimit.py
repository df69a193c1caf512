"""One request-rate budget shared by every worker of a run, bounding arrivals on the server's clock.

SEC allows at most 10 requests per second per client, counted where SEC receives them. The client cannot
read that clock, but it knows a bound: a request arrives after it was sent and before its response's headers
come back. So the limiter is a budget of ``n`` permits (the rate, whole, at least 1): a request takes one
before it is sent, and the permit comes back ``n / rate`` seconds (plus a small margin for the two clocks'
rates) after the response's headers came back or the attempt failed. Two requests that share a permit then
arrive at least that far apart whatever happens between (a thread descheduled before it sends, a loaded server
slow to read), so no window of ``n / rate`` seconds on the server's clock holds more than ``n`` arrivals.

The limiter it replaced handed out evenly spaced start times with a 15% margin: that bound held only while a
request reached the server within 150 ms of its slot, and a loaded 2-core CI box put 11 and 12 arrivals into
one second on the mirror's clock.

With ``state_file`` the permits live in a file guarded by ``flock``, so separate processes share one budget;
without it, the threads of one process share it. A permit whose holder died comes back after ``HELD_S``.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

MARGIN = 0.05  # the server's wall clock may run a little fast against ours (slewing) and rounds its stamps
HELD_S = 600.0  # a taken permit's provisional return, should its holder die without giving it back
POLL_S = 0.02  # how often a caller re-checks while every permit is out with a request in flight


def permits_for(rate: float) -> tuple[int, float]:
    """How many permits a rate allows and how long each stays out after its response: ``(n, hold)``.

    n requests per n / rate seconds is the rate; for 10/s that is "at most 10 in any second"."""
    if rate <= 0:
        raise ValueError("rate must be positive")
    n = max(1, math.floor(rate))
    return n, n / rate * (1.0 + MARGIN)


def soonest(free_at: Sequence[float], now: float, hold: float) -> tuple[int, float, bool]:
    """The permit that comes back first: ``(index, seconds until then, known)``.

    A permit given back returns at most ``hold`` from now, before any still out with a request in flight
    (provisionally ``HELD_S`` after it was taken). ``known`` is false when every permit is out: the caller
    polls then, as a return time is not known until a response comes."""
    i = min(range(len(free_at)), key=free_at.__getitem__)
    wait = max(0.0, free_at[i] - now)
    return i, wait, wait <= hold


class RateLimiter:
    def __init__(self, rate: float, *, state_file: str | os.PathLike | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.rate = rate
        self.permits, self.hold = permits_for(rate)
        self._clock = clock  # CLOCK_MONOTONIC is system-wide on Linux, so processes agree
        self._sleep = sleep
        self._lock = threading.Lock()
        self._free_at = [0.0] * self.permits
        self._state_file = Path(state_file) if state_file else None
        if self._state_file:
            self._state_file.parent.mkdir(parents=True, exist_ok=True)
            self._state_file.touch(exist_ok=True)

    @contextlib.contextmanager
    def request(self) -> Iterator[float]:
        """Hold a permit while one request is sent and its response's headers are read; yields the seconds
        waited for it. Leave the block as soon as the headers are in (the body may be read after)."""
        start = self._clock()
        while True:
            permit, wait, known = self._take()
            if permit is not None:
                break
            self._sleep(wait if known else min(wait, POLL_S))
        try:
            yield max(0.0, self._clock() - start)
        finally:
            self._give(permit)

    def _take(self) -> tuple[tuple[int, float] | None, float, bool]:
        """Take the permit free soonest if it is free now: ``(permit, 0, True)``; else ``(None, wait, known)``."""
        with self._permits() as free_at:
            now = self._clock()
            i, wait, known = soonest(free_at, now, self.hold)
            if wait > 0:
                return None, wait, known
            free_at[i] = now + HELD_S  # out with a request; this value is also the holder's receipt
            return (i, free_at[i]), 0.0, True

    def _give(self, permit: tuple[int, float]) -> None:
        i, receipt = permit
        with self._permits() as free_at:
            if free_at[i] == receipt:  # else its holder was presumed dead and the permit handed on
                free_at[i] = self._clock() + self.hold

    @contextlib.contextmanager
    def _permits(self) -> Iterator[list[float]]:
        """The permits' return times, for reading and changing under the lock (and the file's)."""
        with self._lock:
            if self._state_file is None:
                yield self._free_at
                return
            with open(self._state_file, "r+b") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    raw = fh.read(8 * self.permits)
                    read = list(struct.unpack(f"{self.permits}d", raw)) if len(raw) == 8 * self.permits \
                        else [0.0] * self.permits
                    free_at = list(read)
                    yield free_at
                    if free_at != read:  # a caller that found no permit free (and polls) changed nothing
                        fh.seek(0)
                        fh.write(struct.pack(f"{self.permits}d", *free_at))
                        fh.truncate()
                        fh.flush()
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
