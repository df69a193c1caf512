"""Debian's Chromium, headless, driven through Debian's chromedriver with Selenium (tests only).

Nothing is downloaded: the binary and the driver are named, so Selenium Manager never runs. Background
networking, component updates and sync are off (this machine reaches no outside host).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1800")


def browser_or_skip() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (make system-deps installs Debian's chromium)")


@contextlib.contextmanager
def chromium() -> Iterator:
    browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(predicate: Callable[[], object], what: str, timeout: float = 60.0):
    """The predicate's first truthy value, polled every 0.25 s (AssertionError naming ``what`` on time-out)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            value = predicate()
            if value:
                return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def body_text(driver) -> str:
    return driver.find_element("tag name", "body").text


def serve(args: list[str], env: dict, url: str, log: Path, timeout: float = 180.0) -> subprocess.Popen:
    """Start a server process and wait until ``url`` answers (its output goes to ``log``)."""
    out = open(log, "w")  # noqa: SIM115 - the process writes to it until stopped
    proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def up() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"{args[0]} exited {proc.returncode}: {log.read_text()[-3000:]}")
        with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310 - loopback only
            return resp.status < 500

    deadline = time.monotonic() + timeout
    while True:
        try:
            if up():
                return proc
        except AssertionError:
            raise
        except Exception:  # not listening yet
            if time.monotonic() > deadline:
                stop(proc)
                raise AssertionError(f"{url} did not answer in {timeout:.0f} s: {log.read_text()[-3000:]}") from None
            time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=10)
