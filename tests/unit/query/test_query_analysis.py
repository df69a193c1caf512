"""Query analysis on the project's own small catalog of names (no index needed)."""

from __future__ import annotations

from query.analysis import EntityIndex, analyze, squash
from query.evaluate import QA, score_question


def _entities() -> EntityIndex:
    idx = EntityIndex()
    idx.add("Coca-Cola Company (The)", "KO")
    idx.add("PepsiCo", "PEP")
    idx.add("BESTBUY", None, ["BESTBUY"])
    idx.add("Best Buy Co., Inc.", "BBY")
    idx.add("Alphabet Inc.", "GOOGL")
    idx.add("American Express", "AXP")
    idx.add("Johnson & Johnson", "JNJ")
    idx.add("JOHNSON JOHNSON", None)
    idx.add("JPMorgan Chase", "JPM")
    idx.add("JPMorgan Chase & Co.", None)
    idx.add("Mastercard", "MA")
    idx.finish()
    return idx


def test_squash_drops_suffixes_possessives_and_spacing():
    assert squash("The Coca-Cola Company") == squash("Coca-Cola's") == "cocacola"
    assert squash("Best Buy Co., Inc.") == squash("BESTBUY") == "bestbuy"


def test_companies_tickers_and_common_names():
    idx = _entities()
    names = lambda q: [e.name for e in analyze(q, idx).entities]  # noqa: E731
    assert names("Compare Coca-Cola's and PepsiCo's net revenues") == ["Coca-Cola Company (The)", "PepsiCo"]
    assert names("Was there any change in the number of Best Buy stores?") == ["BESTBUY"]
    assert names("How much did Google spend on R&D?") == ["Alphabet Inc."]
    assert names("Does AMEX have an improving operating margin?") == ["American Express"]
    assert names("What cash did JnJ realise from Kenvue?") == ["Johnson & Johnson"]
    assert names("Which JPM segment had the lowest revenue?") == names("JPMorgan's Q1 results") == ["JPMorgan Chase"]
    assert len(_entities().entities) == 8  # the two Johnson & Johnson and JPMorgan spellings merged
    assert names("What did KO and PEP report?") == ["Coca-Cola Company (The)", "PepsiCo"]
    assert names("ma and ko in lower case are words, not tickers") == []
    assert names("What is the revenue of Acme Widgets?") == []


def test_years_quarters_forms():
    a = analyze("Did Pfizer grow its PPNE between FY20 and FY21? See the 10-K for fiscal 2021.")
    assert a.years == [2021, 2020] and a.forms == ["10-K"]
    a = analyze("Change in stores between Q2 of FY2024 and FY2023, per the quarterly report")
    assert a.years == [2024, 2023] and a.quarters == [2] and a.forms == ["10-Q"]
    assert analyze("in the third quarter of 2023").quarters == [3]


def test_metrics_follow_the_financebench_definitions():
    qa = QA("q1", "?", [("KO_2023_10K", 61), ("KO_2023_10K", 62)])
    ranked = [{"doc_id": "X", "source_name": None, "page": 61},
              {"doc_id": "d1", "source_name": "KO_2023_10K", "page": 61},
              {"doc_id": "d1", "source_name": "KO_2023_10K", "page": 3}]
    s = score_question(qa, ranked, k=5)
    assert s["doc_recall"] == 1.0 and s["page_recall"] == 0.5 and s["page_precision"] == 0.2
    assert s["mrr"] == 0.5 and 0 < s["ndcg10"] < 1
    assert score_question(qa, [], k=5) == {"doc_recall": 0.0, "page_recall": 0.0, "page_precision": 0.0,
                                           "mrr": 0.0, "ndcg10": 0.0}
