"""Publishing: gate the index datasets, then upsert into the live index versions or build new ones.

The quality gate runs first on every dataset; a failure blocks all writes and all alias swaps. An index
whose live version was built with the same model, vector width and schema receives only the documents
whose Parquet changed since the last publish (one upsert per document part: new rows in, rows the
document no longer has out). Otherwise (first publish, ``--rebuild``, new model or schema) a new version is
loaded completely and the alias moves to it in one step; older versions beyond ``SEARCH_KEEP_VERSIONS``
are dropped. The lexicon is small and whole-corpus, so a changed lexicon always gets a new version.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from kernel.layout import INDEX_DATASETS, quarantine_prefix, state_key
from kernel.quarantine import quarantine
from kernel.reports import StageReport, write_run_report
from kernel.search import SearchBackend, VersionInfo
from kernel.search.base import alias_name
from kernel.settings import Settings
from kernel.storage import Lake, UnreadableParquet, dataset_partitions, read_parquet, read_partition
from quality.gates import GateReport, run_gates
from schemas.base import arrow_schema
from schemas.documents import QuarantineRecord
from schemas.index import INDEXES, IndexSpec

log = logging.getLogger(__name__)


STAGE = "publish"


class PublishError(RuntimeError):
    """Nothing to publish, or a rollback without a previous version."""


@dataclass
class IndexOutcome:
    index: str
    mode: str  # rebuild | upsert | unchanged
    version: str
    rows: int = 0  # rows written (loaded or upserted)
    deleted_documents: int = 0
    dropped_versions: list[str] = field(default_factory=list)


@dataclass
class PublishOptions:
    """How to publish: upsert into the live versions, or ``rebuild`` new ones; ``keep_versions`` previous
    versions stay for rollback (where: the backend passed to :func:`run`)."""

    rebuild: bool = False
    keep_versions: int = 2
    progress: Callable[[Iterable, str, int], Iterable] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, rebuild: bool = False, progress=None) -> PublishOptions:
        return cls(rebuild, settings.search_keep_versions, progress)


@dataclass
class PublishReport(StageReport):
    stage = "publish"
    backend: str = ""
    gate: GateReport | None = None
    indexes: list[IndexOutcome] = field(default_factory=list)
    orphans_dropped: list[str] = field(default_factory=list)  # versions a dead publisher left unserved

    @property
    def blocked(self) -> bool:
        return self.gate is not None and not self.gate.passed

    def summary(self) -> str:
        if self.blocked:
            return f"publish BLOCKED by the quality gate; aliases unchanged\n{self.gate.summary()}"
        parts = [f"{o.index}: {o.mode} {o.version} ({o.rows} rows written"
                 + (f", {o.deleted_documents} documents removed" if o.deleted_documents else "") + ")"
                 for o in self.indexes]
        warnings = "".join(f"\nquality warning: {w}" for w in (self.gate.warnings if self.gate else []))
        held = "".join(f"\nheld back (quarantine/publish/): {d}: {'; '.join(r)}"
                       for d, r in (self.gate.held_back if self.gate else {}).items())
        return f"published to {self.backend}: " + "; ".join(parts) + warnings + held


def schema_version(spec: IndexSpec) -> str:
    """Changes when the record schema changes: such a change needs a new version, not an upsert."""
    return hashlib.sha256(str(arrow_schema(spec.model)).encode()).hexdigest()[:12]


def _state_key(backend: SearchBackend) -> str:
    return state_key(f"publish_{backend.kind}")


def dataset_manifest(lake: Lake, spec: IndexSpec) -> dict[str, list[str]]:
    """part -> its files, from one listing of the index's dataset (``""``: a whole-corpus dataset's one file)."""
    dataset = INDEX_DATASETS[spec.name]
    if spec.doc_field is None:
        return {"": [dataset]} if lake.exists(dataset) else {}
    return dataset_partitions(lake, dataset)


def read_index_data(lake: Lake, spec: IndexSpec, manifest: dict[str, list[str]] | None = None) -> dict[str, pa.Table]:
    """part -> rows in the index's column order (one entry, ``""``, for whole-corpus datasets)."""
    schema = arrow_schema(spec.model)
    manifest = dataset_manifest(lake, spec) if manifest is None else manifest
    if spec.doc_field is None:
        return {part: read_parquet(lake, keys[0]).select(schema.names).cast(schema) for part, keys in manifest.items()}
    return {part: read_partition(lake, keys, schema) for part, keys in manifest.items()}


def fingerprints(lake: Lake, spec: IndexSpec, manifest: dict[str, list[str]]) -> dict[str, str]:
    """part -> what changes when its rows do: Spark names each output file uniquely per write, so a
    partition's file names; a whole-corpus dataset's bytes."""
    if not spec.doc_field:
        return {part: hashlib.sha256(lake.read_bytes(keys[0])).hexdigest() for part, keys in manifest.items()}
    return {part: hashlib.sha256("\n".join(keys).encode()).hexdigest() for part, keys in manifest.items()}


