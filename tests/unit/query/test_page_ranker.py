"""The learned page ranker's pure parts on literal values: features, fit, stable bytes, and a snapshot reading
the model of its own release."""

from __future__ import annotations

import json

import pytest

from indexing.ranker_pairs import document_pairs, driver_labels, headings, row_labels
from kernel.search.base import Release
from query import snapshot
from query.ranker import FEATURES, PageRanker, blended, fit, page_features, training_rows
from query.snapshot import Snapshot

BALANCE_SHEET = """CONSOLIDATED BALANCE SHEETS
(in millions)
Cash and cash equivalents
$
9,366
$
9,519
Total current assets
26,732
22,591
Total assets
97,703
92,763
"""
MD_AND_A = "Our revenue grew because of pricing. Total assets rose as described in the notes.\n" * 5
INCOME_TAXES = "Income Taxes\nThe effective tax rate was lower because of discrete items in the year.\n"


def test_a_page_labels_itself_with_its_row_labels_and_headings():
    assert row_labels(BALANCE_SHEET) == ["Cash and cash equivalents", "Total current assets", "Total assets"]
    assert headings(BALANCE_SHEET) == [("statement", "balance sheet")]
    assert headings(INCOME_TAXES) == [("note", "income taxes")]
    assert row_labels(MD_AND_A) == [] and headings(MD_AND_A) == []  # prose names a label; it does not print one


def test_document_pairs_are_deterministic_and_ask_about_the_company_and_period():
    doc = {"doc_id": "KO_2023_10K", "company": "Coca-Cola", "fiscal_year": 2023, "fiscal_period": "FY"}
    pages = [(0, MD_AND_A), (57, BALANCE_SHEET), (80, INCOME_TAXES)]
    pairs = document_pairs(doc, pages)
    assert pairs == document_pairs(doc, list(reversed(pages)))  # the same pairs whatever the page order
    by_label = {p["label"]: p for p in pairs}
    assert by_label["total assets"]["page"] == 57 and by_label["balance sheets"]["page"] == 57
    assert by_label["income taxes note"]["page"] == 80 and by_label["income taxes note"]["source"] == "note"
    assert all("Coca-Cola" in p["question"] and "2023" in p["question"] for p in pairs)
    assert len({p["pair_id"] for p in pairs}) == len(pairs)
    assert document_pairs({**doc, "company": None}, pages) == []  # no company: no question to ask


DRIVERS = ("Net Sales. Net sales for fiscal 2023 decreased $4.7 billion, or 3.0%, to $152.7 billion, primarily "
           "driven by lower comparable sales. BCA revenues increased by $7,875 million in 2023 primarily due to "
           "higher deliveries. It increased primarily due to timing. We grew as a result of pricing.\n")


def test_prose_that_explains_a_change_asks_what_drove_it():
    """Issue 54: the ranker had never seen a question asking what drove a change; MD&A's own sentences
    ("<metric> decreased ... primarily driven by ...") label their page."""
    assert driver_labels(DRIVERS) == ["net sales", "bca revenues"]  # "It", "We": a clause, not a metric
    assert driver_labels(BALANCE_SHEET) == []  # a figures page explains nothing
    segment = ("Revenues $77,794 $66,608 $62,286\nRevenues\nBCA revenues increased by $7,875 million in 2023 "
               "compared with 2022 primarily due to higher 787 deliveries in 2023.\nOperating margins (4.8)% (9.0)%")
    assert driver_labels(segment) == ["bca revenues"]  # its table's rows around the sentence explain nothing
    # a lake converted before page text was stored with plain spaces: a no-break space reads as a space
    assert driver_labels(DRIVERS.replace(" ", "\xa0")) == ["net sales", "bca revenues"]
    assert driver_labels("Worldwide Net sales were $19,457 in 2023, up 8.5% from 2022, due to net selling price "
                         "increases.") == ["worldwide net sales"]
    # a change stated as "compared to ..., a decrease of 37%", its cause opening the next sentence
    assert driver_labels("Consolidated operating income was $1.4 billion in 2022 compared to $2.3 billion in 2021, "
                         "a decrease of 37%. The current year period benefited from an increase in gains.") == \
        ["consolidated operating income"]
    assert driver_labels("Consolidated operating income was $1.4 billion in 2022 compared to $2.3 billion in 2021, "
                         "a decrease of 37%. Our properties are listed in Item 2 of this report.") == []
    doc = {"doc_id": "HD_2023_10K", "company": "Home Depot", "fiscal_year": 2023, "fiscal_period": "FY"}
    drivers = [p for p in document_pairs(doc, [(32, DRIVERS)]) if p["source"] == "driver"]
    assert {p["label"] for p in drivers} == {"net sales", "bca revenues"} and {p["page"] for p in drivers} == {32}
    assert all("Home Depot" in p["question"] and "fiscal 2023" in p["question"] for p in drivers)


