"""A published index N times larger, made from a real one, for query latency at scale without new data.

Every document is copied N-1 times under new ids (``<doc_id>~<c>``, its chunk and node ids likewise), text
kept, vectors perturbed slightly (Gaussian noise of ``NOISE`` per dimension, renormalized) so the copies are
near but not identical neighbours. The copies keep their company and move ``c`` years back (fiscal year,
period end, filing date), so a company has N times as many filings, one per period as over more years: a
question about one period finds one filing of it, as in a real history, while everything a company's
filings cost (the catalog, document search over the company, BM25 statistics) grows N times. The nightly
upsert's new filings are a year after their source's. The lexicon is corpus-wide and copied once. The result is a separate embedded
engine directory; loading it builds the same indexes a publish builds (BM25, scalar, and the ANN index
where the rows pass ``VECTOR_INDEX_MIN_ROWS``) and the pieces a publish makes. ``nightly_upsert`` then
publishes 50 filings' worth of documents into it, as a nightly refresh would.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernel.clock import utc_now
from kernel.search import serve_version
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend
from kernel.search.embedded.backend import table_meta
from schemas.index import INDEXES

NOISE = 0.01
ID_COLUMNS = ("doc_id", "chunk_id", "node_id")  # string ids that start with the document's id
LIST_ID_COLUMNS = ("children",)


def _renamed(table: pa.Table, copy: int, rng: np.random.Generator, years: int = 0) -> pa.Table:
    """One copy of a table's rows: ids suffixed, vectors perturbed, periods moved by ``years``."""
    table = _shifted(table, years)
    if copy == 0:
        return table
    docs = table.column("doc_id").to_pylist()
    for name in ID_COLUMNS:
        if name in table.column_names:
            values = [v.replace(d, f"{d}~{copy}", 1) if v else v for v, d in zip(table.column(name).to_pylist(),
                                                                                  docs, strict=True)]
            table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.string()))
    for name in LIST_ID_COLUMNS:
        if name in table.column_names:
            values = [[x.replace(d, f"{d}~{copy}", 1) for x in v] if v else v
                      for v, d in zip(table.column(name).to_pylist(), docs, strict=True)]
            table = table.set_column(table.schema.get_field_index(name), name,
                                     pa.array(values, table.schema.field(name).type))
    if "source_name" in table.column_names:
        names = [f"{n}~{copy}" if n else n for n in table.column("source_name").to_pylist()]
        table = table.set_column(table.schema.get_field_index("source_name"), "source_name", pa.array(names))
    if "vector" in table.column_names:
        field = table.schema.field("vector")
        flat = table.column("vector").combine_chunks()
        matrix = flat.values.to_numpy(zero_copy_only=False).reshape(len(flat), -1).astype(np.float32)
        matrix = matrix + rng.normal(0, NOISE, matrix.shape).astype(np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel(), pa.float32()), matrix.shape[1])
        table = table.set_column(table.schema.get_field_index("vector"), field, vectors.cast(field.type))
    return table


def _shifted(table: pa.Table, years: int) -> pa.Table:
    """The rows' fiscal years, period ends and filing dates moved by ``years`` (Feb 29 to Feb 28)."""
    if not years:
        return table
    for name in ("fiscal_year", "period_end", "filing_date"):
        if name not in table.column_names:
            continue
        field = table.schema.field(name)
        values = [None if v is None else v + years if isinstance(v, int) else _year_moved(v, years)
                  for v in table.column(name).to_pylist()]
        table = table.set_column(table.schema.get_field_index(name), field, pa.array(values, field.type))
    return table


