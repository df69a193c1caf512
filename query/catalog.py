"""The document catalog: every published document's metadata, and the company names that point at them.

Read once from the ``documents`` index (a few fields per document, small even for the whole EDGAR
universe) and reloaded when the alias moves to another version. Company names come from the cover
metadata, the documents' source names (FinanceBench's ``BESTBUY_2023_10K``), and the S&P 500 universe CSV
when configured, so a question's "Best Buy" or "BBY" finds the documents.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from kernel.search import SearchBackend
from kernel.search.base import alias_name
from query.analysis import EntityIndex, squash
from schemas.index import INDEXES

FIELDS = ["doc_id", "doc_name", "source_name", "company", "ticker", "form", "fiscal_year", "fiscal_period",
          "period_end", "filing_date", "page_count", "is_amendment", "amends"]
_SOURCE_PREFIX = re.compile(r"^([A-Za-z0-9&]+(?:_[A-Za-z&]+)*?)_(?:\d{4})")


@dataclass
class DocInfo:
    doc_id: str
    company: str | None
    ticker: str | None
    form: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    entity: str | None  # entity key
    source_name: str | None = None
    page_count: int = 0
    doc_name: str | None = None  # the LOFin-style name (doc_id unless another filing holds it)
    amends: str | None = None  # an amendment: the doc_id it amends


class Catalog:
    def __init__(self, backend: SearchBackend, universe_csv: str | None = None):
        self.backend = backend
        self.universe_csv = universe_csv
        self._version: str | None = None
        self.docs: dict[str, DocInfo] = {}
        self.entities = EntityIndex()
        self.model: str | None = None  # the embedding model the live version was published with

    def refresh(self) -> Catalog:
        alias = alias_name(self.backend.prefix, "documents")
        version = self.backend.alias_target(alias)
        if version == self._version and self.docs:
            return self
        rows = self.backend.scan(alias, INDEXES["documents"], FIELDS) if version else []
        live = next((v for v in self.backend.versions(INDEXES["documents"]) if v.name == version), None)
        entities = EntityIndex()
        if self.universe_csv:
            try:
                with open(self.universe_csv, encoding="utf-8") as fh:
                    for row in csv.DictReader(fh):
                        entities.add(row.get("Security") or "", (row.get("Symbol") or "").replace(".", "-") or None)
            except OSError:
                pass  # the universe only adds names; the catalog works without it
        docs = {}
        for r in rows:
            names = [n for n in (r.get("source_name"),) if n]
            prefix = _SOURCE_PREFIX.match(r.get("source_name") or r["doc_id"])
            if prefix:
                names.append(prefix.group(1).replace("_", " "))
            name = r.get("company") or (names[-1] if names else r["doc_id"])
            key = entities.add(name, r.get("ticker"), extra_names=names[1:])
            docs[r["doc_id"]] = DocInfo(r["doc_id"], r.get("company"), r.get("ticker"), r.get("form"),
                                        r.get("fiscal_year"), r.get("fiscal_period"), key, r.get("source_name"),
                                        r.get("page_count") or 0, r.get("doc_name") or r["doc_id"],
                                        r.get("amends") if r.get("is_amendment") else None)
        entities.finish()
        self.docs, self.entities, self._version = docs, entities, version
        self.model = live.meta.get("model") if live else None
        return self

    def docs_of(self, entity_key: str) -> list[DocInfo]:
        return [d for d in self.docs.values() if d.entity == entity_key]

    def entity_of_name(self, name: str) -> str | None:
        return self.entities.names.get(squash(name))
