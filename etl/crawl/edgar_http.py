"""Polite HTTP access to EDGAR: declared User-Agent, gzip, a shared rate limit and careful retries.

Retries with exponential backoff and jitter cover 429, 5xx, timeouts, connection resets and truncated
bodies (a short read, a broken gzip stream, or fewer bytes than the listing promised); ``Retry-After`` is
honoured. A 404 is final and reported as :class:`NotFound`. A host that refuses connections or does not
resolve raises :class:`HostUnreachable` after a short number of tries, so a run fails fast and clearly.

A 403 from EDGAR is SEC's block (its "Request Rate Threshold Exceeded" / "Undeclared Automated Tool" page):
SEC keeps the client blocked for about ten minutes, and every request meanwhile prolongs it. The first 403
posts the block on the run's :class:`BlockBoard`; from then every worker's next request raises
:class:`Blocked` instead of being sent, until the block is over.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin

import requests
import urllib3

from etl.crawl.ratelimit import RateLimiter

log = logging.getLogger(__name__)

RETRY_STATUS = {429, 500, 502, 503, 504}
CONNECT_TRIES = 3
MAX_REDIRECTS = 5
BLOCK_S = 600.0  # how long SEC keeps a throttled client blocked (about ten minutes) when it does not say
_BLOCK_PAGE_RE = re.compile(rb"Request Rate Threshold Exceeded|Undeclared Automated Tool", re.I)


class FetchError(RuntimeError):
    """A URL could not be fetched after all retries."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


class NotFound(FetchError):
    """The server answered 404; not retried."""


class HostUnreachable(FetchError):
    """The host refuses connections or does not resolve."""


class Blocked(HostUnreachable):
    """SEC blocked this client (HTTP 403): no request may be sent before ``until`` (``time.time()``)."""

    def __init__(self, url: str, until: float, reason: str):
        super().__init__(url, reason)
        self.until = until

    def __str__(self) -> str:
        when = dt.datetime.fromtimestamp(self.until, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return (f"EDGAR blocked this client ({self.reason}): no request was sent after it; retry after {when} "
                "(a rerun resumes where this one stopped)")


class BlockBoard:
    """The block as every worker of a run sees it: posted once (by the first 403), checked before every
    request. ``on_block(until, reason, url)`` records it beyond the process (the crawl writes it to the
    lake, so the run's other tasks and a rerun inside the block send nothing either)."""

    def __init__(self, until: float = 0.0, reason: str = "",
                 on_block: Callable[[float, str, str], None] | None = None):
        self.until, self.reason = until, reason
        self._on_block = on_block
        self._lock = threading.Lock()

    def check(self, url: str) -> None:
        if time.time() < self.until:
            raise Blocked(url, self.until, self.reason)

    def post(self, url: str, until: float, reason: str) -> Blocked:
        with self._lock:
            first = until > self.until and time.time() >= self.until
            if until > self.until:
                self.until, self.reason = until, reason
        if first:
            log.error("EDGAR blocked this client at %s (%s) until %s", url, reason, dt.datetime.fromtimestamp(
                until, dt.UTC).isoformat(timespec="seconds"))
            if self._on_block is not None:
                self._on_block(until, reason, url)
        return Blocked(url, self.until, self.reason)


@dataclass
class HttpStats:
    requests: int = 0
    retries: int = 0
    bytes: int = 0
    throttled: int = 0
    waited_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **kw: float) -> None:
        with self._lock:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)


@dataclass
class Response:
    url: str
    status: int
    content: bytes
    headers: dict[str, str]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_connect_failure(exc: requests.ConnectionError) -> bool:
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, urllib3.exceptions.MaxRetryError):
        reason = reason.reason
    return isinstance(reason, urllib3.exceptions.NewConnectionError | urllib3.exceptions.NameResolutionError)


