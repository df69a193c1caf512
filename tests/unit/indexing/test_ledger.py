"""The change ledger: what changed since a job's last commit, on literal fingerprints."""

import json

from indexing.ledger import Ledger, Plan, changed_parts
from kernel.storage import LocalLake


def test_changed_parts_are_new_or_different_and_sorted():
    assert changed_parts({"b": "2", "a": "1", "c": "3"}, {"a": "1", "b": "x"}) == ["b", "c"]
    assert changed_parts({}, {"a": "1"}) == []


def test_plan_work_removed_and_after():
    work = Plan("facts", now={"a": "1", "b": "2"}, done={"a": "1", "gone": "9"})
    assert work.changed == ["b"] and work.removed == ["gone"] and work.has_work
    assert work.after == {"a": "1", "b": "2", "gone": "9"}
    assert not Plan("trees", now={"a": "1"}, done={"a": "1", "gone": "9"}).has_work  # gone alone: no work
    assert Plan("lexicon", now={}, forced=True).has_work


def test_commit_then_plan_again_has_no_work(tmp_path):
    ledger = Ledger(LocalLake(tmp_path))
    first = ledger.plan("lexicon", {"a": "1"})
    assert first.changed == ["a"] and first.done == {} and first.memo == {}
    ledger.commit(first, batches={"b1": ["gross margin"]}, words="w/1")
    again = ledger.plan("lexicon", {"a": "1"})
    assert not again.has_work and again.memo == {"batches": {"b1": ["gross margin"]}, "words": "w/1"}
    assert ledger.plan("lexicon", {"a": "2"}).changed == ["a"]


def test_a_record_from_before_the_ledger_reads_as_its_docs(tmp_path):
    lake = LocalLake(tmp_path)
    lake.write_bytes("index/state/embed.json", json.dumps({"a": "1", "b": "2"}).encode())
    work = Ledger(lake).plan("embed", {"a": "1", "b": "3"})
    assert work.done == {"a": "1", "b": "2"} and work.changed == ["b"] and work.memo == {}
