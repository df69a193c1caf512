"""A filing's files as they complete, so that an interrupted filing resumes instead of starting over.

Each file fetched for a filing (``index.json``, its index page, the primary document, each exhibit) is
written to the lake, then noted in the filing's progress record (``fetched.json``: name -> size and
sha256). A rerun after SEC's block, an outage or a kill reads a noted file back from the lake, checks its
size and hash against the note, and sends no request for it (SEC counts every request against the client);
a file whose bytes do not match is fetched again. The record goes once the filing's own record
(``filing.json``) is written ``ok``: from then that record lists the documents with their hashes. A filing
that failed or was missing keeps it, for its retry. A run killed between the two writes leaves the
progress record beside an ``ok`` record: the listing every crawl makes for its manifest finds it, and it goes
then (:func:`clear_finished`: no request more per filing).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable

from etl.crawl.edgar_http import EdgarHttp
from kernel.layout import fetch_progress_key, primary_document_key
from kernel.storage import Lake
from schemas.filings import FilingRecord

log = logging.getLogger(__name__)


class Resumed:
    """How many files reruns read back from the lake instead of asking EDGAR (every filing of a run)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.count += 1


class FilingFiles:
    """The files of one filing (one crawl worker fetches a filing: no two threads share an instance)."""

    def __init__(self, lake: Lake, http: EdgarHttp, cik: int, accession: str, base_url: str, resumed: Resumed):
        self.lake, self.http, self.base_url, self.resumed = lake, http, base_url, resumed
        self.cik, self.accession = cik, accession
        self.progress_key = fetch_progress_key(cik, accession)
        self.done = self._load()

    def _load(self) -> dict[str, dict]:
        try:
            done = json.loads(self.lake.read_bytes(self.progress_key))
            return done if isinstance(done, dict) else {}
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            log.warning("%s: unreadable progress record (%s): its files are fetched again", self.accession, exc)
            return {}

    def key(self, name: str) -> str:
        return primary_document_key(self.cik, self.accession, name)

    def get(self, name: str, *, validate: Callable | None = None, expected_size: int | None = None) -> bytes:
        """The file's bytes: from the lake when a completed fetch noted them (and they still match), else
        fetched, written and noted. Raises what ``EdgarHttp.get`` raises."""
        kept = self._kept(name, expected_size)
        if kept is not None:
            self.resumed.add()
            return kept
        body = self.http.get(f"{self.base_url}/{name}", validate=validate, expected_size=expected_size).content
        self.lake.write_bytes(self.key(name), body)
        self.done[name] = {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
        self.lake.write_bytes(self.progress_key, json.dumps(self.done, sort_keys=True).encode())
        return body

    def _kept(self, name: str, expected_size: int | None) -> bytes | None:
        note = self.done.get(name)
        if not isinstance(note, dict):
            return None
        try:
            body = self.lake.read_bytes(self.key(name))
        except FileNotFoundError:
            return None
        if len(body) != note.get("bytes") or hashlib.sha256(body).hexdigest() != note.get("sha256") or (
                expected_size is not None and len(body) != expected_size):
            log.warning("%s: %s in the lake does not match its progress record: fetched again", self.accession, name)
            return None
        return body

    def finish(self) -> None:
        """The filing's record is written: the progress record has served its purpose."""
        if self.done:
            self.lake.delete(self.progress_key)


def clear_finished(lake: Lake, keys: Iterable[str], records: Iterable[FilingRecord]) -> int:
    """Delete the progress records (among the listed ``keys``) of filings whose record is ``ok``: what a run
    killed after writing a filing's record and before :meth:`FilingFiles.finish` left. Returns how many."""
    finished = {fetch_progress_key(r.cik, r.accession) for r in records if r.status == "ok"}
    left = sorted(k for k in keys if k in finished)
    for key in left:
        lake.delete(key)
    if left:
        log.info("%d progress record(s) of finished filings removed (a run stopped before removing them)", len(left))
    return len(left)
