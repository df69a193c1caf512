"""The learned page ranker on real filings: the index stage made the corpus's own training questions; the
ranker trained twice on the same release is the same bytes, and a query reads the model of its release."""

from __future__ import annotations

import dataclasses

import pytest

from kernel.layout import INDEX_DATASETS, ranker_key
from kernel.resources import Resources
from kernel.storage import dataset_partitions
from query import Retriever
from query.ranker import PageRanker
from query.train import load_pairs, train

pytestmark = pytest.mark.shared
QUESTION = "What were Coca-Cola's net operating revenues in 2023?"


def test_retraining_gives_the_same_model_and_a_query_uses_its_release(published):
    lake = Resources(published).lake
    assert len(dataset_partitions(lake, INDEX_DATASETS["ranker_pairs"])) == 3  # every published document asks
    pairs = load_pairs(lake)
    assert len(pairs) > 40 and all(p["question"] and p["doc_id"] in p["pair_id"] for p in pairs)
    retriever = Retriever(Resources(published))
    model, key = train(retriever, lake, limit=40)
    first = lake.read_bytes(key)
    again, key_again = train(Retriever(Resources(published)), lake, limit=40)  # as another process would
    assert key_again == key == ranker_key(model.release) and lake.read_bytes(key) == first
    assert model.trained["used"] > 0 and again == model

    learned = dataclasses.replace(retriever.options, ranker="learned-all")
    snap = retriever.snapshot()
    result = retriever.search(QUESTION, 5, options=learned)
    assert result.release == snap.id == model.release
    assert snap.ranker() == PageRanker.from_json(first)
    assert {e.doc_id for e in result.evidence} & {"KO_2023_10K"}
    # a release with no model of its own answers by the rules (and says so once in the log)
    lake.delete(key)
    fresh = Retriever(Resources(published))
    rules = fresh.search(QUESTION, 5, options=dataclasses.replace(learned, ranker="rules"))
    unranked = fresh.search(QUESTION, 5, options=learned)
    assert [e.chunk_id for e in unranked.evidence] == [e.chunk_id for e in rules.evidence]
    assert unranked.page_order == rules.page_order == "rules" and result.page_order == "learned"
    lake.write_bytes(key, first)
