"""What one release serves, as a query reads it (:class:`Snapshot`), and the release's learned page ranker
(:func:`load_ranker`): a reader builds one snapshot per release it serves, from the one before it."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from kernel.layout import ranker_key
from kernel.search import SearchReader
from kernel.search.base import NotPublished, Release
from kernel.storage import Lake
from query.catalog import Catalog
from query.ranker import PageRanker
from schemas.index import INDEXES

log = logging.getLogger(__name__)
RANKER_RECHECK_S = 10.0  # how often a release without a page ranker looks for one


class Snapshot:
    """What one release serves, as a query reads it: each index's target, the document catalog, whether
    facts are published, and the FLAM lexicon (read on first use). Built once per release; a query holds
    the snapshot it started with, so a publish during it changes nothing it reads."""

    def __init__(self, backend: SearchReader, release: Release | None, universe_csv: str | None,
                 load_ranker: Callable[[str, bool], PageRanker | None] | None = None,
                 previous: Snapshot | None = None, directory: tuple[dict, ...] = ()):
        """``previous``: the snapshot of the release before, whose catalog this one's is built from;
        ``directory``: the lake's company directory (EDGAR's names of the companies)."""
        self.release = release
        self.id = release.id if release else None
        self.targets = dict(release.targets) if release else {}
        self.catalog = Catalog(backend, universe_csv, self.targets.get("documents"),
                               previous.catalog if previous is not None else None, directory)
        self.has_facts = all(n in self.targets for n in ("facts", "concepts"))
        self._backend = backend
        self._lexicon: list[dict] | None = None
        self._load_ranker = load_ranker
        self._ranker: tuple[PageRanker | None, float] = (None, -math.inf)  # (model, when last looked for)
        self._lock = threading.Lock()

    def target(self, index: str) -> str:
        target = self.targets.get(index)
        if target is None:
            raise NotPublished(f"no {index} index is published: run `secplat index` and `secplat publish`")
        return target

    def lexicon(self) -> list[dict]:
        """The release's FLAM lexicon: terms and Item weights (empty when none is published)."""
        with self._lock:
            if self._lexicon is None:
                self._lexicon = (self._backend.scan(self.targets["lexicon"], INDEXES["lexicon"],
                                                    ["term", "item_weights"]) if "lexicon" in self.targets else [])
            return self._lexicon

    def ranker(self) -> PageRanker | None:
        """The learned page ranker trained for this release, or None (the rules rank its pages). A release
        goes live before its model is trained (the train stage follows publish): without one, the snapshot
        looks again every ``RANKER_RECHECK_S``, so a server picks the model up without a new release."""
        with self._lock:
            model, checked = self._ranker
            now = time.monotonic()
            if model is None and self._load_ranker and self.id and now - checked >= RANKER_RECHECK_S:
                model = self._load_ranker(self.id, checked == -math.inf)  # says so the first time only
                self._ranker = (model, now)
            return model


def load_ranker(lake: Lake, release: str, first: bool = True) -> PageRanker | None:
    """The release's model; without one (or with one this code refuses), a warning the first time."""
    try:
        model = PageRanker.from_json(lake.read_bytes(ranker_key(release)))
    except FileNotFoundError:
        if first:
            log.warning("no page ranker trained for release %s yet (the train stage, `secplat train-ranker`): "
                        "the rules rank pages until it is", release)
        return None
    except ValueError as exc:
        if first:
            log.warning("page ranker of release %s refused (%s): the rules rank pages", release, exc)
        return None
    if not first:
        log.info("page ranker of release %s found: the learned ranker orders pages from now on", release)
    return model
