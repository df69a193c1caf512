"""Arguments and requests validated from the index schema and the HTTP bounds: one line and exit 2 on the
command line, 422 naming the field over HTTP, 503 while nothing is published; never a traceback or a 500."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from domain.text import clean_question
from kernel.resources import Resources
from kernel.settings import load_settings
from query import Retriever
from query.analysis import EntityIndex
from shell.cli import main
from shell.http import create_app
from shell.runner import run_stage
from tests.index_records import records, write_index_lake


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    root = tmp_path_factory.mktemp("validation")
    write_index_lake(root, records("v1"))
    run_stage("publish", Resources(load_settings(lake_root=str(root))))
    return root


def one_line_error(capsys, argv: list[str], code: int = 2) -> str:
    assert main(argv) == code, argv
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv, says", [
    (["query", "revenues", "--filter", "fiscal_year=abc"], "filter fiscal_year: 'abc' is not an integer"),
    (["query", "revenues", "--filter", "period_end=last-year"], "filter period_end: 'last-year' is not a date"),
    (["query", "revenues", "--filter", "colour=red"], "cannot filter passages on 'colour'"),
    (["query", " \t "], "the question has no words"),
    (["query", "revenues \udcff\x00 of KO"], "embedded with 'test-model'"),  # cleaned, then the model check
    (["facts", "--concept", ""], "concept: the concept is empty"),
    (["facts", "--concept", "   "], "concept: the concept is empty"),
])
def test_bad_arguments_are_one_line_usage_errors(lake, capsys, monkeypatch, argv, says):
    monkeypatch.setenv("LAKE_ROOT", str(lake))
    assert says in one_line_error(capsys, argv)


@pytest.mark.parametrize("argv", [["query", "revenues", "-k", "0"], ["query", "revenues", "-k", "-5"],
                                  ["query", "revenues", "-k", "11"], ["serve", "--port", "70000"],
                                  ["serve", "--port", "0"], ["facts", "--concept", "revenue", "--limit", "0"]])
def test_numbers_out_of_range_are_refused_by_the_parser(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "out of range" in err and "Traceback" not in err


@pytest.mark.parametrize("content, says", [
    ("{not json\n", "qa.jsonl:1: not a JSON line"),
    ('{"question": "q?"}\n', "qa.jsonl:1: no 'evidence' (FinanceBench) or 'evidences' (LOFin) field"),
    ('{"question": "q?", "evidence": [{"doc_name": "X"}]}\n', "qa.jsonl:1: malformed row (KeyError"),
    ('[1, 2]\n', "qa.jsonl:1: a JSON object is expected, not list"),
    ("\n\n", "qa.jsonl: no questions"),
])
def test_a_malformed_qa_file_is_one_line(lake, capsys, monkeypatch, tmp_path, content, says):
    monkeypatch.setenv("LAKE_ROOT", str(lake))
    qa = tmp_path / "qa.jsonl"
    qa.write_text(content)
    assert says in one_line_error(capsys, ["eval", str(qa), "--mode", "bm25"])


def test_surrogates_and_control_characters_never_reach_the_model():
    assert clean_question("rev\udcffenue\x00s\u200b of  KO\n") == "revenues of KO"
    assert clean_question("\udcff\x07") == ""


def test_http_validates_from_the_schema_and_never_answers_500(lake):
    client = TestClient(create_app(Retriever(Resources(load_settings(lake_root=str(lake))))))
    for body, field in [({"question": "revenues", "filters": {"ticker": 123}}, "ticker: 123 is not a string"),
                        ({"question": "revenues", "filters": {"fiscal_year": "abc"}}, "fiscal_year: 'abc'"),
                        ({"question": "revenues", "filters": {"colour": "red"}}, "'colour'")]:
        r = client.post("/search", json=body)
        assert r.status_code == 422 and field in r.json()["detail"], r.text
    for question in (" \t ", "\x00\x07"):
        r = client.post("/search", json={"question": question})
        assert r.status_code == 422 and "no words" in r.text
    r = client.post("/search", content=b'{"question": "revenues \\ud800 of KO"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and "ud800" not in r.text  # not valid Unicode: refused, never echoed
    r = client.post("/search", json={"question": "revenues\x00 of KO"})
    assert r.status_code == 503 and "test-model" in r.json()["detail"]  # the published model, not a 500
    r = client.post("/facts", json={"concept": "  "})
    assert r.status_code == 422
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["release"].startswith("r") and set(health["indexes"]) >= {"passages"}


def test_health_is_503_while_nothing_is_published(tmp_path):
    client = TestClient(create_app(Retriever(Resources(load_settings(lake_root=str(tmp_path))))))
    r = client.get("/health")
    assert r.status_code == 503 and r.json()["status"] == "unpublished" and r.json()["release"] is None
    r = client.post("/search", json={"question": "revenues"})
    assert r.status_code == 503 and "secplat publish" in r.json()["detail"]


def test_a_company_without_indexed_filings_is_named():
    entities = EntityIndex()
    entities.add("Coca-Cola Company (The)", "KO")
    entities.add("Tesla, Inc.", "TSLA")
    entities.finish(searchable={entities.add("Coca-Cola Company (The)", "KO")})
    assert [e.name for e in entities.find("Compare Tesla and Coca-Cola revenue")] == ["Coca-Cola Company (The)"]
    assert [e.name for e in entities.unindexed("Compare Tesla and Coca-Cola revenue")] == ["Tesla, Inc."]
    assert json.dumps([e.name for e in entities.unindexed("What did Coca-Cola earn?")]) == "[]"
