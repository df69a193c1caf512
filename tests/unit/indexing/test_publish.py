"""Publishing on the embedded engine: first publish, incremental upserts, rebuilds with retention, and the
quality gate blocking a corrupted dataset while the alias keeps serving the previous version."""

from __future__ import annotations

import json
import math

import pytest

from indexing.publish import PublishError, rollback
from kernel.resources import Resources
from kernel.search import open_backend
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.cli import main
from shell.runner import run_stage
from tests.index_records import records, write_index_lake


@pytest.fixture
def lake(tmp_path):
    write_index_lake(tmp_path, records("v1"))
    return tmp_path


def publish(settings, rebuild: bool = False):
    return run_stage("publish", Resources(settings), rebuild=rebuild)


def _settings(lake, **kw):
    return load_settings(lake_root=str(lake), search_keep_versions=1, **kw)


def _served(settings, index="passages"):
    backend = EmbeddedBackend.from_settings(settings)
    spec = INDEXES[index]
    hits = backend.bm25(alias_name(backend.prefix, index), spec, "Coca-Cola PepsiCo revenues risk annual", k=100)
    return backend, {h.id: h.source.get("source_name") for h in hits}


def test_publish_then_upsert_then_rebuild(lake):
    settings = _settings(lake)
    report = publish(settings)
    assert not report.blocked and {o.mode for o in report.indexes} == {"rebuild"}
    assert report.gate.passed and report.gate.saved_to
    backend, served = _served(settings)
    assert len(served) == 20 and set(served.values()) == {"v1"}
    assert {o.mode for o in publish(settings).indexes} == {"unchanged"}

    # KO re-segmented: one chunk fewer, new text; PEP untouched
    data = records("v1")
    data["passages"] = [p for p in records("v2")["passages"] if p["doc_id"] == "KO_2023_10K"][:-1] + \
        [p for p in data["passages"] if p["doc_id"] == "PEP_2023_10K"]
    data["tree_nodes"] = [{**n, "chunk_ids": [c for c in n["chunk_ids"] if c in {p["chunk_id"] for p in
                                                                              data["passages"]}]}
                          for n in data["tree_nodes"]]
    data["tree_nodes"] = [n for n in data["tree_nodes"] if n["chunk_ids"]]
    write_index_lake(lake, data)
    report = publish(settings)
    modes = {o.index: o.mode for o in report.indexes}
    assert modes["passages"] == "upsert" and modes["lexicon"] == "unchanged"
    _, served = _served(settings)
    assert len(served) == 19
    assert {v for k, v in served.items() if k.startswith("KO")} == {"v2"}
    assert {v for k, v in served.items() if k.startswith("PEP")} == {"v1"}

    # PEP removed from the lake: its rows leave the live index
    data["passages"] = [p for p in data["passages"] if p["doc_id"] == "KO_2023_10K"]
    data["documents"] = [d for d in data["documents"] if d["doc_id"] == "KO_2023_10K"]
    data["tree_nodes"] = [n for n in data["tree_nodes"] if n["doc_id"] == "KO_2023_10K"]
    data["facts"] = [f for f in data["facts"] if f["doc_id"] == "KO_2023_10K"]
    write_index_lake(lake, data)
    report = publish(settings)
    assert next(o for o in report.indexes if o.index == "passages").deleted_documents == 1
    _, served = _served(settings)
    assert served and all(k.startswith("KO") for k in served)

    # rebuilds: new versions, aliases move, one previous version kept
    first = backend.alias_target(alias_name(backend.prefix, "passages"))
    publish(settings, rebuild=True)
    report = publish(settings, rebuild=True)
    passages = next(o for o in report.indexes if o.index == "passages")
    assert passages.mode == "rebuild" and first in report.dropped
    assert len(backend.versions(INDEXES["passages"])) == 2
    left, live = rollback(open_backend(settings))
    assert left.id == report.release and live.physical("passages") != passages.version


