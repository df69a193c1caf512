"""The mirror served from a child process, for tests whose measure is the server's clock (rate limits,
SIGKILL of a crawl): arrival times are taken by a process whose threads never wait for the client's
interpreter lock (an in-process server's handler can wait hundreds of ms for it on a loaded box)."""

from __future__ import annotations

import contextlib
import datetime as dt
import multiprocessing
import threading
from pathlib import Path

from etl.crawl.edgar_mirror import FaultPlan, MirrorServer, sec_layout


def _serve_in_child(conn, root: str, host: str, port: int, as_of, faults) -> None:
    """The child's side of ``MirrorProcess``: serve, and answer the parent's calls until told to stop."""
    server = MirrorServer(root, host=host, port=port, as_of=as_of, faults=faults).start()
    conn.send(server.url)
    while True:
        op, arg = conn.recv()
        try:
            if op == "stop":
                server.stop()
                conn.send((True, None))
                return
            if op == "as_of=":
                server.as_of = arg
            elif op == "faults":
                server.set_faults(arg)
            elif op == "clear":
                server.clear_log()
            conn.send((True, server.log if op == "log" else server.as_of if op == "as_of" else None))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
            conn.send((False, f"{exc.__class__.__name__}: {exc}"))


class MirrorProcess:
    """``MirrorServer``'s interface, served from a child process (as SEC serves from its own machines).

    Use it where the server's clock is the measure (rate limits): arrival times are taken by a process
    whose threads do not wait for the client's interpreter lock."""

    def __init__(self, root: str | Path, *, host: str = "127.0.0.1", port: int = 0,
                 as_of: dt.date | None = None, faults: FaultPlan | None = None):
        self._args = (str(sec_layout(root)), host, port, as_of, faults)
        self._conn = None
        self._proc = None
        self._url = ""
        self._lock = threading.Lock()

    def _call(self, op: str, arg: object = None) -> object:
        with self._lock:
            self._conn.send((op, arg))
            ok, value = self._conn.recv()
        if not ok:
            raise RuntimeError(f"edgar mirror process: {value}")
        return value

    url = property(lambda self: self._url)
    www_url = property(lambda self: f"{self._url}/www.sec.gov")
    data_url = property(lambda self: f"{self._url}/data.sec.gov")
    log = property(lambda self: self._call("log"))

    @property
    def as_of(self) -> dt.date | None:
        return self._call("as_of")

    @as_of.setter
    def as_of(self, value: dt.date | None) -> None:
        self._call("as_of=", value)

    def set_faults(self, plan: FaultPlan) -> None:
        self._call("faults", plan)

    def clear_log(self) -> None:
        self._call("clear")

    def start(self) -> MirrorProcess:
        ctx = multiprocessing.get_context("spawn")  # no fork of a parent that runs threads
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve_in_child, args=(child, *self._args), name="edgar-mirror", daemon=True)
        self._proc.start()
        if not self._conn.poll(60):
            self._proc.kill()
            raise RuntimeError("edgar mirror process did not start within 60 s")
        try:
            self._url = self._conn.recv()
        except EOFError:
            raise RuntimeError(f"edgar mirror process exited with code {self._proc.exitcode} on start") from None
        return self

    def stop(self) -> None:
        if self._proc is None:
            return
        with contextlib.suppress(EOFError, OSError, RuntimeError):
            self._call("stop")
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
        self._proc = None

    def __enter__(self) -> MirrorProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def max_requests_per_window(times: list[float], window: float = 1.0) -> int:
    """The most request arrivals inside any window of ``window`` seconds (half-open)."""
    times = sorted(times)
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best
