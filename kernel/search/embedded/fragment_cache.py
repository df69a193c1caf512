"""What the embedded engine computes per Lance fragment, kept on disk next to the tables.

A Lance fragment's rows never change once written (an upsert writes new fragments and marks replaced rows in
a deletion file; fragment ids are never reused, a restore included), so what is computed from a fragment's
rows (its ids, normalized vectors, filter postings, row-term postings: ``kernel.search.embedded.fragment_arrays``) is computed
once, by the publisher that wrote it, and every later table version that still holds the fragment shares it.
What a version adds besides its new fragments is which rows of the old ones it deleted (an entry per
deletion file).

Layout: ``<search root>/.cache/<table>/<name>-<FORMAT>/`` with plain ``.npy`` arrays (mapped back read-only,
no pickles) and ``meta.json``; ``name`` is ``f<fragment>`` for a fragment's data, ``f<fragment>.<column>``
for a filter column built later, ``f<fragment>.d<deletion file>`` for the rows a deletion file removes from
it. Entries are written to a temporary
directory renamed into place, so a reader sees a whole entry or none; an unreadable entry is ignored (and
recomputed); entries of fragments no kept version holds are removed when a publish prunes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from pathlib import Path

import numpy as np

from kernel import faults
from kernel.search.base import holder_dead
from kernel.storage import dir_mode

log = logging.getLogger(__name__)
FORMAT = "p1"  # bump when what is written changes
_FRAGMENT = re.compile(r"^f(\d+)")
STALE_S = 3600  # a temporary entry this old was left by a killed writer


def _writer_dead(name: str) -> bool:
    """A temporary entry's writer (``.<entry>~<host>~<pid>~<random>``) is a process of this host that no
    longer runs."""
    parts = name.split("~")
    return len(parts) == 4 and holder_dead({"host": parts[1], "pid": parts[2]})


class FragmentCache:
    def __init__(self, root: Path):
        self.root = root / ".cache"

    def _entry(self, table: str, name: str) -> Path:
        return self.root / table / f"{name}-{FORMAT}"

    def load(self, table: str, name: str) -> tuple[dict[str, np.ndarray], dict] | None:
        """(arrays, meta) of an entry, memory-mapped, or None when there is none (or it cannot be read)."""
        entry = self._entry(table, name)
        if not entry.is_dir():
            return None
        try:
            meta = json.loads((entry / "meta.json").read_text())
            arrays = {p.stem: np.load(p, mmap_mode="r", allow_pickle=False) for p in entry.glob("*.npy")}
        except (OSError, ValueError) as exc:
            log.warning("%s: cache entry %s unreadable (%s): recomputed", table, entry.name, exc)
            return None
        return arrays, meta

    def save(self, table: str, name: str, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Write an entry whole (never half); a read-only search directory serves without one."""
        entry = self._entry(table, name)
        try:
            (self.root / table).mkdir(parents=True, exist_ok=True)
            writer = f"~{socket.gethostname()}~{os.getpid()}~"  # whose it is: a dead writer's is swept at once
            tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}{writer}", dir=self.root / table))
            tmp.chmod(dir_mode())  # mkdtemp's 0700 would hide it from a server of another user
            for key, array in arrays.items():
                np.save(tmp / f"{key}.npy", np.asarray(array), allow_pickle=False)
            faults.point("engine:cache entry half-written")
            (tmp / "meta.json").write_text(json.dumps(meta))
            try:
                tmp.rename(entry)
            except OSError:  # another process wrote it first: theirs is the same
                shutil.rmtree(tmp, ignore_errors=True)
        except OSError as exc:
            log.warning("%s: cache entry %s not written (%s)", table, name, exc)

    def keep(self, table: str, fragments: set[int]) -> None:
        """Remove the table's entries of other fragments (and of an older format); temporary directories
        (``.``: entries being written) are :meth:`sweep`'s."""
        folder = self.root / table
        for path in folder.glob("*") if folder.is_dir() else ():
            if path.name.startswith("."):
                continue
            found = _FRAGMENT.match(path.name)
            if found is None or int(found.group(1)) not in fragments or not path.name.endswith(f"-{FORMAT}"):
                shutil.rmtree(path, ignore_errors=True)

    def sweep(self) -> list[str]:
        """Remove the half-written entries killed writers left (a writer of this host that no longer runs,
        or any writer's after an hour); returns them (``<table>/<entry>``) for the publish to name."""
        removed = []
        for path in sorted(self.root.glob("*/.*")) if self.root.is_dir() else ():
            if _writer_dead(path.name) or time.time() - path.stat().st_mtime > STALE_S:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(f"{path.parent.name}/{path.name}")
        return removed

    def drop(self, table: str) -> None:
        shutil.rmtree(self.root / table, ignore_errors=True)