def test_features_read_what_a_narrative_question_asks_for():
    evidence = [{**e, "item": item} for e, item in zip(_result([("A", 10, 1.0, "match", MD_AND_A),
                                                              ("A", 57, 0.9, "statement", BALANCE_SHEET)]),
                                                     ("7", "8"), strict=True)]
    narrative = page_features("What drove revenue in 2023?", {"years": [2023], "narrative": True}, [], evidence, {})
    figure = page_features("Revenue in 2023?", {"years": [2023]}, [], evidence, {})
    n = [dict(zip(FEATURES, r, strict=True)) for r in narrative]
    f = [dict(zip(FEATURES, r, strict=True)) for r in figure]
    assert n[0]["prose_asked"] == 1.0 and n[1]["prose_asked"] < 0.5 and n[0]["mdna_asked"] == 1.0
    assert n[1]["mdna_asked"] == 0.0 and f[0]["prose_asked"] == f[0]["mdna_asked"] == 0.0


def _result(pages):
    """A rules-ranked result over literal pages: (doc, page, score, basis, text); the reason's words say
    the opposite of the basis, which is what the features must read."""
    return [{"doc_id": d, "page": p, "score": s, "basis": b, "reason": "the balance sheet, reports", "text": t,
             "fiscal_year": 2023, "item": "8"} for d, p, s, b, t in pages]


def test_features_read_the_rules_signals():
    evidence = _result([("A", 10, 1.0, "match", MD_AND_A),
                        ("A", 57, 0.9, "statement", BALANCE_SHEET),
                        ("B", 3, 0.5, "fact", BALANCE_SHEET)])
    plan = {"years": [2023], "target_year": 2023, "evidence": {"items": ["8"], "figure": True}}
    rows = page_features("What were total assets in 2023?", plan, [{"doc_id": "A", "score": 2.0}], evidence,
                         {"A": 100, "B": 10})
    assert len(rows) == 3 and all(len(r) == len(FEATURES) for r in rows)
    f = [dict(zip(FEATURES, r, strict=True)) for r in rows]
    assert f[0]["rule_rank"] == 1.0 and f[1]["rule_rank"] == 0.5 and f[1]["rule_score"] == 0.9
    assert f[1]["pin_statement"] == 1.0 and f[0]["pin_statement"] == 0.0 and f[2]["pin_fact"] == 1.0
    assert f[0]["pin_fact"] == f[2]["pin_statement"] == 0.0
    assert f[0]["doc_rank"] == 1.0 and f[2]["doc_rank"] == 0.0 and f[1]["page_position"] == 0.57
    assert f[1]["figures"] > 0.12 > f[0]["figures"] and f[1]["figures_asked"] == f[1]["figures"]
    assert 0 < f[1]["overlap"] == f[0]["overlap"] <= 1 and f[0]["year_match"] == 1.0 and f[0]["item_match"] == 1.0


