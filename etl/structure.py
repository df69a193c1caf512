"""The segmentation stage: pages and documents to items and chunks.

Per converted document it writes, atomically::

    datasets/items/<part>.parquet     ItemRecord rows: every expected item, found or explicitly missing
    datasets/chunks/<part>.parquet    ChunkRecord rows (written last: marks the document done)

The chunks part carries a fingerprint of its inputs (the document's source sha256, the chunk options, the
tokenizer and the segmenter version) in its Parquet metadata; a rerun skips documents whose fingerprint
is unchanged and redoes the rest, so changing CHUNK_TOKENS re-chunks everything and nothing else.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from etl.chunking import Chunker, ChunkOptions
from etl.quarantine import quarantine, release
from etl.sec_items import expected_items, title_of
from etl.segment import Segmentation, segment
from schemas.base import to_table
from schemas.chunks import ChunkRecord, ItemRecord
from secplat.models import TokenCounter
from secplat.storage import Lake, read_parquet, read_parquet_footer, write_parquet

log = logging.getLogger(__name__)

STAGE = "segment"
SEGMENTER_VERSION = "1"
FINGERPRINT_KEY = b"secplat.fingerprint"


@dataclass
class SegmentReport:
    segmented: int = 0
    skipped: int = 0
    quarantined: int = 0
    chunks: int = 0
    no_items: list[str] = field(default_factory=list)  # documents whose structure was not recognized
    problems: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.segmented} segmented ({self.chunks} chunks), {self.skipped} unchanged, "
                f"{self.quarantined} quarantined, {len(self.no_items)} without recognizable items")


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


def fingerprint(doc: dict, options: ChunkOptions, counter_name: str) -> str:
    parts = [doc["source_sha256"], str(options), counter_name, SEGMENTER_VERSION]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def chunk_fingerprint(lake: Lake, part: str) -> str | None:
    """The fingerprint a document's chunks were made with (what later stages key their reruns on), or
    None when the document has no chunks yet."""
    try:
        meta = read_parquet_footer(lake, f"datasets/chunks/{part}.parquet").metadata or {}
    except FileNotFoundError:
        return None
    return meta.get(FINGERPRINT_KEY, b"").decode() or None


def segment_document(lake: Lake, name: str, doc: dict, chunker: Chunker) -> tuple[list[ItemRecord],
                                                                                  list[ChunkRecord], Segmentation]:
    pages_table = read_parquet(lake, f"datasets/pages/{name}")
    order = sorted(range(pages_table.num_rows), key=lambda i: pages_table.column("page")[i].as_py())
    texts = pages_table.column("text").to_pylist()
    tables = pages_table.column("tables").to_pylist()
    pages = [texts[i] for i in order]
    page_tables = [tables[i] or [] for i in order]
    if len(pages) != doc["page_count"]:
        raise ValueError(f"pages dataset has {len(pages)} pages, the document says {doc['page_count']}")
    seg = segment(pages, doc["form"] or "")
    items = item_records(doc["doc_id"], doc["form"] or "", seg, pages)
    chunks = chunker.chunk(doc["doc_id"], pages, page_tables, seg)
    return items, chunks, seg


def run_segment(lake: Lake, counter: TokenCounter, options: ChunkOptions, counter_name: str, workers: int = 2,
                progress: Callable[[Iterable, str, int], Iterable] | None = None) -> SegmentReport:
    """Segment and chunk every converted document whose inputs changed since its last run."""
    progress = progress or (lambda it, desc, total: it)
    chunker = Chunker(counter, options)  # raises ChunkConfigError before any work
    report = SegmentReport()
    todo = []
    for key in sorted(lake.list("datasets/documents")):
        name = key.rsplit("/", 1)[-1]
        doc = read_parquet(lake, key).to_pylist()[0]
        fp = fingerprint(doc, options, counter_name)
        if chunk_fingerprint(lake, name.removesuffix(".parquet")) == fp:
            report.skipped += 1
        else:
            todo.append((name, doc, fp))

    def one(job):
        name, doc, fp = job
        started = time.perf_counter()
        items, chunks, seg = segment_document(lake, name, doc, chunker)
        write_parquet(lake, f"datasets/items/{name}", to_table(ItemRecord, items))
        table = to_table(ChunkRecord, chunks)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), FINGERPRINT_KEY: fp.encode()})
        write_parquet(lake, f"datasets/chunks/{name}", table)
        release(lake, STAGE, name.removesuffix(".parquet"))
        return doc, len(chunks), seg, time.perf_counter() - started

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, job): job for job in todo}
        for fut in progress(as_completed(futures), "segment", len(futures)):
            name, doc, _ = futures[fut]
            try:
                doc, n, seg, secs = fut.result()
            except (ValueError, KeyError, OSError) as exc:
                quarantine(lake, STAGE, doc["doc_id"], name.removesuffix(".parquet"), f"{type(exc).__name__}: {exc}",
                           f"datasets/pages/{name}")
                report.quarantined += 1
                report.problems.append(f"{doc['doc_id']}: quarantined: {exc}")
                continue
            report.segmented += 1
            report.chunks += n
            report.seconds.append(secs)
            if seg.method == "none" and expected_items(doc["form"] or ""):
                report.no_items.append(doc["doc_id"])
                log.warning("%s: no recognizable items; chunked as 'unknown'", doc["doc_id"])
    return report
