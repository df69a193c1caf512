"""A reader's catalog of a new release is the one before changed by what the release changed (a nightly costs
its new documents, not the corpus), and it is the same catalog a fresh reader reads whole."""

from __future__ import annotations

from kernel.search import serve_version
from kernel.search.embedded import EmbeddedBackend
from kernel.search.embedded import backend as embedded
from query.catalog import Catalog
from schemas.base import to_table
from schemas.index import INDEXES
from tests.index_records import DIMS, records


def _catalog_state(catalog: Catalog) -> dict:
    return {d: (info.model_dump(), catalog.entities.names.get(info.entity or "")) for d, info in catalog.docs.items()}


def test_a_new_release_catalog_is_the_old_one_changed_and_equals_a_fresh_read(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded, "CHANGES_MAX_SHARE", 10.0)  # most of the few documents change here
    be = EmbeddedBackend(tmp_path / "search", prefix="t")
    spec = INDEXES["documents"]
    version = be.create_version(spec, DIMS, {"model": "test-model"})
    rows = records("v1")["documents"]
    be.load(version, spec, to_table(spec.model, rows).to_batches())
    serve_version(be, "documents", version)
    before = Catalog(be, None, be.live_release().targets["documents"])
    changed = {**rows[0], "page_count": 999}
    new = {**rows[1], "doc_id": "NEW_2024_10K", "source_name": "NEW_2024_10K", "company": "New Corp",
           "ticker": "NEWC", "fiscal_year": 2024}
    work = be.writable(be.live_release().targets["documents"], spec, {})
    be.upsert(work, spec, to_table(spec.model, [changed, new]).to_batches(), replace_docs=[rows[0]["doc_id"]])
    be.delete(work, spec, doc_ids=[rows[-1]["doc_id"]])
    serve_version(be, "documents", work)
    target = be.live_release().targets["documents"]
    scanned = []
    monkeypatch.setattr(be, "scan", lambda *a, **k: scanned.append(a) or EmbeddedBackend.scan(be, *a, **k))
    followed = Catalog(be, None, target, previous=before)
    assert not scanned  # built from the changes, not read whole
    fresh = Catalog(be, None, target)
    assert scanned and _catalog_state(followed) == _catalog_state(fresh)
    assert followed.docs[rows[0]["doc_id"]].page_count == 999 and "NEW_2024_10K" in followed.docs
    assert rows[-1]["doc_id"] not in followed.docs and followed.model == fresh.model
    assert [e.key for e in followed.entities.find("What did New Corp report?")] == ["new"]


def test_a_company_is_named_the_same_whatever_the_order_of_its_rows():
    """Foot Locker's 10-K cover put its file number where the name goes (a lake converted before the cover
    reader refused it), its 8-Ks read "Foot Locker, Inc.": the catalog names it by its 8-Ks in any row order,
    never "Commission File No. 1-10299" (a bad name kept the company's own words in the lexical query)."""
    from domain.companies import EntityIndex

    rows = [{"doc_id": d, "source_name": d, "company": c, "form": f} for d, c, f in (
        ("FOOTLOCKER_2022_10K", "Commission File No. 1-10299", "10-K"),
        ("FOOTLOCKER_2023_10K", "FOOTLOCKER", "10-K"),
        ("FOOTLOCKER_2022_8K_dated-2022-05-20", "Foot Locker, Inc.", "8-K"),
        ("FOOTLOCKER_2022_8K_dated_2023-02-21", "Foot Locker, Inc.", "8-K"))]
    named = set()
    for order in (rows, rows[::-1], rows[1:] + rows[:1]):
        entities, docs = EntityIndex(), {}
        Catalog._add_rows(order, entities, docs, {})
        assert len({d.entity for d in docs.values()}) == 1
        named.add((docs["FOOTLOCKER_2022_10K"].entity, entities.entities[docs["FOOTLOCKER_2022_10K"].entity].name))
    assert named == {("footlocker", "Foot Locker, Inc.")}


def test_a_followed_catalog_names_a_renamed_company_as_a_fresh_read_does(tmp_path, monkeypatch):
    """A document converted again under a mended name changes its company's votes: the catalog followed from
    the release before withdraws the old row's vote, so it shows the name a catalog read whole shows."""
    monkeypatch.setattr(embedded, "CHANGES_MAX_SHARE", 10.0)
    be = EmbeddedBackend(tmp_path / "search", prefix="t")
    spec = INDEXES["documents"]
    version = be.create_version(spec, DIMS, {"model": "test-model"})
    base = records("v1")["documents"][0]
    rows = [{**base, "doc_id": d, "doc_name": d, "source_name": d, "company": "X CORP", "ticker": None}
            for d in ("XCO_2022_10K", "XCO_2023_10K")]
    be.load(version, spec, to_table(spec.model, rows).to_batches())
    serve_version(be, "documents", version)
    before = Catalog(be, None, be.live_release().targets["documents"])
    assert {before.entities.entities[d.entity].name for d in before.docs.values()} == {"X CORP"}
    work = be.writable(be.live_release().targets["documents"], spec, {})
    mended = [{**r, "company": "X Corporation"} for r in rows]
    be.upsert(work, spec, to_table(spec.model, mended).to_batches(), replace_docs=[r["doc_id"] for r in rows])
    serve_version(be, "documents", work)
    target = be.live_release().targets["documents"]
    followed, fresh = Catalog(be, None, target, previous=before), Catalog(be, None, target)
    assert {followed.entities.entities[d.entity].name for d in followed.docs.values()} == {"X Corporation"}
    assert {fresh.entities.entities[d.entity].name for d in fresh.docs.values()} == {"X Corporation"}
