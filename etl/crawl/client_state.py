"""The EDGAR client's state beyond one process and one lake: SEC's block while it lasts.

SEC throttles and blocks a *client* (its address and declared User-Agent), not a lake: a crawl into another
``LAKE_ROOT`` during a block would send a request, get a 403, and prolong the block for every process of
that client. So the block is recorded in ``EDGAR_STATE_DIR`` (default ``~/.local/state/secplat/edgar``; a
deployment whose workers crawl from one address points it at storage they share), per User-Agent and EDGAR
host: ``<EDGAR_STATE_DIR>/<host>-<hash of User-Agent and host>.block.json`` (until when, why, the URL that
met it). The request rate stays each process's share (``shell.tasks.EDGAR_SHARES``): a schedule file on one
machine's clock could not hold workers of several machines to SEC's limit.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
from pathlib import Path
from urllib.parse import urlparse

from etl.crawl.edgar_http import BlockBoard
from kernel.clock import utc_now

log = logging.getLogger(__name__)


class ClientState:
    """The files of one client (User-Agent at an EDGAR host) in ``state_dir``."""

    def __init__(self, state_dir: str | os.PathLike, user_agent: str, www_url: str):
        host = urlparse(www_url).netloc or www_url
        identity = hashlib.sha256("\n".join((user_agent, host)).encode()).hexdigest()[:12]
        self.client = f"{_safe(host)}-{identity}"
        self.root = Path(state_dir).expanduser()
        self.block_file = self.root / f"{self.client}.block.json"

    def board(self) -> BlockBoard:
        """A block board starting from the block any earlier crawl of this client recorded (so none is sent
        inside it), recording the next one for every later crawl, whatever its lake."""
        until, reason = 0.0, ""
        try:
            record = json.loads(self.block_file.read_text())
            until, reason = float(record["until"]), str(record.get("reason") or "HTTP 403 from EDGAR")
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring an unreadable EDGAR block record %s: %s", self.block_file, exc)
        return BlockBoard(until, reason, on_block=self._record)

    def _record(self, until: float, reason: str, url: str) -> None:
        now = utc_now()
        body = {"until": until, "until_utc": dt.datetime.fromtimestamp(until, dt.UTC).isoformat(timespec="seconds"),
                "reason": reason, "url": url, "posted_utc": now.isoformat(timespec="seconds")}
        tmp = self.block_file.with_name(f".{self.block_file.name}.{os.getpid()}")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(body, indent=1))
            os.replace(tmp, self.block_file)
        except OSError as exc:  # the run stops anyway; its own board keeps every worker quiet
            log.error("SEC's block could not be recorded in %s (%s): other crawls of this client will not "
                      "know of it", self.block_file, exc)


def _safe(host: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in host)
