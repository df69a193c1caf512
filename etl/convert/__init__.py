"""The conversion stage: raw filings (and PDFs that arrive as PDFs) to paged PDFs, pages and documents.

Per document it writes, atomically and in this order (keys from ``kernel.layout``)::

    pdf/<key>.pdf                          the paged PDF (page i = EDGAR page i)
    datasets/pages/<part>.parquet          PageRecord rows
    datasets/facts/<part>.parquet          FactRecord rows: the inline XBRL facts with their pages (etl.convert.ixbrl)
    datasets/documents/<part>.parquet      one DocumentRecord (written last: it marks the document done)

A document whose ``documents`` part holds the same source sha256 (and that has its ``facts`` part: a lake converted
before facts existed gets them on the next run) is skipped, so reruns are idempotent and
incremental. A document that fails gets ``quarantine/convert/<key>.json`` with the reason; the run goes on.

Where things are: ``options`` (ConvertOptions), ``report`` (ConvertReport), ``stage`` (the run: a job per document); one module per
kind of document (``filing``, ``exhibit``, ``pdf_file``), what they share (``rendering``) and how a document
lands in the lake (``records``).
"""

from etl.convert.options import ConvertOptions
from etl.convert.report import ConvertReport
from etl.convert.stage import run

__all__ = ["ConvertOptions", "ConvertReport", "run"]
