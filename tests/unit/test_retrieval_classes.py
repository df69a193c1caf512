"""The page order table's choosing rule (bench.retrieval_classes) on literal per-question scores."""

from __future__ import annotations

from bench.retrieval_classes import choose_table


def q(s, kind, cls, rules, model, company="A"):
    return {"set": s, "id": f"{s}{kind}{rules}{model}", "kind": kind, "class": cls, "company": company,
            "rules": rules, "learned-all": model, "rules+doc": rules + 1, "learned-all+doc": model + 1}


def test_a_kind_goes_to_the_model_only_where_it_wins_on_each_set():
    rows = [q("edgar", "figure", "annual", 0.5, 1.0), q("fb", "figure", "metrics", 0.5, 1.0),
            q("edgar", "narrative", "narrative", 0.0, 1.0), q("edgar", "narrative", "narrative", 0.0, 1.0),
            q("fb", "narrative", "domain", 1.0, 0.0)]
    table = choose_table(rows)
    assert table["figure"] == "learned"
    assert table["narrative"] == "rules"  # it wins the EDGAR-style questions and loses FinanceBench's
    assert table["other"] == "rules"  # no questions: the rules


def test_a_kind_goes_back_to_the_rules_when_a_large_class_would_lose():
    gains = [q("fb", "figure", "metrics", 0.0, 1.0, company=f"m{i}") for i in range(5)]
    small_loss = [q("fb", "figure", "domain", 0.5, 0.4, company=f"d{i}") for i in range(4)]
    assert choose_table(gains + small_loss)["figure"] == "learned"  # the losing class has 4 questions
    large_loss = [q("fb", "figure", "domain", 0.5, 0.4, company=f"d{i}") for i in range(5)]
    # the kind gains on average (+0.45), yet with it a class of 5 questions falls below the rules
    assert choose_table(gains + large_loss)["figure"] == "rules"