def run(lake: Lake, options: PublishOptions, backend: SearchBackend) -> PublishReport:
    """Gate, then publish every index to ``backend``, one publisher at a time (a second one gets
    PublisherBusy); ``options.progress(iterable, desc, total)`` wraps the per-index loop."""
    with backend.publish_lock():
        return _publish(lake, options, backend)


def _publish(lake: Lake, options: PublishOptions, backend: SearchBackend) -> PublishReport:
    rebuild, progress = options.rebuild, options.progress
    say = log.info
    manifests = {name: dataset_manifest(lake, spec) for name, spec in INDEXES.items()}  # one listing each
    try:
        data = {name: read_index_data(lake, spec, manifests[name]) for name, spec in INDEXES.items()}
    except UnreadableParquet as exc:  # nothing is published; the gate's run report names the part
        gate = GateReport(passed=False, problems=[f"quality gate: unreadable dataset part {exc.uri}"])
        gate.saved_to = lake.uri(write_run_report(lake, gate))
        raise
    if not data["passages"] or not data["documents"]:
        raise PublishError(f"nothing to publish in {lake.uri('index')}: run `secplat index` first")
    tables = {name: pa.concat_tables(parts.values()) for name, parts in data.items() if parts}
    passages = tables["passages"]
    dims = len(passages.column("vector")[0].as_py())
    model = passages.column("model")[0].as_py()
    say(f"quality gate on {', '.join(f'{n} ({t.num_rows} rows)' for n, t in tables.items())}")
    report = PublishReport(backend=backend.kind, gate=run_gates(tables, dims, lake))
    report.problems = list(report.gate.problems)
    if report.blocked:
        return report
    data = hold_back(lake, data, report.gate)
    try:
        state = json.loads(lake.read_bytes(_state_key(backend)))
    except FileNotFoundError:
        state = {}
    names = [n for n in INDEXES if data[n]]
    for name in names:
        report.orphans_dropped += drop_orphans(backend, INDEXES[name])
    for name in progress(names, "publish", len(names)) if progress else names:
        spec = INDEXES[name]
        if not data[name]:
            continue
        meta = {"model": model, "dims": dims if spec.has_vector else None, "schema": schema_version(spec)}
        index_state = state.get(name, {})
        parts = fingerprints(lake, spec, {part: manifests[name][part] for part in data[name]})
        outcome = _publish_index(backend, spec, data[name], parts, meta, index_state, rebuild, options.keep_versions,
                                 say)
        report.indexes.append(outcome)
        state[name] = index_state
        lake.write_bytes(_state_key(backend), json.dumps(state, indent=1, sort_keys=True).encode())
    for name in ("documents", "passages"):  # what a first query reads, made now (the embedded engine keeps it
        if any(o.index == name and o.mode != "unchanged" for o in report.indexes):  # on disk per version)
            backend.warm(alias_name(backend.prefix, name), INDEXES[name])
    return report


def _publish_index(backend: SearchBackend, spec: IndexSpec, parts: dict[str, pa.Table], fingerprints: dict[str, str],
                   meta: dict, index_state: dict, rebuild: bool, keep_versions: int, say) -> IndexOutcome:
    alias = alias_name(backend.prefix, spec.name)
    live = backend.alias_target(alias)
    live_meta = next((v.meta for v in backend.versions(spec, counts=False) if v.name == live), None) if live else None
    same_shape = live_meta is not None and all(live_meta.get(k) == v for k, v in meta.items())
    versions = _versions_state(index_state)
    held = versions.get(live) if live else None  # what the live version holds (after a rollback too)
    if not (same_shape and not rebuild and spec.doc_field is not None and held is not None):
        if same_shape and not rebuild and held is not None and held.get("parts") == fingerprints:
            return IndexOutcome(spec.name, "unchanged", live)
        version = backend.create_version(spec, meta["dims"], meta)
        say(f"{spec.name}: loading new version {version}")
        try:
            rows = backend.load(version, spec, (b for t in parts.values() for b in t.to_batches(max_chunksize=2000)))
        except BaseException:
            backend.drop(version)  # a half-loaded version must never become "previous" (rollback, retention)
            raise
        backend.swap_alias(alias, version)
        versions[version] = {"parts": fingerprints, "docs": {p: _doc_ids(spec, t) for p, t in parts.items()}}
        dropped = apply_retention(backend, spec, keep_versions)
        for name in dropped:
            versions.pop(name, None)
        return IndexOutcome(spec.name, "rebuild", version, rows, dropped_versions=dropped)
    known = held.setdefault("parts", {})
    docs = held.setdefault("docs", {})
    changed = [p for p, fp in fingerprints.items() if known.get(p) != fp]
    removed = [p for p in known if p not in parts]
    rows = 0
    if changed:  # one upsert for all changed documents: one commit, and one index refresh
        doc_ids = sorted({d for p in changed for d in [*docs.get(p, []), *_doc_ids(spec, parts[p])]})
        batches = (b for p in changed for b in parts[p].to_batches(max_chunksize=2000))
        rows = backend.upsert(live, spec, batches, replace_docs=doc_ids)
        for part in changed:
            known[part], docs[part] = fingerprints[part], _doc_ids(spec, parts[part])
    gone = sorted({d for p in removed for d in docs.get(p, [])})
    if gone:
        backend.delete(live, spec, doc_ids=gone)
    for part in removed:
        known.pop(part, None)
        docs.pop(part, None)
    if changed or removed:
        say(f"{spec.name}: upserted {len(changed)} document part(s), removed {len(removed)} into {live}")
    return IndexOutcome(spec.name, "upsert" if changed or removed else "unchanged", live, rows, len(gone))


