"""The document catalog: every published document's metadata, and the company names that point at them.

Read from the ``documents`` index of one release (a few fields per document, small even for the whole
EDGAR universe): a reader builds one per release it serves (``query.snapshot.Snapshot``). Company names come from the cover
metadata, the documents' source names (FinanceBench's ``BESTBUY_2023_10K``), and the S&P 500 universe CSV
when configured, so a question's "Best Buy" or "BBY" finds the documents.
"""

from __future__ import annotations

import copy
import csv
import re
from collections import Counter

from domain.companies import EntityIndex, add_directory_record, add_vocabulary_names, reads_as_name
from kernel.search import SearchReader
from kernel.search.base import physical_of
from schemas.index import INDEXES, DocumentMeta

_SOURCE_PREFIX = re.compile(r"^([A-Za-z0-9&]+(?:_[A-Za-z&]+)*?)_(?:\d{4})")


def _names_told(row: dict) -> tuple[tuple, int]:
    """What a document row says its company is called: (name, ticker, other names), and how well the name was
    read (0 its cover's, 1 its file name's, or its own id's). A cover line that is no name ("Commission File No.
    1-10299", read by a lake converted before the cover reader refused it) gives way to the file name's."""
    names = [n for n in (row.get("source_name"),) if n]
    prefix = _SOURCE_PREFIX.match(row.get("source_name") or row["doc_id"])
    if prefix:
        names.append(prefix.group(1).replace("_", " "))
    fallback = names[-1] if names else row["doc_id"]
    cover = row.get("company")
    name = cover if cover and reads_as_name(cover) else fallback
    rank = 1 if name in (*names, row["doc_id"], row.get("ticker")) else 0  # the fallback is one of these
    return (name, row.get("ticker"), tuple(names[1:])), rank


class DocInfo(DocumentMeta):
    """A published document as retrieval weighs it: the metadata every index record carries (the schema's),
    the company it belongs to (``entity``: a key of the catalog's names), its length and what it amends."""

    entity: str | None = None
    page_count: int = 0
    amends: str | None = None  # an amendment: the doc_id it amends
    accession: str | None = None  # the filing (an exhibit's is its 8-K's)
    filing_items: list[str] = []  # an 8-K's Items (its cover's and its exhibits')
    absent_items: list[str] = []  # Items incorporated from a document the corpus does not hold


# what the catalog reads of each published document
FIELDS = [*DocumentMeta.model_fields, "filing_date", "page_count", "is_amendment", "amends", "accession",
          "filing_items", "absent_items"]


class Catalog:
    """The documents of one target of the ``documents`` index (None: nothing published, an empty catalog).
    Given the catalog of the release before (``previous``), it is that one changed by what the engine says
    changed between the two targets (``SearchReader.changes``): a nightly release costs its new documents,
    not the corpus's. Read whole otherwise. The one difference: names a release no longer holds stay known
    (a renamed company keeps its former name, and its ticker keeps naming it)."""

    def __init__(self, backend: SearchReader, universe_csv: str | None = None, target: str | None = None,
                 previous: Catalog | None = None, directory: tuple[dict, ...] = ()):
        """``directory``: the lake's company directory (``kernel.company_directory``), as dicts."""
        self.backend = backend
        self.universe_csv = universe_csv
        self.directory = directory
        self.target = target
        self.docs: dict[str, DocInfo] = {}
        self.entities = EntityIndex()
        self.model: str | None = None  # the embedding model the documents were published with
        if not (previous is not None and self._follow(previous)):
            self._load()

    def _follow(self, previous: Catalog) -> bool:
        """Build from the release before: its documents less the removed rows, plus the added ones."""
        if not (previous.target and self.target) or previous.universe_csv != self.universe_csv \
                or previous.directory != self.directory:
            return False
        changed = self.backend.changes(previous.target, self.target, INDEXES["documents"], FIELDS)
        if changed is None:
            return False
        removed, added = set(changed[0]), changed[1]
        docs = {d: info for d, info in previous.docs.items() if d not in removed}
        entities = copy.deepcopy(previous.entities)
        gone = removed | {r["doc_id"] for r in added}  # a changed document's old row gives its vote no more
        for d in sorted(gone & previous.docs.keys()):
            if previous.docs[d].entity:
                entities.withdraw(previous.docs[d].entity, _names_told(previous.docs[d].model_dump())[0][0])
        self._add_rows(added, entities, docs, {})
        add_vocabulary_names(entities)  # a company new to the corpus brings its reviewed names
        entities.finish(searchable={d.entity for d in docs.values() if d.entity})
        self.docs, self.entities, self.model = docs, entities, previous.model
        return True

    def _load(self) -> None:
        target = self.target
        rows = self.backend.scan(target, INDEXES["documents"], FIELDS) if target else []
        physical = physical_of(target) if target else None
        live = next((v for v in self.backend.versions(INDEXES["documents"], counts=False) if v.name == physical),
                    None) if target else None
        entities = EntityIndex()
        if self.universe_csv:
            try:
                with open(self.universe_csv, encoding="utf-8") as fh:
                    for row in csv.DictReader(fh):
                        entities.add(row.get("Security") or "", (row.get("Symbol") or "").replace(".", "-") or None)
            except OSError:
                pass  # the universe only adds names; the catalog works without it
        for record in self.directory:
            add_directory_record(entities, record)
        docs: dict[str, DocInfo] = {}
        self._add_rows(rows, entities, docs, {})
        add_vocabulary_names(entities)
        entities.finish(searchable={d.entity for d in docs.values() if d.entity})
        self.docs, self.entities = docs, entities
        self.model = live.meta.get("model") if live else None

    @staticmethod
    def _add_rows(rows: list[dict], entities: EntityIndex, docs: dict[str, DocInfo], keys: dict) -> None:
        """Each row as a document, its company's names added to ``entities`` (``keys``: (name, ticker,
        other names) -> entity, so a company's filings are named once). Rows in ``doc_id`` order and each name
        with the number of documents giving it: a rebuild that orders the index's rows anew names every company
        the same (``EntityIndex.add``'s votes)."""
        rows = sorted(rows, key=lambda r: r["doc_id"])
        told = [_names_told(r) for r in rows]
        votes = Counter(said for said, _ in told)
        for r, (said, rank) in zip(rows, told, strict=True):
            if said not in keys:  # adding the same names again changes nothing
                keys[said] = entities.add(said[0], said[1], extra_names=said[2], words=False, votes=votes[said],
                                          rank=rank)
            meta = {f: r.get(f) for f in DocumentMeta.model_fields}
            docs[r["doc_id"]] = DocInfo(**{**meta, "doc_name": r.get("doc_name") or r["doc_id"]}, entity=keys[said],
                                        page_count=r.get("page_count") or 0, accession=r.get("accession"),
                                        filing_items=list(r.get("filing_items") or []),
                                        absent_items=list(r.get("absent_items") or []),
                                        amends=r.get("amends") if r.get("is_amendment") else None)
