"""The segmentation run: each converted document's Items (releases: their sections) and chunks, written
with a fingerprint of their inputs; unchanged documents skipped, the failed quarantined."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import pyarrow as pa

from domain.rules import ANNUAL_REPORT_EXHIBIT
from domain.sec_items import expected_items, title_of
from etl import conservation as conserved
from etl.segment.annual_report import annual_report_sections
from etl.segment.chunking import Chunker, ChunkOptions
from etl.segment.items import Segmentation, segment
from etl.segment.options import SEGMENTER_VERSION, STAGE, SegmentOptions
from etl.segment.release_sections import release_sections
from etl.segment.report import SegmentReport
from kernel.layout import (
    CONTENT_KEY,
    FINGERPRINT_KEY,
    REVISION_KEY,
    chunk_fingerprint,
    chunk_inputs,
    chunk_revision,
    dataset_key,
    dataset_parts,
    fingerprint,
    finished_conversions,
    rows_digest,
)
from kernel.quarantine import quarantine, release
from kernel.run_policy import in_batch
from kernel.storage import Lake, read_parquet, write_parquet
from schemas.base import to_table
from schemas.chunks import ChunkRecord, ItemRecord

log = logging.getLogger(__name__)


def item_records(doc_id: str, form: str, seg: Segmentation, pages: list[str]) -> list[ItemRecord]:
    """Every span as a record, plus a ``missing`` record for every expected item that was not found."""
    rows = []
    for order, s in enumerate(seg.spans):
        end_page, end_off = s.end.page, s.end.offset
        if end_off == 0 and end_page > s.start.page:  # ends where the next page starts
            end_page -= 1
            end_off = len(pages[end_page])
        rows.append(ItemRecord(doc_id=doc_id, item=s.item, title=s.title, status=s.status, order=order,
                               page_start=s.start.page, page_end=end_page, char_start=s.start.offset,
                               char_end=end_off, heading=s.heading or None, method=seg.method))
    for key in seg.missing:
        rows.append(ItemRecord(doc_id=doc_id, item=key, title=title_of(form, key), status="missing", order=-1,
                               method=seg.method))
    return rows


def chunks_fingerprint(doc: dict, options: ChunkOptions, counter_name: str) -> str:
    """What a document's chunks are made from: its source, the chunk options, the tokenizer, this code; and
    its metadata's corrections since conversion (``revision``, absent while there are none): the later
    stages key on this, so a re-flagged document is indexed and published again."""
    revision = doc.get("revision") or 0
    return fingerprint(doc["source_sha256"], options, counter_name, SEGMENTER_VERSION, *([revision] if revision else []))


def content_key(lake: Lake, part: str, doc: dict, items: pa.Table, chunks: pa.Table) -> str:
    """What later stages key on (``kernel.layout.chunk_fingerprint``): the digest of the rows written (items
    and chunks), the document's source and corrections; the key the part has already when its rows and the
    document's revision are the same (a new segmenter that leaves a document's chunks as they were embeds
    nothing again, a lake written before content keys included). A document whose metadata was corrected
    (re-flagged, converted again with a mended cover) gets a new key even when its chunks are the same: the
    index and the published rows carry that metadata."""
    revision = doc.get("revision") or 0

    def of(items: pa.Table, chunks: pa.Table) -> str:
        return fingerprint(rows_digest(items), rows_digest(chunks), doc["source_sha256"], revision)

    key, old = of(items, chunks), chunk_fingerprint(lake, part)
    if old is None or old == key or chunk_revision(lake, part) != revision:
        return key
    try:
        before = of(read_parquet(lake, dataset_key("items", part)), read_parquet(lake, dataset_key("chunks", part)))
    except (FileNotFoundError, pa.ArrowInvalid):
        return key
    return old if before == key else key


def chunk_coverage(pages: list[str], chunks: list[ChunkRecord]) -> int:
    """Visible characters of the pages that some chunk's range covers (overlaps counted once): the
    segmentation side of the conservation rule, so text between items or dropped by the chunker shows."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for c in chunks:
        for p in range(c.page_start, c.page_end + 1):
            a = c.char_start if p == c.page_start else 0
            b = c.char_end if p == c.page_end else len(pages[p])
            spans.setdefault(p, []).append((a, b))
    kept = 0
    for p, ranges in spans.items():
        end = 0
        for a, b in sorted(ranges):
            a = max(a, end)
            if b > a:
                kept += conserved.visible(pages[p][a:b])
                end = b
    return kept


