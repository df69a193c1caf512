"""Query analysis on the project's own small catalog of names (no index needed)."""

from __future__ import annotations

import query.analysis
from domain.companies import squash
from query.analysis import EntityIndex, analyze
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


def test_companies_tickers_and_short_names_come_from_data_only():
    idx = _entities()
    names = lambda q: [e.name for e in analyze(q, idx).entities]  # noqa: E731
    assert not hasattr(query.analysis, "COMMON_NAMES")  # no nickname list: names, tickers, abbreviations of them
    assert names("Compare Coca-Cola's and PepsiCo's net revenues") == ["Coca-Cola Company (The)", "PepsiCo"]
    assert names("Was there any change in the number of Best Buy stores?") == ["BESTBUY"]
    assert names("How much did Google spend on R&D?") == []  # no data names Alphabet "Google" here
    former = EntityIndex()
    former.add("Alphabet Inc.", "GOOGL", ["Google Inc."])  # a name from data (SEC's former names, a cover)
    assert [e.name for e in analyze("How much did Google spend on R&D?", former).entities] == ["Alphabet Inc."]
    assert names("Does AMEX have an improving operating margin?") == ["American Express"]  # Am(erican) Ex(press)
    assert names("Did AmEx retain card members?") == ["American Express"]
    assert names("What cash did JnJ realise from Kenvue?") == ["Johnson & Johnson"]  # the ticker JNJ
    assert names("Which JPM segment had the lowest revenue?") == names("JPMorgan's Q1 results") == ["JPMorgan Chase"]
    assert len(_entities().entities) == 8  # the two Johnson & Johnson and JPMorgan spellings merged
    assert names("What did KO and PEP report?") == ["Coca-Cola Company (The)", "PepsiCo"]
    assert names("ma and ko in lower case are words, not tickers") == []
    assert names("What is the revenue of Acme Widgets?") == []


def test_common_words_that_start_names_do_not_name_companies():
    idx = EntityIndex()
    for name, ticker in (("Regions Financial", "RF"), ("General Mills", "GIS"), ("General Electric", "GE"),
                         ("Verizon Communications", "VZ"), ("Lockheed Martin", "LMT"), ("Martin Marietta", "MLM"),
                         ("Johnson & Johnson", "JNJ"), ("Kenvue", "KVUE")):
        idx.add(name, ticker)
    idx.finish(searchable={idx.tickers[t] for t in ("RF", "GIS", "GE", "VZ", "LMT", "MLM", "JNJ")})
    names = lambda q: [e.name for e in analyze(q, idx).entities]  # noqa: E731
    assert names("In which regions does Verizon operate?") == ["Verizon Communications"]  # lower case: a word
    assert names("Selling, general and administrative costs at General Mills") == ["General Mills"]
    assert names("What did General report?") == []  # starts two names: names neither
    assert names("Lockheed Martin's working capital") == ["Lockheed Martin"]  # "Martin" is inside that name
    assert names("JNJ's proceeds from the separation of Kenvue") == ["Johnson & Johnson"]  # Kenvue: no documents


def test_years_quarters_forms():
    a = analyze("Did Pfizer grow its PPNE between FY20 and FY21? See the 10-K for fiscal 2021.")
    assert a.years == [2020, 2021] and a.forms == ["10-K"]
    a = analyze("Change in stores between Q2 of FY2024 and FY2023, per the quarterly report")
    assert a.years == [2024, 2023] and a.quarters == [2] and a.forms == ["10-Q"]
    assert analyze("in the third quarter of 2023").quarters == [3]
    assert analyze("What do Apple and Alphabet each disclose in their 10-Ks?").forms == ["10-K"]  # several
    assert analyze("across the 10-Qs and annual reports").forms == ["10-K", "10-Q"]
    assert analyze("the company's 10-K's risk factors").forms == ["10-K"]
    assert analyze("a 10-Kx filing or 10-KSB").forms == []  # another word, another form


def test_the_facts_periods_a_questions_quarters_ask():
    """A quarter asks its three months; "the first six months", "the first half", "six months ended" the
    year to date a 10-Q prints beside it; a year alone or the second half (the annual report's) none."""
    assert analyze("What was operating income in the second quarter of 2023?").spans == ["Q2"]
    assert analyze("What was operating income for the first six months of 2023?").spans == ["H1"]
    assert analyze("What was operating income for the first half of 2023?").spans == ["H1"]
    assert analyze("Revenue for the nine months ended September 30, 2023").spans == ["9M"]
    # a quarter named by its last day: any quarter's three months (the filing's fiscal calendar says which)
    assert analyze("Revenue for the quarter ended July 1, 2023").spans == ["Q1", "Q2", "Q3", "Q4"]
    assert analyze("Revenue for the six months ended June 30, 2023").spans == ["H1"]
    assert analyze("Revenue for the fiscal year ended January 28, 2024").spans == []
    assert analyze("What was operating income in 2023?").spans == []
    assert analyze("What was operating income in the second half of 2023?").spans == []


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
