"""One request-rate limiter shared by every worker of a run.

SEC allows at most 10 requests per second per client. The limiter hands out evenly spaced start times
(a reservation scheduler: each caller books the next free slot, then sleeps until it), so no window of
one second ever holds more than ``rate`` request starts. A safety margin widens the spacing so that jitter
(network, a busy machine descheduling a thread between its slot and its send) cannot push 11 arrivals into
one second on the server's clock: 15% tolerates 150 ms of jitter (5% proved too little on a loaded CI box).

With ``state_file`` the schedule lives in a file guarded by ``flock``, so separate processes (Airflow's
mapped tasks on one worker) share one budget; without it, threads of one process share it.
"""

from __future__ import annotations

import fcntl
import os
import struct
import threading
import time
from pathlib import Path


class RateLimiter:
    def __init__(self, rate: float, *, safety: float = 0.15, state_file: str | os.PathLike | None = None):
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self.interval = (1.0 + safety) / rate
        self._lock = threading.Lock()
        self._next = 0.0
        self._state_file = Path(state_file) if state_file else None
        if self._state_file:
            self._state_file.parent.mkdir(parents=True, exist_ok=True)
            self._state_file.touch(exist_ok=True)

    def _book(self, now: float) -> float:
        """Reserve the next slot at or after ``now``; return its start time."""
        if self._state_file is None:
            slot = max(now, self._next)
            self._next = slot + self.interval
            return slot
        with open(self._state_file, "r+b") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                raw = fh.read(8)
                booked = struct.unpack("d", raw)[0] if len(raw) == 8 else 0.0
                slot = max(now, booked)
                fh.seek(0)
                fh.write(struct.pack("d", slot + self.interval))
                fh.flush()
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
        return slot

    def acquire(self) -> float:
        """Block until this caller may start a request; returns the seconds waited."""
        with self._lock:
            now = time.monotonic()  # CLOCK_MONOTONIC is system-wide on Linux, so processes agree
            slot = self._book(now)
        wait = slot - now
        if wait > 0:
            time.sleep(wait)
        return max(wait, 0.0)