def _versions_state(index_state: dict) -> dict[str, dict]:
    """Per kept version, the document parts (fingerprints) and ids it holds, so that a publish after a
    rollback upserts into the version now live instead of rebuilding (a state of one version per index,
    as older runs wrote it, is read as that version's)."""
    if "parts" in index_state:
        old = {k: index_state.pop(k) for k in ("version", "parts", "docs") if k in index_state}
        index_state["versions"] = {old["version"]: {"parts": old.get("parts", {}), "docs": old.get("docs", {})}}
    return index_state.setdefault("versions", {})


def hold_back(lake: Lake, data: dict[str, dict[str, pa.Table]], gate: GateReport) -> dict[str, dict[str, pa.Table]]:
    """The index data without the documents the gate held back (all their rows, in every index), each
    recorded under ``quarantine/publish/`` with the expectations it failed; documents that pass again
    are released. Held-back documents leave the live indexes like documents gone from the lake."""
    held = gate.held_back
    parts = {d: part for part, table in data["documents"].items() for d in table.column("doc_id").to_pylist()}
    for doc_id, reasons in held.items():
        quarantine(lake, STAGE, doc_id, parts.get(doc_id, doc_id), "quality gate: " + "; ".join(reasons))
    for key in list(lake.list(quarantine_prefix(STAGE))):
        record = QuarantineRecord.model_validate_json(lake.read_bytes(key))
        if record.document not in held:
            lake.delete(key)
    if not held:
        return data
    out = {}
    for name, tables in data.items():
        field = INDEXES[name].doc_field
        if field is None:
            out[name] = tables
            continue
        kept = {p: t.filter(pc.invert(pc.is_in(t.column(field), pa.array(sorted(held))))) for p, t in tables.items()}
        out[name] = {p: t for p, t in kept.items() if t.num_rows}
    return out


def drop_orphans(backend: SearchBackend, spec: IndexSpec) -> list[str]:
    """Versions newer than the live one: left by a publisher that died between load and swap (publishing
    is serialized by the lock, so no live publisher owns one). Dropped, so that none is ever taken for the
    previous version."""
    versions = backend.versions(spec, counts=False)
    live = next((i for i, v in enumerate(versions) if v.live), None)
    if live is None:
        return []
    doomed = [v.name for v in versions[live + 1:]]
    for name in doomed:
        log.warning("%s: dropping %s, a version a dead publisher loaded but never served", spec.name, name)
        backend.drop(name)
    return doomed


def _doc_ids(spec: IndexSpec, table: pa.Table) -> list[str]:
    return sorted(set(table.column(spec.doc_field).to_pylist())) if spec.doc_field else []


def apply_retention(backend: SearchBackend, spec: IndexSpec, keep: int) -> list[str]:
    """Drop versions older than the live one beyond the ``keep`` most recent previous ones."""
    versions = backend.versions(spec, counts=False)
    live = next((i for i, v in enumerate(versions) if v.live), None)
    if live is None:
        return []
    older = versions[:live]
    doomed = older[: max(0, len(older) - keep)]
    for v in doomed:
        backend.drop(v.name)
    return [v.name for v in doomed]


def rollback(backend: SearchBackend, index: str | None = None) -> dict[str, str]:
    """Point each alias (or one) back at the version before the live one; returns index -> version now live.
    Holds the publish lock: a rollback never interleaves with a publish."""
    with backend.publish_lock():
        return _rollback(backend, index)


def _rollback(backend: SearchBackend, index: str | None) -> dict[str, str]:
    names = [index] if index else list(INDEXES)
    moved = {}
    for name in names:
        if name not in INDEXES:
            raise PublishError(f"unknown index {name!r}; indexes: {', '.join(INDEXES)}")
        spec = INDEXES[name]
        versions = backend.versions(spec, counts=False)
        live = next((i for i, v in enumerate(versions) if v.live), None)
        if live is None or live == 0:
            if index:
                raise PublishError(f"{name}: no previous version to roll back to")
            continue
        target = versions[live - 1].name
        backend.swap_alias(alias_name(backend.prefix, name), target)
        moved[name] = target
    if not moved:
        raise PublishError("no index has a previous version to roll back to")
    return moved


def list_versions(backend: SearchBackend) -> dict[str, list[VersionInfo]]:
    return {name: backend.versions(spec) for name, spec in INDEXES.items()}
