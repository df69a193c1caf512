"""Publishing: gate the index datasets, write every index where no reader is served from, then make one
release live in one atomic step.

The quality gate runs first on every dataset; a failure blocks all writes. An index whose live version was
built with the same model, vector width and schema receives only the documents whose Parquet changed since
the last publish (one upsert per changed document part into a copy no release serves: on the embedded
engine new table versions of the same table, which readers pinned to the live release's table version do
not see). Otherwise (first publish, ``--rebuild``, new model or schema) a new version is loaded completely.
Then one release naming every index's target becomes live at once (``SearchBackend.commit_release``); a
publish killed at any point before it leaves the previous release served whole, and the next publish
drops what it left. Releases beyond the live one's ``SEARCH_KEEP_VERSIONS`` predecessors are dropped with
the versions only they read. ``rollback`` makes the live release's predecessor live again, whole.
"""

from __future__ import annotations

import hashlib
import logging

import pyarrow as pa
import pyarrow.compute as pc

from indexing.ledger import Ledger, changed_parts
from indexing.publish.options import PublishOptions
from indexing.publish.report import IndexOutcome, PublishError, PublishReport
from kernel import faults
from kernel.clock import utc_now
from kernel.layout import INDEX_DATASETS, quarantine_prefix
from kernel.quarantine import quarantine
from kernel.reports import write_run_report
from kernel.search import SearchBackend
from kernel.search.base import LEGACY_RELEASE, Release, physical_of, release_id
from kernel.storage import Lake, UnreadableParquet, dataset_partitions, read_parquet, read_partition
from quality.gates import GateReport, run_gates
from schemas.base import arrow_schema
from schemas.documents import QuarantineRecord
from schemas.index import INDEXES, IndexSpec

log = logging.getLogger(__name__)


STAGE = "publish"


def schema_version(spec: IndexSpec) -> str:
    """Changes when the record schema changes: such a change needs a new version, not an upsert."""
    return hashlib.sha256(str(arrow_schema(spec.model)).encode()).hexdigest()[:12]


def _ledger_job(backend: SearchBackend) -> str:
    """The publish's record in the change ledger: per index, per target, the parts it holds."""
    return f"publish_{backend.kind}"


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
    """Gate, then publish every index to ``backend`` as one release, one publisher at a time (a second one
    gets PublisherBusy); ``options.progress(iterable, desc, total)`` wraps the per-index loop."""
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
    report = PublishReport(backend=backend.kind, gate=run_gates(tables, dims, lake), swept=backend.sweep())
    report.problems = list(report.gate.problems)
    if report.blocked:
        return report
    data = hold_back(lake, data, report.gate)
    ledger = Ledger(lake)
    state = ledger.read(_ledger_job(backend))
    live = backend.live_release()
    targets = dict(live.targets) if live else {}
    names = [n for n in INDEXES if data[n]]
    for name in progress(names, "publish", len(names)) if progress else names:
        spec = INDEXES[name]
        meta = {"model": model, "dims": dims if spec.has_vector else None, "schema": schema_version(spec)}
        index_state = state.setdefault(name, {})
        parts = fingerprints(lake, spec, {part: manifests[name][part] for part in data[name]})
        outcome, target, held = _publish_index(backend, spec, data[name], parts, meta, targets.get(name),
                                               index_state, rebuild, say)
        report.indexes.append(outcome)
        targets[name] = target
        index_state[target] = held
        faults.point(f"publish:{outcome.mode} {name}")
    modes = {o.index: o.mode for o in report.indexes}
    release = live
    if live is None or targets != live.targets or live.id == LEGACY_RELEASE:  # else nothing changed
        release = Release(release_id(), utc_now().isoformat(), targets, live.id if live else None,
                          modes)
        for name in ("documents", "passages"):  # what a reader maps, made before any reader can see the release
            if modes.get(name, "unchanged") != "unchanged":  # (the embedded engine stores it per fragment)
                backend.warm(targets[name], INDEXES[name])
        ledger.write(_ledger_job(backend), state)  # before the release: its targets are known when it is live
        faults.point("publish:state written")
        backend.commit_release(release)  # the one step that makes every index's new target live
        faults.point("publish:release live")
    report.release = release.id
    report.dropped = retain_releases(backend, options.keep_versions)
    if _trim_state(backend, state):
        ledger.write(_ledger_job(backend), state)
    faults.point("publish:retention done")
    return report


