"""What the embedded engine computes per table version, kept on disk next to the tables: the normalized
vectors (:class:`ExactVectors`) and the row-term postings (:class:`TermIndex`).

A serving process computes both once per version; a one-question CLI process would compute them for every
question (seconds for tens of thousands of passages: tokenizing every row for the table-wide BM25
statistics). So the first process to compute them writes them under ``<search root>/.cache/<table>/<version>/``
as plain arrays (``.npy`` without pickles, the vocabulary as JSON), and later processes map them in. A
version's data never changes, so a cache entry never goes stale; entries of other versions of the table
are removed when a new one is written, and all of a table's when the table is dropped. Writes go to a
temporary directory renamed into place, so a reader sees a whole entry or none; an unreadable entry is
ignored (and recomputed).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)
CACHE_FORMAT = "1"  # bump when what is written changes


class VersionCache:
    def __init__(self, root: Path):
        self.root = root / ".cache"

    def _entry(self, table: str, version: int, kind: str) -> Path:
        return self.root / table / f"v{version}-{kind}-{CACHE_FORMAT}"

    def load(self, table: str, version: int, kind: str) -> tuple[dict[str, np.ndarray], dict] | None:
        """(arrays, meta) of an entry, or None when there is none (or it cannot be read)."""
        entry = self._entry(table, version, kind)
        if not entry.is_dir():
            return None
        try:
            meta = json.loads((entry / "meta.json").read_text())
            arrays = {p.stem: np.load(p, mmap_mode="r", allow_pickle=False) for p in entry.glob("*.npy")}
        except (OSError, ValueError) as exc:
            log.warning("%s: cache entry %s unreadable (%s): recomputed", table, entry.name, exc)
            return None
        return arrays, meta

    def save(self, table: str, version: int, kind: str, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Write an entry whole (never half), then drop the table's entries of other versions of this kind."""
        entry = self._entry(table, version, kind)
        try:
            (self.root / table).mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", dir=self.root / table))
            tmp.chmod(0o755)  # readable by any serving process, like the tables
            for name, array in arrays.items():
                np.save(tmp / f"{name}.npy", np.asarray(array), allow_pickle=False)
            (tmp / "meta.json").write_text(json.dumps(meta))
            try:
                tmp.rename(entry)
            except OSError:  # another process wrote it first: theirs is the same
                shutil.rmtree(tmp, ignore_errors=True)
            for old in (self.root / table).glob(f"v*-{kind}-*"):
                if old != entry and not old.name.startswith("."):
                    shutil.rmtree(old, ignore_errors=True)
        except OSError as exc:  # a read-only search directory serves without a cache
            log.warning("%s: cache entry not written (%s)", table, exc)

    def drop(self, table: str) -> None:
        shutil.rmtree(self.root / table, ignore_errors=True)
