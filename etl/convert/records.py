"""A converted document and how it lands in the lake: its outputs written atomically, the documents
already converted, and the final ids settled across filings (``etl.convert.identity``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import pyarrow as pa

from domain.membership import MemberPeriod, member_flag
from etl.convert.identity import Identity, amendment_links, assign_ids
from etl.convert.ixbrl import Fact
from etl.convert.options import STAGE
from etl.convert.pdf_pages import PagedPdf
from kernel import faults
from kernel.company_directory import read_directory
from kernel.layout import (
    dataset_key,
    dataset_parts,
    part_name,
    rows_digest,
)
from kernel.quarantine import release
from kernel.storage import Lake, read_parquet, write_parquet
from schemas.base import arrow_schema, to_table
from schemas.documents import DocumentRecord, PageRecord
from schemas.facts import FactRecord


@dataclass
class Converted:
    """One converted document: its record, its pages and its iXBRL facts (none for PDFs)."""

    doc: DocumentRecord
    paged: PagedPdf
    facts: list[Fact] = field(default_factory=list)
    facts_seconds: float = 0.0  # the iXBRL extraction's share of render_seconds


def write_outputs(lake: Lake, key: str, paged: PagedPdf, doc: DocumentRecord, facts: list[Fact],
                  held: Held | None = None) -> DocumentRecord:
    """Write one document's PDF, record, pages and facts; ``held``: the lake's record of it before, whose
    revision a conversion of the same source carries (:func:`_revised`). Returns the record written.

    The order is what a kill anywhere leaves right: the facts part, the mark of a finished conversion
    (``kernel.layout.finished_conversions``), goes first and comes back last, so the next run converts the
    document again and segment leaves it alone meanwhile; the record goes before the pages, so that rerun
    compares its pages against the ones segment last read, not ones a killed run already replaced (a page
    text change would otherwise never reach its chunks)."""
    name = part_name(key)
    if held and held.identity.doc_name == doc.doc_name:  # a reconversion keeps its id from the first write on
        doc = doc.model_copy(update={"doc_id": held.identity.doc_id})
    facts_key = dataset_key("facts", name)
    facts_table = to_table(FactRecord, [FactRecord(doc_id=doc.doc_id, **vars(f)) for f in facts])
    facts_before = _facts_digest(lake, facts_key) if _same_source(held, doc) else None  # read before it goes
    lake.delete(facts_key)  # a no-op for a new document (every lake's delete is)
    faults.point("convert:facts removed")
    lake.write_bytes(doc.pdf_key, paged.pdf)
    pages = to_table(PageRecord, [PageRecord(doc_id=doc.doc_id, page=p.page, text=p.text, char_count=len(p.text),
                                             rendered_pages=p.rendered_pages, tables=p.tables) for p in paged.pages])
    doc = _revised(lake, name, held, doc, pages, facts_before, facts_table)
    write_parquet(lake, dataset_key("documents", name), to_table(DocumentRecord, [doc]))
    faults.point("convert:record written")
    write_parquet(lake, dataset_key("pages", name), pages)
    faults.point("convert:pages written")
    write_parquet(lake, facts_key, facts_table)
    release(lake, STAGE, key)
    return doc


def _facts_digest(lake: Lake, facts_key: str) -> str | None:
    """The facts a document's last conversion wrote, as a digest; None when there are none to read."""
    try:
        return rows_digest(read_parquet(lake, facts_key), ("doc_id",))
    except (FileNotFoundError, pa.ArrowInvalid):
        return None


# what a conversion writes that no later stage reads, or that the run settles after (ids, amendment links)
_NOT_CONTENT = ("processed_at", "render_seconds", "extract_seconds", "revision", "doc_id", "amends")


def _same_source(held: Held | None, doc: DocumentRecord) -> bool:
    """Whether a conversion is of the source the lake's record of it was made from (``convert --redo``)."""
    return held is not None and held.sha256 == doc.source_sha256


def _revised(lake: Lake, part: str, held: Held | None, doc: DocumentRecord, pages: pa.Table,
             facts_before: str | None, facts: pa.Table) -> DocumentRecord:
    """A document converted again from the same source (``convert --redo`` after a converter fix, facts
    added) keeps its revision when its record, pages and facts are what they were, and goes one up when they
    are not: segment, index and publish key on the source and the revision, so a mended company name, page
    text or fact period would otherwise never reach the published indexes. ``facts_before``: the digest of the
    facts written before (None: none to read); ``facts``: the ones written now. A new source starts again at 0."""
    if not _same_source(held, doc):
        return doc
    revision = held.row.get("revision") or 0
    try:  # the record as the run read it (``held.row``); the pages from the lake
        before = (rows_digest(pa.Table.from_pylist([held.row]), _NOT_CONTENT),
                  rows_digest(read_parquet(lake, dataset_key("pages", part)), ("doc_id",)))
    except (FileNotFoundError, pa.ArrowInvalid):
        before = None
    now = (rows_digest(to_table(DocumentRecord, [doc]), _NOT_CONTENT), rows_digest(pages, ("doc_id",)))
    same = before == now and facts_before == rows_digest(facts, ("doc_id",))
    return doc.model_copy(update={"revision": revision if same else revision + 1})


def membership(lake: Lake) -> dict[int, list[MemberPeriod]] | None:
    """Each company's S&P 500 periods from the company directory (the crawl records them); None when the
    directory knows no membership at all (then every document's ``sp500_member`` is None, not False)."""
    directory = read_directory(lake)
    if not any(r.sp500_periods for r in directory.values()):
        return None
    return {cik: [MemberPeriod(s.ticker, s.start, s.end) for s in r.sp500_periods] for cik, r in directory.items()}