def _publish_index(backend: SearchBackend, spec: IndexSpec, parts: dict[str, pa.Table], fingerprints: dict[str, str],
                   meta: dict, live: str | None, index_state: dict, rebuild: bool,
                   say) -> tuple[IndexOutcome, str, dict]:
    """One index into a version no reader is served from: (outcome, the target the new release reads, what
    that target holds: the parts' fingerprints and document ids)."""
    live_meta = _version_meta(backend, spec, physical_of(live)) if live else None
    same_shape = live_meta is not None and all(live_meta.get(k) == v for k, v in meta.items())
    held = _held(index_state, live) if live else None  # what the live target holds (after a rollback too)
    mode = publish_mode(same_shape, rebuild, spec.doc_field is not None, held is not None,
                        held is not None and held.get("parts") == fingerprints)
    if mode == "unchanged":
        return IndexOutcome(spec.name, "unchanged", physical_of(live)), live, held
    if mode == "rebuild":
        version = backend.create_version(spec, meta["dims"], meta)
        say(f"{spec.name}: loading new version {version}")
        try:
            rows = backend.load(version, spec, (b for t in parts.values() for b in t.to_batches(max_chunksize=2000)))
        except BaseException:
            backend.drop(version)  # a half-loaded version is never served (a killed one: retention drops it)
            raise
        docs = {p: _doc_ids(spec, t) for p, t in parts.items()}
        return IndexOutcome(spec.name, "rebuild", version, rows), backend.pin(version), \
            {"parts": fingerprints, "docs": docs}
    known, docs = dict(held.get("parts", {})), dict(held.get("docs", {}))
    changed = changed_parts(fingerprints, known)
    removed = [p for p in known if p not in parts]
    if not changed and not removed:
        return IndexOutcome(spec.name, "unchanged", physical_of(live)), live, held
    work = backend.writable(live, spec, meta)
    rows = 0
    if changed:  # one upsert for all changed documents: one commit, and one index refresh
        doc_ids = sorted({d for p in changed for d in [*docs.get(p, []), *_doc_ids(spec, parts[p])]})
        batches = (b for p in changed for b in parts[p].to_batches(max_chunksize=2000))
        rows = backend.upsert(work, spec, batches, replace_docs=doc_ids)
        for part in changed:
            known[part], docs[part] = fingerprints[part], _doc_ids(spec, parts[part])
    gone = sorted({d for p in removed for d in docs.get(p, [])})
    if gone:
        backend.delete(work, spec, doc_ids=gone)
    for part in removed:
        known.pop(part, None)
        docs.pop(part, None)
    say(f"{spec.name}: upserted {len(changed)} document part(s), removed {len(removed)} into {work}")
    return IndexOutcome(spec.name, "upsert", work, rows, len(gone)), backend.pin(work), {"parts": known, "docs": docs}


def publish_mode(same_shape: bool, rebuild: bool, per_document: bool, known: bool, same_parts: bool) -> str:
    """rebuild | upsert | unchanged, from what the live target is and holds: a new version unless the
    live one has the same model, width and schema, holds per-document parts we know, and no rebuild is
    asked; a whole-corpus index (the lexicon) is rebuilt when its bytes changed."""
    if not same_shape or rebuild or not known:
        return "rebuild"
    if same_parts:
        return "unchanged"
    return "upsert" if per_document else "rebuild"


def _version_meta(backend: SearchBackend, spec: IndexSpec, physical: str) -> dict | None:
    return next((v.meta for v in backend.versions(spec, counts=False) if v.name == physical), None)


def _held(index_state: dict, target: str) -> dict | None:
    """What ``target`` holds; a state written before releases keyed it by physical version."""
    return index_state.get(target) or index_state.get("versions", {}).get(physical_of(target))


def _trim_state(backend: SearchBackend, state: dict) -> bool:
    """Keep what the kept releases' targets hold (an entry per target: a rollback diffs against its own);
    whether anything was dropped."""
    kept = {t for r in backend.releases() for t in r.targets.values()}
    dropped = [(index_state, key) for index_state in state.values() for key in index_state if key not in kept]
    for index_state, key in dropped:
        index_state.pop(key)
    return bool(dropped)


def retain_releases(backend: SearchBackend, keep: int) -> list[str]:
    """Keep the live release and the ``keep`` releases before it (its parent chain: what rollback walks);
    drop every other release, every physical version no kept release reads (a dead publisher's half-loaded
    one too), and older table versions. Returns the physical versions dropped."""
    live = backend.live_release()
    if live is None:
        return []
    by_id = {r.id: r for r in backend.releases()}
    chain = [live]
    while len(chain) <= keep and chain[-1].parent in by_id:
        chain.append(by_id[chain[-1].parent])
    kept = {r.id for r in chain}
    for rid in sorted(by_id):
        if rid not in kept:
            backend.drop_release(rid)
    targets = {t for r in chain for t in r.targets.values()}
    physical = {physical_of(t) for t in targets}
    dropped = []
    for spec in INDEXES.values():
        for v in backend.versions(spec, counts=False):
            if v.name not in physical:
                backend.drop(v.name)
                dropped.append(v.name)
    backend.prune(targets)
    return dropped


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


def _doc_ids(spec: IndexSpec, table: pa.Table) -> list[str]:
    return sorted(set(table.column(spec.doc_field).to_pylist())) if spec.doc_field else []


def rollback(backend: SearchBackend) -> tuple[Release, Release]:
    """Make the live release's parent live again, every index at once (upserts included); returns (the
    release left, the release now live). Holds the publish lock: never interleaves with a publish."""
    with backend.publish_lock():
        live = backend.live_release()
        if live is None:
            raise PublishError("nothing is published: there is no release to roll back")
        parent = next((r for r in backend.releases() if r.id == live.parent), None)
        if parent is None:
            why = "it is the first release" if live.parent is None else f"its previous release {live.parent} " \
                "is no longer kept (SEARCH_KEEP_VERSIONS)"
            raise PublishError(f"release {live.id} cannot be rolled back: {why}")
        faults.point("rollback:before")
        backend.commit_release(parent)
        faults.point("rollback:release live")
        return live, parent
