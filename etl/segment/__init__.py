"""The segmentation stage: pages and documents to items and chunks.

Per converted document it writes, atomically (keys from ``kernel.layout``)::

    datasets/items/<part>.parquet     ItemRecord rows: every expected item, found or explicitly missing
    datasets/chunks/<part>.parquet    ChunkRecord rows (written last: marks the document done)

The chunks part carries a fingerprint of its inputs (the document's source sha256, the chunk options, the
tokenizer and the segmenter version) in its Parquet metadata; a rerun skips documents whose fingerprint
is unchanged and redoes the rest, so changing CHUNK_TOKENS re-chunks everything and nothing else.

Where things are: ``options`` (SegmentOptions), ``report`` (SegmentReport), ``stage`` (the run); the rules:
``items`` (SEC Items), ``cross_reference`` (Items over page ranges), ``annual_report`` (an EX-13's Items),
``release_sections``, ``chunking``.
"""

from etl.segment.options import SegmentOptions
from etl.segment.report import SegmentReport
from etl.segment.stage import run

__all__ = ["SegmentOptions", "SegmentReport", "run"]