def test_corrupted_dataset_fails_the_gate_and_the_alias_keeps_serving(lake):
    settings = _settings(lake)
    publish(settings)
    backend, before = _served(settings)
    live = backend.alias_target(alias_name(backend.prefix, "passages"))

    data = records("bad")
    data["passages"][0]["vector"] = [math.nan] * len(data["passages"][0]["vector"])  # NaN vector
    data["passages"][2]["chunk_id"] = data["passages"][1]["chunk_id"]  # duplicate chunk id
    data["passages"][3]["page_end"] = 500  # past the end of a 120-page document
    data["passages"][4]["vector"] = [0.0] * len(data["passages"][4]["vector"])  # all-zero vector
    data["passages"][5]["text"] = "  \n "  # a vector without text
    data["tree_nodes"][0]["text"] = ""
    write_index_lake(lake, data)
    report = publish(settings)
    assert report.blocked and report.problems
    # the bad rows are Coca-Cola's: one document of two, more than MAX_HELD_BACK, so the publish is blocked
    assert set(report.gate.held_back) == {"KO_2023_10K"}
    failed = {(f.dataset, f.expectation, tuple(f.columns)) for f in report.gate.failures + report.gate.row_failures}
    assert ("documents", "held_back_share", ("doc_id",)) in failed
    assert ("passages", "expect_column_values_to_be_in_set", ("vector_finite",)) in failed
    assert ("passages", "expect_column_values_to_be_unique", ("chunk_id",)) in failed
    assert ("passages", "expect_column_pair_values_a_to_be_greater_than_b", ("page_count", "page_end")) in failed
    assert ("passages", "expect_column_values_to_be_in_set", ("vector_nonzero",)) in failed
    assert ("passages", "expect_column_values_to_be_between", ("text_chars",)) in failed
    assert ("tree_nodes", "expect_column_values_to_be_between", ("text_chars",)) in failed
    zero = next(f for f in report.gate.row_failures if f.columns == ["vector_nonzero"])
    assert zero.examples == [data["passages"][4]["chunk_id"]]
    bad_page = next(f for f in report.gate.row_failures if "page_end" in f.columns and "page_count" in f.columns)
    assert bad_page.examples == [data["passages"][3]["chunk_id"]]
    # nothing was written: the alias serves the same version and rows as before
    assert backend.alias_target(alias_name(backend.prefix, "passages")) == live
    _, after = _served(settings)
    assert after == before
    saved = json.loads(max((lake / "runs" / "quality").glob("*.json")).read_text())
    assert saved["passed"] is False and saved["results"]["passages"]["success"] is False


