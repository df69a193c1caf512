"""The lake layout: every key the platform reads or writes, and how its names are made, in one place.

::

    raw/edgar/<cik>/<accession-no-dashes>/          a crawled filing (primary document, exhibits, index.json,
                                                    its index page, filing.json; fetched.json while incomplete)
    raw/full-index/<year>/QTR<q>/form.idx           EDGAR's form index of a finished quarter (historical windows)
    manifests/filings.parquet                       every filing record, rebuilt after a crawl
    pdf/<cik>/<accession-no-dashes>.pdf             the paged PDF (pdf/external/<name>.pdf for arriving PDFs)
    datasets/<dataset>/<part>.parquet               per-document datasets: pages, documents, facts, items, chunks
    index/<name>                                    Spark outputs: passages, documents, tree_nodes (partitioned
                                                    by ``doc_part``), facts, concepts.parquet,
                                                    fact_series.parquet, lexicon.parquet, lexicon_counts,
                                                    ranker_pairs (the corpus's own training questions), ...
    index/state/<job>.json                          what each incremental job last did (the change ledger)
    index/ranker/<release>.json                     the learned page ranker trained for a release
    quarantine/<stage>/<part>.json                  a document a stage could not process, with the reason
    runs/<stage>/<UTC stamp>.json                   a stage's run report
    search/                                         the embedded search engine (local lakes only)

A *part* is one document's file name inside a dataset: the document's key made safe for a file name
(:func:`part_name`). Spark jobs read the part back from the file they read (:data:`PART_PATTERN`), so the
two spellings cannot drift apart.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path

from kernel.clock import utc_now
from kernel.storage import Lake, LocalLake, read_parquet_footer

RAW_PREFIX = "raw/edgar"
MANIFEST_KEY = "manifests/filings.parquet"
COMPANIES_KEY = "manifests/companies.json"  # the company directory (schemas.companies), rebuilt from:
COMPANY_RECORDS_PREFIX = "raw/companies"  # one record per company (<cik>.json), written by the crawl that read it
SEARCH_DIR = "search"

# Per-document datasets (one Parquet part per document) and the Spark-written index datasets.
DATASETS = ("pages", "documents", "facts", "items", "chunks")
INDEX_DATASETS = {
    "passages": "index/passages",
    "documents": "index/documents",
    "tree_nodes": "index/tree_nodes",
    "lexicon": "index/lexicon.parquet",
    "lexicon_counts": "index/lexicon_counts",
    "item_tokens": "index/item_tokens",
    "xbrl_concepts": "index/xbrl_concepts",
    "facts": "index/facts",
    "concepts": "index/concepts.parquet",
    "fact_series": "index/fact_series.parquet",
    "ranker_pairs": "index/ranker_pairs",
}
PARTITION_COLUMN = "doc_part"  # the column index datasets are partitioned by: the document's part name

FINGERPRINT_KEY = b"secplat.fingerprint"  # Parquet metadata key: the inputs a chunks part was made from
CONTENT_KEY = b"secplat.content"  # Parquet metadata key: what a chunks part holds, which later stages key on
REVISION_KEY = b"secplat.revision"  # Parquet metadata key: the document revision a chunks part was made from
PART_PATTERN = r"([^/]+)\.parquet$"  # a part name from the path of the file it lives in
_PART_RE = re.compile(PART_PATTERN)


# --- crawled filings ------------------------------------------------------------------------------
def filing_prefix(cik: int, accession: str) -> str:
    return f"{RAW_PREFIX}/{cik}/{accession.replace('-', '')}"


def record_key(cik: int, accession: str) -> str:
    """The filing record, written last: it marks a complete filing."""
    return f"{filing_prefix(cik, accession)}/filing.json"


def filing_index_key(cik: int, accession: str) -> str:
    """EDGAR's index.json of the filing (its file list and sizes: the primary document's truncation check)."""
    return f"{filing_prefix(cik, accession)}/index.json"


def fetch_progress_key(cik: int, accession: str) -> str:
    """The files of a filing fetched so far (name -> size, sha256) while it is incomplete: its rerun asks
    EDGAR only for the rest (``etl.crawl.filing_files``)."""
    return f"{filing_prefix(cik, accession)}/fetched.json"


def index_page_name(accession: str) -> str:
    """The file name of a filing's EDGAR index page (``<accession>-index.html``), kept beside its documents."""
    return f"{accession}-index.html"


def primary_document_key(cik: int, accession: str, primary_document: str) -> str:
    """A document of the filing (the primary one, or an exhibit) under its EDGAR file name."""
    return f"{filing_prefix(cik, accession)}/{primary_document}"


def company_record_key(cik: int) -> str:
    return f"{COMPANY_RECORDS_PREFIX}/{int(cik)}.json"


def pdf_key(doc_key: str) -> str:
    """The paged PDF of a document key (:func:`filing_part` or :func:`external_part`)."""
    return f"pdf/{doc_key}.pdf"


def filing_part(cik: int, accession: str) -> str:
    """A crawled filing's document key (``<cik>/<accession-no-dashes>``), the root of its part name."""
    return f"{cik}/{accession.replace('-', '')}"


def exhibit_part(cik: int, accession: str, name: str) -> str:
    """An exhibit's document key: its filing's, then its EDGAR file name."""
    return f"{filing_part(cik, accession)}/{name}"


def external_part(file_name: str) -> str:
    """The document key of a PDF that arrived as a file (not crawled)."""
    return f"external/{part_name(file_name)}"