def _year_moved(day, years: int):
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def build_scaled(source: EmbeddedBackend, root: Path, n: int, min_rows: int, seed: int = 7) -> dict:
    """``root`` (replaced) holds every index of ``source`` times ``n``. Returns build seconds, rows, disk MB."""
    shutil.rmtree(root, ignore_errors=True)
    dest = EmbeddedBackend(root, source.prefix, vector_index_min_rows=min_rows)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    rows = {}
    for spec in INDEXES.values():
        live = source.alias_target(alias_name(source.prefix, spec.name))
        if live is None:
            continue
        table = _with_all_columns(source.table(live).to_arrow(), spec)
        meta = {k: v for k, v in _meta(table).items() if k not in ("index", "created")}
        version = dest.create_version(spec, meta.get("dims"), meta)
        copies = n if spec.doc_field else 1
        batches = (b for c in range(copies) for b in _renamed(table, c, rng, -c).to_batches(max_chunksize=20_000))
        rows[spec.name] = dest.load(version, spec, batches)
        serve_version(dest, spec.name, version)
        if spec.name in ("documents", "passages"):  # the pieces a publish makes before its release goes live
            dest.warm(dest.alias_target(alias_name(dest.prefix, spec.name)), spec)
    seconds = time.perf_counter() - started
    disk = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return {"scale": n, "passages": rows.get("passages", 0), "rows": rows, "build_s": round(seconds, 1),
            "disk_mb": round(disk / 2**20, 1)}


def _with_all_columns(table: pa.Table, spec) -> pa.Table:
    """Columns the schema gained since the source was published, as nulls (defaults for booleans)."""
    from schemas.base import arrow_schema

    for field in arrow_schema(spec.model):
        if field.name not in table.column_names:
            fill = False if pa.types.is_boolean(field.type) else None
            table = table.append_column(field.name, pa.array([fill] * table.num_rows, field.type))
    return table


def _meta(table: pa.Table) -> dict:
    return table_meta(table.schema)


def nightly_upsert(source: EmbeddedBackend, dest: EmbeddedBackend, filings: int = 50, replaced: int = 10,
                   seed: int = 11) -> dict:
    """A nightly publish into a scaled store, the engine calls ``indexing.publish`` makes for an upsert:
    ``filings - replaced`` new filings (source documents copied under new ids) and ``replaced`` filings
    published again (same ids: their rows replaced), upserted into every per-document index's live version,
    the pieces made, one release committed, retention run. Returns the release, the wall clock time it went
    live (``time.time()``) and the seconds the whole publish took."""

    from indexing.publish import retain_releases
    from kernel.search.base import Release, release_id

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    live = dest.live_release()
    catalog = source.table(source.alias_target(alias_name(source.prefix, "documents"))).to_arrow()
    docs = sorted(catalog.column("doc_id").to_pylist())
    chosen = docs[:: max(1, len(docs) // filings)][:filings]
    targets, modes = dict(live.targets), {}
    for spec in INDEXES.values():
        if not spec.doc_field or spec.name not in targets:
            continue
        table = _with_all_columns(source.table(source.alias_target(alias_name(source.prefix, spec.name))).to_arrow(),
                                  spec)
        parts = []
        for i, doc in enumerate(chosen):
            rows = table.filter(pc.equal(table.column("doc_id"), doc))
            parts.append(_renamed(rows, 0, rng) if i < replaced else _renamed(rows, 10_000 + i, rng, 1))
        data = pa.concat_tables(parts, promote_options="permissive")
        work = dest.writable(targets[spec.name], spec, {})
        dest.upsert(work, spec, data.to_batches(max_chunksize=2_000),
                    replace_docs=sorted(set(data.column("doc_id").to_pylist())))
        targets[spec.name], modes[spec.name] = dest.pin(work), "upsert"
    for name in ("documents", "passages"):
        dest.warm(targets[name], INDEXES[name])
    release = Release(release_id(), utc_now().isoformat(), targets, live.id, modes)
    dest.commit_release(release)
    live_at = time.time()
    retain_releases(dest, 1)
    return {"release": release.id, "live_at": live_at, "publish_s": round(time.perf_counter() - started, 1),
            "filings": len(chosen), "replaced": min(replaced, len(chosen))}
