"""Free TCP ports for the servers tests start. A port the kernel hands out for ``bind(0)`` is in its ephemeral
range, where every outgoing connection takes its local port too, and where a test running beside (pytest-xdist)
picks its own: between choosing it and the server binding it, it may be taken. So ports come from below the
ephemeral range (Linux's default starts at 32768), from a span of their own for each parallel worker, and one
process never hands the same port out twice."""

from __future__ import annotations

import os
import random
import socket

BASE, SPAN, SPANS = 20000, 2000, 6  # 20000-31999: six workers' spans of 2000 ports
_next: int | None = None


def _span() -> tuple[int, int]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")  # gw0, gw1, ...
    n = int(worker[2:]) if worker[2:].isdigit() else 0
    lo = BASE + (n % SPANS) * SPAN
    return lo, lo + SPAN


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(offsets: tuple[int, ...] = (0,)) -> int:
    """A port ``p`` such that ``p + o`` is free for every offset (a cluster's HTTP and transport ports)."""
    global _next
    lo, hi = _span()
    width = max(offsets) + 1
    if _next is None:
        _next = lo + random.randrange(SPAN)
    for _ in range(SPAN):
        port = _next if _next + width <= hi else lo
        _next = port + width if port + 2 * width <= hi else lo
        if all(_free(port + o) for o in offsets):
            return port
    raise RuntimeError(f"no free ports in {lo}-{hi - 1}")
