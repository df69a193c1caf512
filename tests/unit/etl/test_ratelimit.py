"""The crawl's rate limiter: permits that come back a while after each response bound arrivals on the server's
clock, whatever the delays between a request's start, its arrival and its response."""

from __future__ import annotations

import heapq
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from etl.crawl.edgar_http import EdgarHttp, FetchError
from etl.crawl.ratelimit import HELD_S, RateLimiter, permits_for, soonest
from tests.mirror_process import max_requests_per_window


def test_permits_for_a_rate():
    assert permits_for(10) == (10, pytest.approx(1.05))  # at most 10 in any second, and a margin
    assert permits_for(2.5) == (2, pytest.approx(0.84))  # one task's share: 2 per 0.8 s
    assert permits_for(0.5) == (1, pytest.approx(2.1))
    with pytest.raises(ValueError, match="positive"):
        permits_for(0)


def test_the_permit_back_soonest():
    assert soonest([0.0, 5.0], 1.0, 1.05) == (0, 0.0, True)  # free now
    assert soonest([3.0, 2.0], 1.5, 1.05) == (1, 0.5, True)  # given back: free half a second from now
    assert soonest([1.0 + HELD_S, 2.0 + HELD_S], 1.5, 1.05)[1:] == (HELD_S - 0.5, False)  # all out: unknown


class _Clock:
    """A simulated clock for a crawl of several workers: sleeping lets the requests in flight finish."""

    def __init__(self):
        self.now = 0.0
        self.in_flight: list[tuple[float, int, object]] = []  # (headers back, tie-break, permit's block)

    def finish_until(self, t: float) -> None:
        while self.in_flight and self.in_flight[0][0] <= t:
            back, _, block = heapq.heappop(self.in_flight)
            self.now = max(self.now, back)
            block.__exit__(None, None, None)
        self.now = max(self.now, t)

    def sleep(self, seconds: float) -> None:
        self.finish_until(self.now + seconds)


def _simulate(latency, *, workers=4, requests=400, seed=1):
    """Arrival times on the server of ``requests`` requests by ``workers`` workers through one limiter; each
    request arrives anywhere between its start and its response's headers (``latency`` draws that span)."""
    rng = random.Random(seed)
    clock = _Clock()
    limiter = RateLimiter(10, clock=lambda: clock.now, sleep=clock.sleep)
    arrivals = []
    for k in range(requests):
        if len(clock.in_flight) == workers:
            clock.finish_until(clock.in_flight[0][0])
        block = limiter.request()
        block.__enter__()
        span = latency(rng)
        arrivals.append(clock.now + rng.uniform(0, span))
        heapq.heappush(clock.in_flight, (clock.now + span, k, block))
    clock.finish_until(float("inf"))
    return arrivals


@pytest.mark.parametrize("latency", [
    lambda rng: 0.0,
    lambda rng: rng.uniform(0, 0.4),  # a loaded box: up to 400 ms between a start and the server reading it
    lambda rng: rng.choice([0.001, 0.001, 0.001, 2.5]),  # now and then a stall of seconds
])
def test_no_second_on_the_servers_clock_holds_more_than_ten_arrivals(latency):
    arrivals = _simulate(latency)
    assert max_requests_per_window(arrivals) <= 10
    assert max_requests_per_window(arrivals, window=1.04) <= 10  # the margin, also on a slightly fast clock


def test_instant_responses_run_near_the_rate():
    arrivals = _simulate(lambda rng: 0.0)  # ten at once, then ten more as the permits come back
    assert (len(arrivals) - 10) / (max(arrivals) - min(arrivals)) == pytest.approx(10 / 1.05, rel=0.01)


def test_the_permits_are_shared_by_threads_and_processes(tmp_path):
    limiter = RateLimiter(10, state_file=tmp_path / "rate.state")
    other = RateLimiter(10, state_file=tmp_path / "rate.state")  # a second process would open the same file
    stamps, lock = [], threading.Lock()

    def worker(lim):
        for _ in range(8):
            with lim.request(), lock:
                stamps.append(time.monotonic())

    threads = [threading.Thread(target=worker, args=(lim,)) for lim in (limiter, other, limiter)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stamps) == 24 and max_requests_per_window(stamps) <= 10
    assert max(stamps) - min(stamps) >= 2.0  # 24 requests: three rounds of ten permits


def test_a_permit_whose_holder_died_comes_back(tmp_path):
    clock = [0.0]
    first = RateLimiter(1, state_file=tmp_path / "rate.state", clock=lambda: clock[0])
    held = first.request()
    held.__enter__()  # taken, never given back: its process is killed (kept referenced: no cleanup runs)
    slept = []
    later = RateLimiter(1, state_file=tmp_path / "rate.state", clock=lambda: clock[0],
                        sleep=lambda s: (slept.append(s), clock.__setitem__(0, clock[0] + s)))
    with later.request() as waited:
        assert waited == pytest.approx(HELD_S)
    assert len(slept) > 1 and held is not None  # it polled while the permit was out


class _Redirects(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        hops = {"/a": "/b", "/b": "/c", "/loop": "/loop"}
        if self.path in hops:
            self.send_response(302)
            self.send_header("Location", hops[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def test_each_redirect_hop_is_a_request_of_the_budget():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirects)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        http = EdgarHttp("Tests tests@example.com", RateLimiter(100), max_retries=0)
        resp = http.get(f"{base}/a")
        assert resp.content == b"ok" and resp.url == f"{base}/a"
        assert http.stats.requests == 3 and http.stats.retries == 0
        with pytest.raises(FetchError, match="more than 5 redirects"):
            http.get(f"{base}/loop")
    finally:
        server.shutdown()
        server.server_close()