def company_periods(periods: dict[int, list[MemberPeriod]] | None, cik: int | None) -> list[MemberPeriod] | None:
    """The directory's S&P 500 periods of the company ``cik``; None when the directory does not decide its
    documents' flags (no membership known, or a company it does not hold: a PDF that arrived as a PDF)."""
    return periods.get(cik) if periods is not None and cik is not None else None


def with_membership(doc: DocumentRecord, periods: dict[int, list[MemberPeriod]] | None) -> DocumentRecord:
    """The document with its ``sp500_member`` (domain.membership.member_flag), where the directory decides."""
    own = company_periods(periods, doc.cik)
    if own is None:
        return doc
    return doc.model_copy(update={"sp500_member": member_flag(own, doc.period_end, doc.filing_date)})


class Held(NamedTuple):
    """A document the lake holds, as a run reads it once."""

    identity: Identity
    sha256: str  # its source's
    row: dict  # its documents record


def converted_documents(lake: Lake) -> dict[str, Held]:
    """Every document already in the lake: part -> (its identity, its source sha256, its row). Read once per
    run: it decides what is unchanged, which ids are taken and which flags the directory has corrected."""
    out = {}
    for part in dataset_parts(lake, "documents"):
        rows = read_parquet(lake, dataset_key("documents", part)).to_pylist()
        if len(rows) == 1:
            out[part] = Held(_identity(part, rows[0]), rows[0]["source_sha256"], rows[0])
    return out


def reflag(lake: Lake, held: dict[str, Held], periods: dict[int, list[MemberPeriod]] | None) -> list[str]:
    """Documents converted before whose ``sp500_member`` the directory's periods now decide otherwise (the
    membership file was corrected): each part rewritten with the flag and its ``revision`` one up, so
    segment, index and publish redo it. One line per document; a directory with no membership changes none."""
    out = []
    for part, row in sorted((p, h.row) for p, h in held.items()):
        own = company_periods(periods, row.get("cik"))
        if own is None:
            continue
        flag = member_flag(own, row.get("period_end"), row.get("filing_date"))
        if flag != row.get("sp500_member"):
            _set_columns(lake, "documents", part, sp500_member=flag, revision=(row.get("revision") or 0) + 1)
            out.append(f"{row['doc_id']}: sp500_member {row.get('sp500_member')} -> {flag} (membership corrected)")
    return out


def _identity(part: str, doc: dict) -> Identity:
    key = doc.get("accession") or doc.get("source_name") or doc["doc_id"]
    if doc.get("exhibit_document"):  # an exhibit shares its filing's accession: its file name tells them apart
        key = f"{key}/{doc['exhibit_document']}"
    return Identity(part, doc["doc_id"], doc.get("doc_name") or doc["doc_id"], key, doc.get("filing_date"),
                    bool(doc.get("is_amendment")), doc.get("amends"))


def unsettled(lake: Lake, held: dict[str, Held]) -> dict[str, Identity]:
    """Documents a killed run left between their write and the settling of ids (a new document is written
    under its name, which another filing may hold, and renamed at the run's end): two documents under one
    id, of which those no later stage has used (no chunks part yet) are settled again as new ones."""
    by_id: dict[str, list[str]] = {}
    for part, h in held.items():
        by_id.setdefault(h.identity.doc_id, []).append(part)
    shared = [p for parts in by_id.values() if len(parts) > 1 for p in parts]
    if not shared:  # the usual run: no listing of the chunks
        return {}
    chunked = set(dataset_parts(lake, "chunks"))
    return {p: held[p].identity for p in shared if p not in chunked}


def settle_identity(lake: Lake, before: dict[str, Identity], converted: dict[str, DocumentRecord],
                    left: dict[str, Identity] | None = None) -> list[str]:
    """Give the documents converted in this run (and those a killed run ``left`` unsettled) their final ids
    (``etl.convert.identity``) and link every amendment to what it amends, rewriting the parts whose id or
    link changed (each part atomically, the documents part last: a kill in between leaves two documents
    under one id, which the next run settles). Returns one line per document whose name another filing
    holds."""
    left = left or {}
    new = {**left, **{part: _identity(part, doc.model_dump()) for part, doc in converted.items()}}
    before = {part: i for part, i in before.items() if part not in left}  # else it keeps the id it shares
    ids = assign_ids(before, new)
    shared = []
    for part, doc_id in ids.items():
        if doc_id != new[part].doc_id:
            shared.append(f"{new[part].doc_name} is also another filing's name: this one is {doc_id}")
            _set_columns(lake, "pages", part, doc_id=doc_id)
            _set_columns(lake, "facts", part, doc_id=doc_id)
            _set_columns(lake, "documents", part, doc_id=doc_id)
    current = {**before, **{p: replace(i, doc_id=ids[p]) for p, i in new.items()}}
    for part, amends in amendment_links(current).items():
        if current[part].amends != amends:
            _set_columns(lake, "documents", part, amends=amends)
    return shared


_RECORDS = {"documents": DocumentRecord, "pages": PageRecord, "facts": FactRecord}  # what _set_columns rewrites


def _set_columns(lake: Lake, dataset: str, part: str, **values) -> None:
    """Rewrite one part with some columns set to one value each (write-then-rename, like every part)."""
    key = dataset_key(dataset, part)
    table = read_parquet(lake, key)
    types = arrow_schema(_RECORDS[dataset])
    for name, value in values.items():
        at = table.schema.get_field_index(name)  # -1: a part written before the column existed
        column = pa.array([value] * table.num_rows, (table.schema if at >= 0 else types).field(name).type)
        table = table.set_column(at, name, column) if at >= 0 else table.append_column(name, column)
    write_parquet(lake, key, table)