# --- per-document datasets ---------------------------------------------------------------------------
def part_name(key: str) -> str:
    """A document's key as one safe file name (dataset parts and quarantine records use it)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", key)


def dataset_prefix(dataset: str) -> str:
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; datasets: {', '.join(DATASETS)}")
    return f"datasets/{dataset}"


def dataset_key(dataset: str, part: str) -> str:
    return f"{dataset_prefix(dataset)}/{part}.parquet"


def part_of(key: str) -> str:
    """The part name of a dataset file, from its lake key, path or URI."""
    found = _PART_RE.search(key)
    if not found:
        raise ValueError(f"not a dataset part: {key!r}")
    return found.group(1)


def dataset_parts(lake: Lake, dataset: str) -> list[str]:
    """The part names a dataset holds, sorted."""
    return sorted(part_of(k) for k in lake.list(dataset_prefix(dataset)) if k.endswith(".parquet"))


def finished_conversions(lake: Lake) -> set[str]:
    """The parts whose conversion finished: a conversion removes its facts part first and writes it last
    (``etl.convert.records.write_outputs``), so a document record without one is a conversion a kill
    interrupted, which the next convert run does again and segment leaves until then."""
    return set(dataset_parts(lake, "facts"))


def full_index_key(year: int, quarter: int) -> str:
    """EDGAR's form index of a finished quarter, as read (``etl.crawl.full_index``): it never changes."""
    return f"raw/full-index/{year}/QTR{quarter}/form.idx"


# --- state, quarantine, run reports --------------------------------------------------------------------
def state_key(job: str) -> str:
    return f"index/state/{job}.json"


def ranker_key(release: str) -> str:
    """The learned page ranker trained on a release's indexes (a query reads its release's model)."""
    return f"index/ranker/{release}.json"


def quarantine_prefix(stage: str) -> str:
    return f"quarantine/{stage}"


def quarantine_key(stage: str, part: str) -> str:
    return f"{quarantine_prefix(stage)}/{part_name(part)}.json"


def run_report_key(stage: str, when: dt.datetime | None = None) -> str:
    return f"{run_report_prefix(stage)}{run_stamp(when)}.json"


def run_report_prefix(stage: str) -> str:
    return f"runs/{stage}/"


RUN_STAMP = "%Y%m%dT%H%M%S%fZ"


def run_stamp(when: dt.datetime | None = None) -> str:
    """A run report's name: its UTC time, sortable (``20261127T043207123456Z``)."""
    return (when or utc_now()).strftime(RUN_STAMP)


def run_stamp_of(key: str) -> str:
    """The stamp a run report's key names (``runs/<stage>/<stamp>.json``)."""
    return key.rsplit("/", 1)[-1].removesuffix(".json")


def run_stamp_time(stamp: str) -> dt.datetime:
    """The UTC time a run stamp says."""
    return dt.datetime.strptime(stamp, RUN_STAMP).replace(tzinfo=dt.UTC)


# --- fingerprints --------------------------------------------------------------------------------------
def fingerprint(*inputs: object) -> str:
    """What a derived object was made from, as one digest: a rerun skips work whose fingerprint is unchanged."""
    return hashlib.sha256("|".join(str(i) for i in inputs).encode()).hexdigest()


def rows_digest(table, leave_out: tuple[str, ...] = ()) -> str:
    """A table's rows (a ``pyarrow.Table``), column by column, as one digest (its metadata and the columns
    ``leave_out`` left out): whether two writes of a part hold the same rows."""
    return fingerprint(*(f"{name}={json.dumps(table.column(name).to_pylist(), default=str)}"
                         for name in sorted(table.column_names) if name not in leave_out))


def chunk_fingerprint(lake: Lake, part: str) -> str | None:
    """What later stages key their reruns on: the fingerprint of what a document's chunks hold (a chunks
    part written before it was kept: of its inputs), or None when the document has no chunks yet. A new
    segmenter that makes the same chunks changes nothing downstream."""
    meta = _chunk_meta(lake, part)
    return (meta.get(CONTENT_KEY) or meta.get(FINGERPRINT_KEY) or b"").decode() or None


def chunk_inputs(lake: Lake, part: str) -> str | None:
    """The fingerprint of the inputs a document's chunks were made from (the segment stage's own rerun key),
    or None when the document has no chunks yet."""
    return _chunk_meta(lake, part).get(FINGERPRINT_KEY, b"").decode() or None


def chunk_revision(lake: Lake, part: str) -> int:
    """The document revision (its metadata's corrections) a chunks part was made from; 0 for a part written
    before it was kept."""
    return int(_chunk_meta(lake, part).get(REVISION_KEY, b"0").decode() or 0)


def _chunk_meta(lake: Lake, part: str) -> dict[bytes, bytes]:
    try:
        return read_parquet_footer(lake, dataset_key("chunks", part)).metadata or {}
    except FileNotFoundError:
        return {}


def chunk_fingerprints(lake: Lake) -> dict[str, str | None]:
    """part -> :func:`chunk_fingerprint` of every document with chunks: the index stage reads the footers
    once and hands them to each job's plan."""
    return {part: chunk_fingerprint(lake, part) for part in dataset_parts(lake, "chunks")}


# --- URIs ------------------------------------------------------------------------------------------------
def spark_uri(lake: Lake, key: str) -> str:
    """A lake key as a URI Spark reads: ``file:///abs/path`` for a local lake (whatever spelling its root
    had: relative, absolute or ``file://``), ``s3a://bucket/prefix/key`` for an S3 lake."""
    if isinstance(lake, LocalLake):
        return lake.local_path(key).as_uri()
    uri = lake.uri(key)
    if uri.startswith("s3://"):
        return "s3a://" + uri.removeprefix("s3://")
    raise ValueError(f"no Spark URI for lake {lake.root!r}")


def search_dir(local_lake_root: Path) -> Path:
    """The embedded search engine's directory under a local lake."""
    return local_lake_root / SEARCH_DIR