def test_cli_publish_list_versions_rollback(lake, capsys, monkeypatch):
    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert main(["publish"]) == 0
    assert "published to embedded" in capsys.readouterr().out
    assert main(["list-versions", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    versions = listing["versions"]
    assert set(versions) == set(INDEXES) and all(len(v) == 1 and v[0]["live"] for v in versions.values())
    assert [r["id"] for r in listing["releases"]] == [listing["live"]]
    assert main(["rollback"]) == 3  # nothing to roll back to: one line, no traceback
    err = capsys.readouterr().err
    assert "cannot be rolled back: it is the first release" in err and err.count("\n") == 1
    assert main(["publish", "--rebuild"]) == 0
    capsys.readouterr()
    assert main(["list-versions"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("releases:") and out.count(" * r") == 1
    assert main(["rollback"]) == 0
    assert f"release {listing['live']}" in capsys.readouterr().out


def test_publish_without_index_data_says_what_to_run(tmp_path):
    with pytest.raises(PublishError, match="secplat index"):
        publish(_settings(tmp_path))


def _many_10ks(n: int, missing_core: int) -> dict:
    """n 10-K documents; the first ``missing_core`` have no Item 7 chunks."""
    from schemas.base import to_table

    base = records("v1")
    docs, passages = [], []
    for i in range(n):
        doc_id = f"D{i:02d}_2023_10K"
        docs.append({**base["documents"][0], "doc_id": doc_id})
        for p in base["passages"]:
            if p["doc_id"] == "KO_2023_10K" and not (i < missing_core and p["item"] == "7"):
                passages.append({**p, "doc_id": doc_id, "chunk_id": p["chunk_id"].replace("KO_2023_10K", doc_id)})
    return {"documents": to_table(INDEXES["documents"].model, docs),
            "passages": to_table(INDEXES["passages"].model, passages)}


def test_item_coverage_tolerates_a_few_10ks_and_fails_many():
    from quality.gates import run_gates

    few = run_gates(_many_10ks(20, 1), dims=16)
    assert few.passed and [w.examples for w in few.warnings] == [["D00_2023_10K"]]
    many = run_gates(_many_10ks(20, 4), dims=16)
    assert not many.passed and many.failures[0].columns == ["core_items_ok"]


def test_a_query_with_another_embedding_model_is_refused(lake, capsys, monkeypatch):
    """The published vectors came from "test-model"; a question embedded by the configured MiniLM would be
    compared with them silently. The CLI exits 2 naming both models, the HTTP API answers 503 saying so."""
    from fastapi.testclient import TestClient

    from query import Retriever
    from shell.http import create_app

    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert main(["publish"]) == 0
    capsys.readouterr()
    assert main(["query", "Coca-Cola revenues"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "'test-model'" in err and "'all-MiniLM-L6-v2'" in err
    client = TestClient(create_app(Retriever(Resources(_settings(lake)))))
    response = client.post("/search", json={"question": "Coca-Cola revenues"})
    assert response.status_code == 503 and "test-model" in response.json()["detail"]


def test_http_api_refuses_bad_input_without_echoing_it_and_serves_docs_offline(lake, monkeypatch):
    """A lone surrogate is a 422 (it was a 500: the error handler failed echoing it), a 10 MB question is a
    422 that does not send the 10 MB back, and /docs loads Swagger UI from this server, not a CDN."""
    from fastapi.testclient import TestClient

    from query import Retriever
    from shell.http import create_app

    settings = _settings(lake)
    publish(settings)
    client = TestClient(create_app(Retriever(Resources(settings))), raise_server_exceptions=False)
    bad = client.post("/search", content=b'{"question": "rev \\ud800 enue"}',
                      headers={"content-type": "application/json"})
    assert bad.status_code == 422 and "unicode" in bad.text.lower() and "enue" not in bad.text
    huge = client.post("/search", json={"question": "x" * 10_000_000})
    assert huge.status_code == 422 and len(huge.content) < 1000 and "question" in huge.text
    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200 and "cdn" not in html.text.lower() and "http" not in html.text.split("<body>")[0]
        assert "http" not in html.text.split("<body>")[1].split("</body>")[0].replace("http-equiv", "")
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"):
        assert client.get(f"/static/docs/{asset}").status_code == 200


def test_a_truncated_parquet_part_is_one_line_naming_the_file_and_the_gate_report_says_so(lake, capsys,
                                                                                         monkeypatch):
    """Nothing is half-published: the aliases keep serving, the CLI says which file in one line (exit 3), and
    the quality run report names the unreadable part."""
    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert main(["publish"]) == 0
    capsys.readouterr()
    part = sorted((lake / "index" / "passages").rglob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:-200])  # cut short: the footer is gone
    assert main(["publish"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and part.name in err and "Parquet" in err
    saved = json.loads(max((lake / "runs" / "quality").glob("*.json")).read_text())
    assert saved["passed"] is False and part.name in saved["problems"][0]


def test_publish_after_a_rollback_upserts_into_the_version_now_live(lake):
    """The publish state remembers what each kept version holds: after a rollback, the next plain publish
    upserts the changed document into the version now live (it used to build a new version, since the
    state named only the version rolled back from)."""
    settings = _settings(lake)
    publish(settings)
    backend = open_backend(settings)
    alias = alias_name(backend.prefix, "passages")
    older = backend.alias_target(alias)
    publish(settings, rebuild=True)
    assert rollback(backend)[1].physical("passages") == older
    data = records("v1")
    data["passages"] = [p for p in records("v2")["passages"] if p["doc_id"] == "KO_2023_10K"] + \
        [p for p in data["passages"] if p["doc_id"] == "PEP_2023_10K"]
    write_index_lake(lake, data)
    report = publish(settings)
    passages = next(o for o in report.indexes if o.index == "passages")
    assert (passages.mode, passages.version) == ("upsert", older)
    assert backend.alias_target(alias) == older
    _, served = _served(settings)
    assert {v for k, v in served.items() if k.startswith("KO")} == {"v2"}
    assert {v for k, v in served.items() if k.startswith("PEP")} == {"v1"}
    assert {o.mode for o in publish(settings).indexes} == {"unchanged"}


def test_serve_with_several_workers_builds_the_app_in_each(lake, monkeypatch):
    """`secplat serve --workers 2`: uvicorn's worker processes build the app from the environment (the
    command's --lake reaches them); each answers, and each refuses a model mismatch the same way."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    from tests.conftest import free_port

    publish(_settings(lake))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "LAKE_ROOT"}
    server = subprocess.Popen([str(Path(sys.executable).with_name("secplat")), "serve", "--lake", str(lake),
                               "--port", str(port), "--workers", "2"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.3)
        assert health.json()["indexes"]["passages"].startswith("secplat-passages-v") and health.json()["release"]
        answers = {httpx.post(f"http://127.0.0.1:{port}/search", json={"question": "revenues"},
                              timeout=60).status_code for _ in range(4)}
        assert answers == {503}  # "test-model" published, MiniLM configured: refused in every worker
    finally:
        server.terminate()
        server.wait(timeout=60)


def _corpus(n: int) -> dict:
    """n documents (the Coca-Cola records under new ids), each with passages and tree nodes."""
    base = records("v1")
    out: dict = {"documents": [], "passages": [], "tree_nodes": [], "lexicon": base["lexicon"]}
    for i in range(n):
        doc_id = f"D{i:02d}_2023_10K"
        out["documents"].append({**base["documents"][0], "doc_id": doc_id})
        for name in ("passages", "tree_nodes"):
            id_field = INDEXES[name].id_field
            for row in base[name]:
                if row["doc_id"] == "KO_2023_10K":
                    new = {**row, "doc_id": doc_id, id_field: row[id_field].replace("KO_2023_10K", doc_id)}
                    if "chunk_ids" in new:
                        new["chunk_ids"] = [c.replace("KO_2023_10K", doc_id) for c in new["chunk_ids"]]
                    out[name].append(new)
    return out


def test_documents_failing_row_checks_are_held_back_and_the_rest_publishes(tmp_path, capsys, monkeypatch):
    """One document of 30 without a period (an 8-K name that says none, say): it is quarantined under
    quarantine/publish/ with the expectation, its rows are in no index, the other 29 publish, and the CLI
    says what was held back (exit 1). When it is fixed, the next publish serves it and releases it."""
    data = _corpus(30)
    data["documents"][7].update(fiscal_year=None, period_end=None)
    write_index_lake(tmp_path, data)
    monkeypatch.setenv("LAKE_ROOT", str(tmp_path))
    assert main(["publish"]) == 1
    captured = capsys.readouterr()
    assert "held back" in captured.out and "D07_2023_10K" in captured.err and "period_known" in captured.err
    (record,) = [json.loads((tmp_path / k).read_text()) for k in
                 [p.relative_to(tmp_path) for p in (tmp_path / "quarantine" / "publish").glob("*.json")]]
    assert record["document"] == "D07_2023_10K" and "period_known" in record["reason"]
    backend = EmbeddedBackend.from_settings(_settings(tmp_path))
    for name in ("documents", "passages", "tree_nodes"):
        rows = backend.scan(alias_name(backend.prefix, name), INDEXES[name], ["doc_id"])
        assert {r["doc_id"] for r in rows} == {d["doc_id"] for d in data["documents"]} - {"D07_2023_10K"}, name

    data["documents"][7].update(fiscal_year=2023)
    write_index_lake(tmp_path, data)
    assert main(["publish"]) == 0
    rows = backend.scan(alias_name(backend.prefix, "documents"), INDEXES["documents"], ["doc_id"])
    assert "D07_2023_10K" in {r["doc_id"] for r in rows}
    assert not list((tmp_path / "quarantine" / "publish").glob("*.json"))


def test_a_dataset_level_failure_still_blocks(tmp_path):
    """A vector width that is not the model's, or too many documents failing, blocks the whole publish."""
    from quality.gates import run_gates
    from schemas.base import to_table

    data = _corpus(30)
    tables = {name: to_table(INDEXES[name].model, rows) for name, rows in data.items()}
    assert run_gates(tables, dims=16).passed
    wrong = run_gates(tables, dims=32)  # the published model's width differs: a dataset-level failure
    assert not wrong.passed and any(f.columns == ["vector_dims"] for f in wrong.failures)
    for doc in data["documents"][:3]:  # 3 of 30 = 10% > MAX_HELD_BACK
        doc.update(fiscal_year=None, period_end=None)
    many = run_gates({name: to_table(INDEXES[name].model, rows) for name, rows in data.items()}, dims=16)
    assert not many.passed and many.failures[0].expectation == "held_back_share" and len(many.held_back) == 3


def test_a_load_that_fails_half_way_drops_its_version(lake, monkeypatch):
    """A version whose load failed is dropped at once (both backends share this code): it never sorts as
    "previous", so rollback cannot serve it and retention does not keep it."""
    settings = _settings(lake)
    publish(settings)
    backend = EmbeddedBackend.from_settings(settings)
    before = {n: [v.name for v in backend.versions(INDEXES[n])] for n in INDEXES}
    real = EmbeddedBackend.load

    def half(self, target, spec, batches):
        real(self, target, spec, [next(iter(batches))])  # some rows land, then the connection drops
        raise OSError("connection lost during load")

    monkeypatch.setattr(EmbeddedBackend, "load", half)
    with pytest.raises(OSError, match="connection lost"):
        publish(settings, rebuild=True)
    assert {n: [v.name for v in backend.versions(INDEXES[n])] for n in INDEXES} == before
    monkeypatch.undo()
    with pytest.raises(PublishError, match="it is the first release"):  # the failed one is gone
        rollback(backend)


def test_http_api_keys(lake, capsys, monkeypatch):
    """With API_KEYS set, /search wants a key (X-API-Key or Bearer): 401 without or with a wrong one; the
    health check stays open. Serving beyond 127.0.0.1 without keys is refused in one line; keys are never
    printed."""
    from fastapi.testclient import TestClient

    from query import Retriever
    from shell.http import create_app

    settings = _settings(lake, api_keys="k-one, k-two")
    assert settings.api_key_list() == ["k-one", "k-two"]
    publish(settings)
    client = TestClient(create_app(Retriever(Resources(settings)), settings.api_key_list()))
    ask = {"question": "Coca-Cola revenues"}
    assert client.post("/search", json=ask).status_code == 401
    assert client.post("/search", json=ask, headers={"X-API-Key": "k-three"}).status_code == 401
    denied = client.post("/search", json=ask, headers={"Authorization": "Bearer k-on"})
    assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"
    # past the gate (503: the fixture's vectors come from "test-model", not the configured model)
    assert client.post("/search", json=ask, headers={"X-API-Key": "k-two"}).status_code == 503
    assert client.post("/search", json=ask, headers={"Authorization": "Bearer k-one"}).status_code == 503
    assert client.get("/health").status_code == 200
    open_client = TestClient(create_app(Retriever(Resources(settings))))  # no keys configured: no access control
    assert open_client.post("/search", json=ask).status_code == 503

    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "API_KEYS" in err
    monkeypatch.setenv("API_KEYS", "k-secret")
    assert main(["config"]) == 0
    assert "k-secret" not in capsys.readouterr().out


def test_facts_gate_holds_back_a_document_with_an_impossible_fact():
    """Facts are gated like every index: a numeric fact without a finite value, a period that ends before it
    starts, or a page past the document's end holds that document back (all its rows), not the corpus."""
    import datetime as dt

    from quality.gates import run_gates
    from schemas.base import to_table

    data = _corpus(60)  # 3 of 60 held back: within MAX_HELD_BACK
    base = records("v1")["facts"][0]
    data["facts"] = [{**base, "doc_id": d["doc_id"], "fact_id": f"{d['doc_id']}#0"} for d in data["documents"]]
    tables = {name: to_table(INDEXES[name].model, rows) for name, rows in data.items()}
    assert run_gates(tables, dims=16).passed
    for i, bad in ((3, {"value": math.inf}), (4, {"period_start": dt.date(2024, 6, 1)}),
                   (5, {"page": 500, "end_page": 500})):
        data["facts"][i].update(bad)
    report = run_gates({name: to_table(INDEXES[name].model, rows) for name, rows in data.items()}, dims=16)
    assert report.passed and sorted(report.held_back) == ["D03_2023_10K", "D04_2023_10K", "D05_2023_10K"]
    reasons = {d: " ".join(r) for d, r in report.held_back.items()}
    assert "value_ok" in reasons["D03_2023_10K"] and "period_ok" in reasons["D04_2023_10K"]
    assert "page_count" in reasons["D05_2023_10K"]


def test_a_store_published_before_releases_is_served_then_released(lake):
    """A search store with only aliases.json (written before releases existed) is served from it, and the
    next publish makes its first release (even with nothing changed), after which release.json serves."""
    import shutil

    from kernel.search.base import LEGACY_RELEASE

    settings = _settings(lake)
    publish(settings)
    root = lake / "search"
    live = EmbeddedBackend.from_settings(settings).live_release()
    (root / "aliases.json").write_text(json.dumps({f"secplat-{n}": live.physical(n) for n in live.targets}))
    (root / "release.json").unlink()
    shutil.rmtree(root / "releases")
    backend, served = _served(settings)
    assert backend.live_release().id == LEGACY_RELEASE and len(served) == 20
    report = publish(settings)
    assert {o.mode for o in report.indexes} == {"unchanged"} and report.release != LEGACY_RELEASE
    assert (root / "release.json").exists() and EmbeddedBackend.from_settings(settings).live_release().id == \
        report.release


def test_passages_filter_on_sp500_membership_as_the_cli_writes_it(tmp_path):
    """``--filter sp500_member=true``: the string is the field's boolean, and only members' passages come back."""
    from kernel.search.base import check_filters

    data = records("v1")
    for name in ("documents", "passages", "tree_nodes"):
        data[name] = [{**r, "sp500_member": r["doc_id"].startswith("KO")} for r in data[name]]
    write_index_lake(tmp_path / "lake", data)
    settings = _settings(tmp_path / "lake")
    publish(settings)
    backend = open_backend(settings)
    spec = INDEXES["passages"]
    filters = check_filters(spec, {"sp500_member": "true"})
    hits = backend.bm25(alias_name(backend.prefix, "passages"), spec, "revenues company", filters, 20)
    assert hits and {h.source["doc_id"] for h in hits} == {"KO_2023_10K"}
    none = check_filters(spec, {"sp500_member": "false"})
    assert {h.source["doc_id"] for h in backend.bm25(alias_name(backend.prefix, "passages"), spec, "revenues", none,
                                                     20)} == {"PEP_2023_10K"}