def test_fit_is_deterministic_and_learns_the_order():
    def search(question):
        good = ("statement", BALANCE_SHEET)
        bad = ("match", MD_AND_A)
        first, second = (bad, good) if "first" in question else (good, bad)
        return question, {"years": [2023]}, [{"doc_id": "A", "score": 1.0}], _result(
            [("A", 1, 1.0, *first), ("A", 2, 0.8, *second)])

    pairs = [{"pair_id": f"p{i}", "question": f"{'first' if i % 2 else 'second'} total assets", "doc_id": "A",
              "page": 2 if i % 2 else 1} for i in range(8)]
    rows, labels, trained = training_rows(pairs, search, {"A": 10})
    assert trained["used"] == 8 and sum(labels) == 8
    one, two = fit(rows, labels, "r1", trained), fit(rows, labels, "r1", trained)
    assert one.to_json() == two.to_json()  # same rows, same bytes
    assert PageRanker.from_json(one.to_json()).to_json() == one.to_json()
    old = json.loads(one.to_json()) | {"version": 1}  # a model of the format that read the reasons' words
    with pytest.raises(ValueError, match=r"^a format 1 model; this code reads format 3: retrain") as refused:
        PageRanker.from_json(json.dumps(old).encode())
    assert "\n" not in str(refused.value)
    # the statement page wins wherever the rules put it
    _, plan, docs, evidence = search("first total assets")
    assert [evidence[i]["page"] for i in one.order(page_features("first total assets", plan, docs, evidence,
                                                                 {"A": 10}))] == [2, 1]


def test_the_models_order_is_blended_with_the_rules():
    """A Borda count: each page's place is 0.7 of its rules' place plus 0.3 of the model's, ties to the rules."""
    assert blended([0, 1, 2, 3]) == [0, 1, 2, 3]  # they agree
    assert blended([5, 0, 1, 2, 3, 4]) == [0, 1, 2, 3, 5, 4]  # the rules' sixth, the model's first: into the five
    assert blended([9, 0, 1, 2, 3, 4, 5, 6, 7, 8])[:5] == [0, 1, 2, 3, 4]  # the rules' tenth: not past their fifth
    assert blended([1, 0, 2]) == [0, 1, 2]  # a swap of neighbours is a tie: the rules' order
    assert blended([2, 1, 0], share=1.0) == [2, 1, 0] and blended([2, 1, 0], share=0.0) == [0, 1, 2]


class _NoEngine:
    """A snapshot of a release whose documents index is not asked for (the catalog reads no engine)."""


def test_a_snapshot_reads_the_model_of_its_own_release_and_looks_again_until_there_is_one(monkeypatch):
    asked = []
    models = {"r1": "model of r1"}
    clock = [1000.0]
    monkeypatch.setattr(snapshot.time, "monotonic", lambda: clock[0])

    def load(release, first):
        asked.append((release, first))
        return models.get(release)

    one = Snapshot(_NoEngine(), Release("r1", "2026-11-26T00:00:00", {}), None, load)
    two = Snapshot(_NoEngine(), Release("r2", "2026-11-26T00:01:00", {}), None, load)
    assert one.ranker() == "model of r1" and two.ranker() is None and one.ranker() == "model of r1"
    assert asked == [("r1", True), ("r2", True)]  # read once per release; a model is kept
    clock[0] += snapshot.RANKER_RECHECK_S / 2
    assert two.ranker() is None and len(asked) == 2  # not looked for again yet
    models["r2"] = "model of r2"  # the train stage wrote it
    clock[0] += snapshot.RANKER_RECHECK_S
    assert two.ranker() == "model of r2" and asked[-1] == ("r2", False)  # found; the warning was said once
    assert two.ranker() == "model of r2" and len(asked) == 3


def test_evidence_carries_why_as_a_value_beside_its_words():
    from query.api import Evidence

    e = Evidence(doc_id="A", source_name=None, company=None, ticker=None, form=None, fiscal_year=None,
                 fiscal_period=None, item="8", item_title="", page=3, chunk_id="A:1", text="", score=1.0,
                 reason="the balance sheet (asked for)", basis="statement")
    assert e.label == "statement pin" and e.as_dict()["basis"] == "statement"
    e.complementary = True
    assert e.label == "statement pin, complementary query" and e.as_dict()["complementary"] is True
    with pytest.raises(ValueError):
        Evidence(**{**e.as_dict(), "basis": "the balance sheet"})