class EdgarHttp:
    """A thread-safe EDGAR client; every request of every thread passes one :class:`RateLimiter`."""

    def __init__(
        self,
        user_agent: str,
        limiter: RateLimiter,
        *,
        timeout: float = 30.0,
        max_retries: int = 6,
        backoff_base: float = 0.5,
        backoff_max: float = 60.0,
        rng: random.Random | None = None,
        board: BlockBoard | None = None,
    ):
        self.user_agent = user_agent
        self.limiter = limiter
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.stats = HttpStats()
        self.board = board or BlockBoard()
        self._rng = rng or random.Random()
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers.update(
                {"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate", "Accept": "*/*"}
            )
            self._local.session = session
        return session

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * (2**attempt))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def get(
        self, url: str, *, expected_size: int | None = None, validate: Callable[[bytes], object] | None = None
    ) -> Response:
        """GET ``url``. The decoded body must have ``expected_size`` bytes when that is given, and pass
        ``validate`` (which raises ValueError on a bad body); a body failing either is retried."""
        last = "no attempt made"
        connect_failures = redirects = attempt = 0
        target = url  # where the request goes: ``url``, or where it redirected
        while True:
            self.board.check(url)
            delay: float | None = None
            try:
                with self.limiter.request() as waited:  # the permit is out until the headers are in
                    self.board.check(url)  # posted while this worker waited for its permit
                    self.stats.add(waited_s=waited, requests=1)
                    resp = self._session().get(target, timeout=self.timeout, stream=True, allow_redirects=False)
                content = resp.content  # decodes gzip; a short or broken stream raises here
            except requests.ConnectionError as exc:
                if _is_connect_failure(exc):
                    connect_failures += 1
                    last = f"cannot connect ({exc.__class__.__name__})"
                    if connect_failures >= CONNECT_TRIES:
                        raise HostUnreachable(url, f"host unreachable after {connect_failures} tries") from None
                else:
                    last = f"connection broken: {_short(exc)}"
            except requests.Timeout:
                last = f"timed out after {self.timeout:g}s"
            except (requests.exceptions.ContentDecodingError, requests.exceptions.ChunkedEncodingError) as exc:
                last = f"truncated or corrupt body: {_short(exc)}"
            else:
                if resp.status_code == 404:
                    raise NotFound(url, "404 Not Found")
                if resp.status_code == 403:
                    raise self._blocked(url, resp, content)
                if resp.is_redirect:  # followed here, so that each hop is one request of the budget
                    redirects += 1
                    if redirects > MAX_REDIRECTS:
                        raise FetchError(url, f"more than {MAX_REDIRECTS} redirects")
                    target = urljoin(target, resp.headers["Location"])
                    continue
                if resp.status_code in RETRY_STATUS:
                    last = f"HTTP {resp.status_code}"
                    if resp.status_code == 429:
                        self.stats.add(throttled=1)
                    delay = _retry_after(resp.headers.get("Retry-After"))
                elif resp.status_code >= 400:
                    raise FetchError(url, f"HTTP {resp.status_code}")
                elif expected_size is not None and len(content) != expected_size:
                    last = f"truncated body: {len(content)} of {expected_size} bytes"
                elif validate is not None and (problem := _invalid(validate, content)):
                    last = problem
                else:
                    self.stats.add(bytes=len(content))
                    return Response(url, resp.status_code, content, dict(resp.headers))
            if attempt == self.max_retries:
                break
            wait = self._backoff(attempt)
            attempt += 1
            self.stats.add(retries=1)
            if delay is not None:
                wait = max(wait, min(delay, self.backoff_max * 5))
            log.debug("retrying %s in %.2fs (%s)", url, wait, last)
            time.sleep(wait)
        raise FetchError(url, f"gave up after {self.max_retries + 1} attempts: {last}")

    def _blocked(self, url: str, resp: requests.Response, content: bytes) -> Blocked:
        page = _BLOCK_PAGE_RE.search(content[:20_000])
        reason = f"HTTP 403, SEC's block page: {page.group(0).decode()}" if page else "HTTP 403 from EDGAR"
        wait = _retry_after(resp.headers.get("Retry-After"))
        return self.board.post(url, time.time() + (wait if wait else BLOCK_S), reason)

    def get_json(self, url: str) -> object:
        """GET and parse JSON; a body that does not parse counts as truncated and is retried."""
        return json.loads(self.get(url, validate=json_body).content)


def json_body(content: bytes) -> None:
    try:
        json.loads(content)
    except ValueError as exc:
        raise ValueError(f"malformed JSON ({exc})") from None


def _invalid(validate: Callable[[bytes], object], content: bytes) -> str | None:
    try:
        validate(content)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return _short(exc)
    return None


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) < 160 else text[:157] + "..."
