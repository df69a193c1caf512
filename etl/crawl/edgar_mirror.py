"""A local EDGAR: serves a directory in SEC's URL layout for both hosts, with faults on demand.

The project's own tool for tests and offline runs (``secplat mirror``; ``make run`` with EDGAR_MIRROR).
Paths are ``/<host>/<path on that host>``, so the crawler's base URLs become
``http://127.0.0.1:PORT/www.sec.gov`` and ``http://127.0.0.1:PORT/data.sec.gov``.

* ``foo.htm`` is answered from ``foo.htm.gz`` with ``Content-Encoding: gzip`` (decompressed for clients
  that do not accept gzip).
* ``as_of``: only filings with filingDate on or before it exist (submissions JSONs are filtered, Archives
  of later filings answer 404), so a nightly increment can be replayed.
* Faults: a seeded share of requests fails as 429 (with Retry-After), 503, a slow answer, a connection
  reset, or a truncated body (cut short of its Content-Length, or a "lying" short body whose
  Content-Length matches the cut).
* Every request is logged with its server-side arrival time, for rate-limit checks (the tests serve it
  from a child process, ``tests/mirror_process.py``, so those times are not skewed by the client's threads
  holding the interpreter lock).
* ``Archives/edgar/full-index/<year>/QTR<q>/form.idx``: EDGAR's quarterly form index, generated from the
  mirror's submissions JSONs in EDGAR's layout (``etl.crawl.full_index.render``), cut at ``as_of``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import json
import random
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOSTS = ("www.sec.gov", "data.sec.gov")
FAULT_KINDS = ("429", "503", "reset", "truncate", "short", "slow")
_ARCHIVE_RE = re.compile(r"^/www\.sec\.gov/Archives/edgar/data/(\d+)/(\d{18})/")
_FULL_INDEX_RE = re.compile(r"^/www\.sec\.gov/Archives/edgar/full-index/(\d{4})/QTR([1-4])/form\.idx$")
_PAGE_RE = re.compile(r"^CIK(\d{10})-submissions-\d+\.json$")


@dataclass
class FaultPlan:
    """Which requests fail and how. ``rate`` is the share of requests that get a fault."""

    rate: float = 0.0
    kinds: tuple[str, ...] = ("429", "503", "reset", "truncate", "short")
    retry_after: int = 1
    slow_seconds: float = 2.0
    seed: int = 0
    path_pattern: str | None = None  # only paths matching this regex get faults
    # SEC's block: after ``block_after`` requests, every request for ``block_seconds`` gets SEC's 403 page
    block_after: int | None = None
    block_seconds: float = 600.0

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(FAULT_KINDS)
        if unknown:
            raise ValueError(f"unknown fault kind(s) {sorted(unknown)}; known: {', '.join(FAULT_KINDS)}")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("fault rate must be within [0, 1]")
        if self.block_after is not None and self.block_after < 0:
            raise ValueError("block_after must be 0 or more requests")


# What SEC answers a client it throttles (HTTP 403, for about ten minutes), abridged from www.sec.gov.
BLOCK_PAGE = b"""<!DOCTYPE html><html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head>
<body><h1>Your Request Originates from an Undeclared Automated Tool</h1>
<p>To allow for equitable access to all users, SEC reserves the right to limit requests originating from
undeclared automated tools. Your request has been identified as part of a network of automated tools outside
of the acceptable policy and will be managed until action is taken to declare your traffic.</p>
<p>Please declare your traffic by updating your user agent to include company specific information.</p>
<p>Request Rate Threshold Exceeded</p></body></html>
"""


@dataclass
class RequestLogEntry:
    at: float  # time.time() on arrival
    path: str
    user_agent: str
    outcome: str  # HTTP status as text, or the fault kind


@dataclass
class _State:
    root: Path
    as_of: dt.date | None
    faults: FaultPlan
    rng: random.Random
    log: list[RequestLogEntry] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    filing_dates: dict[str, dt.date] | None = None
    served: int = 0  # requests answered (the block fault counts them)
    blocked_until: float = 0.0  # time.time() until which every request gets the block page


def _filing_dates(root: Path) -> dict[str, dt.date]:
    """accession (no dashes) -> filingDate, from every submissions JSON of the mirror."""
    dates: dict[str, dt.date] = {}
    for path in (root / "data.sec.gov" / "submissions").glob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        block = data.get("filings", {}).get("recent", {}) if "filings" in data else data
        for acc, day in zip(block.get("accessionNumber", []), block.get("filingDate", []), strict=False):
            with contextlib.suppress(TypeError, ValueError, AttributeError):
                dates[acc.replace("-", "")] = dt.date.fromisoformat(day)
    return dates


def _form_index(root: Path, year: int, quarter: int, as_of: dt.date | None) -> bytes | None:
    """The quarter's ``form.idx`` in EDGAR's layout: every filing of every submissions JSON (recent block and
    older pages) filed in the quarter (and on or before ``as_of``); None for a quarter after ``as_of``."""
    from etl.crawl.full_index import IndexEntry, quarter_end, render

    first, last = dt.date(year, 3 * quarter - 2, 1), quarter_end(year, quarter)
    if as_of is not None:
        if as_of < first:
            return None
        last = min(last, as_of)
    names: dict[int, str] = {}
    blocks: list[tuple[int, dict]] = []
    for path in sorted((root / "data.sec.gov" / "submissions").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        page = _PAGE_RE.match(path.name)
        if page:
            blocks.append((int(page.group(1)), data))
        elif isinstance(data, dict) and str(data.get("cik", "")).isdigit():
            cik = int(data["cik"])
            names[cik] = str(data.get("name") or "")
            blocks.append((cik, (data.get("filings") or {}).get("recent") or {}))
    entries = []
    for cik, block in blocks:
        for acc, day, form in zip(block.get("accessionNumber", []), block.get("filingDate", []),
                                  block.get("form", []), strict=False):
            with contextlib.suppress(TypeError, ValueError):
                filed = dt.date.fromisoformat(str(day)[:10])
                if first <= filed <= last:
                    entries.append(IndexEntry(str(form), names.get(cik, "").upper(), cik, filed, str(acc)))
    return render(entries, last).encode()


def _filter_block(block: dict, as_of: dt.date) -> dict:
    dates = block.get("filingDate", [])
    keep = [i for i, d in enumerate(dates) if isinstance(d, str) and d[:10] <= as_of.isoformat()]
    out = {}
    for key, values in block.items():
        out[key] = [values[i] for i in keep] if isinstance(values, list) and len(values) == len(dates) else values
    return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "secplat-edgar-mirror/1"
    state: _State  # set on the subclass made per server

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - silence stderr access log
        pass

    def _record(self, outcome: str, arrived: float) -> None:
        with self.state.lock:
            self.state.log.append(
                RequestLogEntry(arrived, self.path, self.headers.get("User-Agent", ""), outcome)
            )

    def _pick_fault(self) -> str | None:
        plan = self.state.faults
        if plan.rate <= 0 or (plan.path_pattern and not re.search(plan.path_pattern, self.path)):
            return None
        with self.state.lock:
            if self.state.rng.random() >= plan.rate:
                return None
            return self.state.rng.choice(plan.kinds)

    def _blocked(self, arrived: float) -> bool:
        """SEC's block: on from the request after ``block_after``, for ``block_seconds``; then off for good."""
        plan = self.state.faults
        with self.state.lock:
            self.state.served += 1
            if plan.block_after is None:
                return False
            if self.state.served == plan.block_after + 1 and not self.state.blocked_until:
                self.state.blocked_until = arrived + plan.block_seconds
            return arrived < self.state.blocked_until

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        arrived = time.time()
        if self._blocked(arrived):
            self._record("403 blocked", arrived)  # SEC's page names no end; the mirror's says when (tests)
            left = max(1, round(self.state.blocked_until - arrived))
            return self._send(403, BLOCK_PAGE, "text/html", headers={"Retry-After": str(left)})
        fault = self._pick_fault()
        if fault in ("429", "503"):
            self._record(fault, arrived)
            headers = {"Retry-After": str(self.state.faults.retry_after)} if fault == "429" else {}
            return self._send(int(fault), b"fault injected\n", "text/plain", headers=headers)
        if fault == "reset":
            self._record(fault, arrived)
            return self._reset()
        if fault == "slow":
            time.sleep(self.state.faults.slow_seconds)
        status, body, ctype, extra = self._resolve()
        self._record(fault or str(status), arrived)
        if fault == "truncate" and status == 200 and len(body) > 1:
            return self._send(status, body, ctype, headers=extra, cut=len(body) // 2)
        if fault == "short" and status == 200 and len(body) > 1:
            return self._send(status, body[: len(body) // 2], ctype, headers=extra)
        self._send(status, body, ctype, headers=extra)

    def _resolve(self) -> tuple[int, bytes, str, dict[str, str]]:
        path = self.path.split("?", 1)[0]
        parts = path.lstrip("/").split("/", 1)
        if len(parts) != 2 or parts[0] not in HOSTS or ".." in path.split("/"):
            return 404, b"not found\n", "text/plain", {}
        st = self.state
        if st.as_of is not None:
            m = _ARCHIVE_RE.match(path)
            if m:
                if st.filing_dates is None:
                    st.filing_dates = _filing_dates(st.root)
                day = st.filing_dates.get(m.group(2))
                if day is None or day > st.as_of:
                    return 404, b"not found\n", "text/plain", {}
        file = st.root / parts[0] / parts[1]
        index = _FULL_INDEX_RE.match(path)
        if index and not file.is_file():  # EDGAR's quarterly form index, made from the submissions JSONs
            body = _form_index(st.root, int(index.group(1)), int(index.group(2)), st.as_of)
            return (200, body, "text/plain", {}) if body is not None else (404, b"not found\n", "text/plain", {})
        if file.is_file():
            body = file.read_bytes()
            if st.as_of is not None and parts[0] == "data.sec.gov" and file.suffix == ".json":
                body = self._as_of_json(body)
            ctype = "application/json" if file.suffix == ".json" else "text/html"
            return 200, body, ctype, {}
        gz = file.with_name(file.name + ".gz")
        if gz.is_file():
            raw = gz.read_bytes()
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                return 200, raw, "text/html", {"Content-Encoding": "gzip"}
            return 200, gzip.decompress(raw), "text/html", {}
        return 404, b"not found\n", "text/plain", {}

    def _as_of_json(self, body: bytes) -> bytes:
        try:
            data = json.loads(body)
        except ValueError:
            return body  # malformed on purpose: serve as is
        as_of = self.state.as_of
        if isinstance(data, dict) and isinstance(data.get("filings"), dict):
            data["filings"]["recent"] = _filter_block(data["filings"].get("recent", {}), as_of)
        elif isinstance(data, dict) and "accessionNumber" in data:
            data = _filter_block(data, as_of)
        return json.dumps(data).encode()

    def _send(self, status: int, body: bytes, ctype: str, *, headers: dict[str, str], cut: int | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            if cut is not None:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body if cut is None else body[:cut])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        if cut is not None:
            self.close_connection = True

    def _reset(self) -> None:
        # SO_LINGER with zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def sec_layout(root: str | Path) -> Path:
    """The mirror root in SEC's URL layout (``www.sec.gov/``, ``data.sec.gov/``), or a one-line error."""
    root = Path(root)
    if not (root / "www.sec.gov").is_dir() and not (root / "data.sec.gov").is_dir():
        raise FileNotFoundError(f"{root} is not in SEC's URL layout (no www.sec.gov/ or data.sec.gov/ inside)")
    return root


class MirrorServer:
    """Serve ``root`` on ``host:port`` (port 0 picks a free one) in a background thread."""

    def __init__(
        self,
        root: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        as_of: dt.date | None = None,
        faults: FaultPlan | None = None,
    ):
        root = sec_layout(root)
        plan = faults or FaultPlan()
        self.state = _State(root=root, as_of=as_of, faults=plan, rng=random.Random(plan.seed))
        handler = type("Handler", (_Handler,), {"state": self.state})
        self._server = _Server((host, port), handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def www_url(self) -> str:
        return f"{self.url}/www.sec.gov"

    @property
    def data_url(self) -> str:
        return f"{self.url}/data.sec.gov"

    @property
    def as_of(self) -> dt.date | None:
        return self.state.as_of

    @as_of.setter
    def as_of(self, value: dt.date | None) -> None:
        self.state.as_of = value

    def set_faults(self, plan: FaultPlan) -> None:
        with self.state.lock:
            self.state.faults = plan
            self.state.rng = random.Random(plan.seed)
            self.state.served, self.state.blocked_until = 0, 0.0

    @property
    def log(self) -> list[RequestLogEntry]:
        with self.state.lock:
            return list(self.state.log)

    def clear_log(self) -> None:
        with self.state.lock:
            self.state.log.clear()

    def start(self) -> MirrorServer:
        self._thread = threading.Thread(target=self._server.serve_forever, name="edgar-mirror", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def __enter__(self) -> MirrorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
