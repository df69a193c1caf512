"""Document identity: one ``doc_id`` per filing, the LOFin-style name as its alias, amendments linked.

A LOFin name (``KO_2023_10K``, ``AAPL_2024-05-02_8K``) is what analysts and benchmarks call a filing, but it
is not unique: two 8-Ks filed the same day, two 10-Ks for one fiscal year (a transition period) or two
amendments of one report share it, and a shared ``doc_id`` makes one overwrite the other downstream. So the
name is kept as ``doc_name`` and ``doc_id`` is the name when one filing holds it, else the name plus the
accession (``AAPL_2024-05-02_8K_0000320193-24-000069``). Ids never change once given: a filing already in
the lake keeps its id, and among new filings that share a name the earliest filed takes the plain name, so
incremental runs and a rebuild in filing order give the same ids.

An amendment (``KO_2023_10KA``) names what it amends: the latest filing before it under the name without
the ``A``; the query side prefers it where it restates the whole report.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """What identity needs of one document part (read from the lake or just converted)."""

    part: str
    doc_id: str
    doc_name: str
    key: str  # the accession, or a PDF's source name: what makes the document itself unique
    filing_date: dt.date | None = None
    is_amendment: bool = False
    amends: str | None = None


def unique_id(name: str, key: str) -> str:
    """The id of a filing whose name another filing already holds."""
    return f"{name}_{key}"


def assign_ids(existing: dict[str, Identity], new: dict[str, Identity]) -> dict[str, str]:
    """part -> doc_id for the newly converted parts. ``existing`` are the documents already in the lake
    (by part); a new part that was in the lake before keeps its id while its name is unchanged."""
    taken = {e.doc_id: part for part, e in existing.items() if part not in new}
    ids: dict[str, str] = {}

    def claim(part: str, doc_id: str) -> None:
        taken[doc_id] = part
        ids[part] = doc_id

    for part, doc in new.items():  # reconverted documents keep their ids first
        before = existing.get(part)
        if before and before.doc_name == doc.doc_name and before.doc_id not in taken:
            claim(part, before.doc_id)
    for part, doc in sorted(new.items(), key=lambda kv: (kv[1].filing_date or dt.date.min, kv[1].key)):
        if part not in ids:
            claim(part, doc.doc_name if doc.doc_name not in taken else unique_id(doc.doc_name, doc.key))
    return ids


def amended_name(doc_name: str) -> str | None:
    """The name of what an amendment amends: ``KO_2023_10KA`` -> ``KO_2023_10K``."""
    return doc_name[:-1] if doc_name.endswith("A") else None


def amendment_links(docs: dict[str, Identity]) -> dict[str, str | None]:
    """part -> doc_id of the document each amendment amends (the latest filed before it under the
    original's name), None when the original is not in the lake; every amendment part is in the answer."""
    originals: dict[str, list[Identity]] = {}
    for d in docs.values():
        if not d.is_amendment:
            originals.setdefault(d.doc_name, []).append(d)
    links: dict[str, str | None] = {}
    for part, d in docs.items():
        if not d.is_amendment:
            continue
        name = amended_name(d.doc_name)
        before = [o for o in originals.get(name or "", [])
                  if not (d.filing_date and o.filing_date and o.filing_date > d.filing_date)]
        before.sort(key=lambda o: (o.filing_date or dt.date.min, o.key))
        links[part] = before[-1].doc_id if before else None
    return links