def document_sections(pages: list[str], doc: dict) -> Segmentation:
    """A filing's Items; an annual report's (EX-13) Items by its section titles; a release's sections."""
    kind = (doc.get("exhibit_type") or "").upper()
    if kind.startswith(ANNUAL_REPORT_EXHIBIT):
        return annual_report_sections(pages)
    return release_sections(pages) if kind else segment(pages, doc["form"] or "")


def segment_document(lake: Lake, part: str, doc: dict, chunker: Chunker) -> tuple[
        list[ItemRecord], list[ChunkRecord], Segmentation, str | None]:
    """Items and chunks of one document, and a warning when the chunks miss some of its page text
    (ContentLost, a ValueError, when they miss most of it: the document is quarantined)."""
    pages_table = read_parquet(lake, dataset_key("pages", part))
    order = sorted(range(pages_table.num_rows), key=lambda i: pages_table.column("page")[i].as_py())
    texts = pages_table.column("text").to_pylist()
    tables = pages_table.column("tables").to_pylist()
    pages = [texts[i] for i in order]
    page_tables = [tables[i] or [] for i in order]
    if len(pages) != doc["page_count"]:
        raise ValueError(f"pages dataset has {len(pages)} pages, the document says {doc['page_count']}")
    seg = document_sections(pages, doc)
    items = item_records(doc["doc_id"], doc["form"] or "", seg, pages)
    chunks = chunker.chunk(doc["doc_id"], pages, page_tables, seg)
    warning = conserved.check(chunk_coverage(pages, chunks), sum(conserved.visible(p) for p in pages),
                              "chunks hold {kept} of the page text's {read} visible characters")
    return items, chunks, seg, warning


def run(lake: Lake, options: SegmentOptions) -> SegmentReport:
    """Segment and chunk every converted document whose inputs changed since its last run."""
    progress = options.progress or (lambda it, desc, total: it)
    chunker = Chunker(options.counter, options.chunk)  # raises ChunkConfigError before any work
    report = SegmentReport()
    todo = []
    finished = finished_conversions(lake)
    for part in dataset_parts(lake, "documents"):
        doc = read_parquet(lake, dataset_key("documents", part)).to_pylist()[0]
        if not in_batch(doc.get("cik"), doc["doc_id"], options.batch):
            continue
        if part not in finished:  # a killed conversion's record: its pages may be missing or not yet replaced
            report.unfinished.append(f"{doc['doc_id']}: its conversion did not finish: convert does it again")
            continue
        fp = chunks_fingerprint(doc, options.chunk, options.model)
        if chunk_inputs(lake, part) == fp:
            report.skipped += 1
        else:
            todo.append((part, doc, fp))

    def one(job):
        part, doc, fp = job
        started = time.perf_counter()
        items, chunks, seg, warning = segment_document(lake, part, doc, chunker)
        items_table, table = to_table(ItemRecord, items), to_table(ChunkRecord, chunks)
        content = content_key(lake, part, doc, items_table, table)
        write_parquet(lake, dataset_key("items", part), items_table)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), FINGERPRINT_KEY: fp.encode(),
                                               CONTENT_KEY: content.encode(),
                                               REVISION_KEY: str(doc.get("revision") or 0).encode()})
        write_parquet(lake, dataset_key("chunks", part), table)
        release(lake, STAGE, part)
        return doc, len(chunks), seg, warning, time.perf_counter() - started

    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        futures = {pool.submit(one, job): job for job in todo}
        for fut in progress(as_completed(futures), "segment", len(futures)):
            part, doc, _ = futures[fut]
            try:
                doc, n, seg, warning, secs = fut.result()
            except (ValueError, KeyError, OSError) as exc:
                quarantine(lake, STAGE, doc["doc_id"], part, f"{type(exc).__name__}: {exc}",
                           dataset_key("pages", part))
                report.quarantined += 1
                report.problems.append(f"{doc['doc_id']}: quarantined: {exc}")
                continue
            report.segmented += 1
            report.chunks += n
            report.seconds.append(secs)
            if warning:
                report.content_warnings.append(f"{doc['doc_id']}: {warning}")
                log.warning("%s: %s", doc["doc_id"], warning)
            if seg.method == "none" and expected_items(doc["form"] or ""):
                report.no_items.append(doc["doc_id"])
                log.warning("%s: no recognizable items; chunked as 'unknown'", doc["doc_id"])
    return report
