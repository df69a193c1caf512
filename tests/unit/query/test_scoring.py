"""The pure scoring kernels on tiny literal inputs: three documents, four hits, numbers worked by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.text import terms
from kernel.search import Hit
from query.analysis import Entity, QueryAnalysis
from query.api import Evidence
from query.catalog import DocInfo
from query.plan import ANNUAL_POINTS, DAY_POINTS, LATEST_POINTS, TIER_POINTS, make_plan
from query.scoring import (
    SHORT_FILING_PAGES,
    WHOLE_SHARE,
    ScoredDoc,
    company_turns,
    diversify,
    document_tiers,
    document_weights,
    document_year,
    evidence_page,
    explaining_first,
    fiscal_ends,
    forecasting_first,
    newest_forms,
    newest_reports,
    owner,
    page_texts,
    pages,
    previous_report,
    prints_any,
    read_whole,
    rescore_passages,
    score_documents,
    second_document,
    second_scores,
    short_filing,
    with_previous,
)
from query.statements import ratio_rows

KO = Entity("cocacola", "Coca-Cola")
PEP = Entity("pepsico", "PepsiCo")


def doc(doc_id: str, year: int, form: str = "10-K", entity: str = "cocacola", period: str = "FY") -> DocInfo:
    return DocInfo(doc_id=doc_id, company=entity, ticker=entity[:3].upper(), form=form, fiscal_year=year,
                   fiscal_period=period, entity=entity)


KO23, KO22, KO23Q = doc("KO_2023_10K", 2023), doc("KO_2022_10K", 2022), doc("KO_2023Q3_10Q", 2023, "10-Q", period="Q3")
DOCS = [KO23, KO22, KO23Q]


def plan_for(question: str, entities=(KO,), years=(), quarters=(), forms=()):
    return make_plan(QueryAnalysis(question, list(entities), list(years), list(quarters), list(forms)))


def test_tiers_put_the_target_year_first_then_the_next_annual_report():
    tiers = document_tiers(DOCS, plan_for("revenue in fiscal 2023", years=[2023]))
    assert tiers["KO_2023_10K"][0] == 0  # R1: the target year
    assert tiers["KO_2023Q3_10Q"][0] == 2  # Y: a year's figures are not a quarter's document's
    assert tiers["KO_2022_10K"][0] == 2  # R3: another year
    # a day named may be a quarter's end: the quarter's report is of the target year again
    dated = make_plan(QueryAnalysis("cash as of September 30, 2023", [KO], [2023], day=dt.date(2023, 9, 30)))
    assert document_tiers(DOCS, dated)["KO_2023Q3_10Q"][0] == 0
    # a quarter asked: its report, not the year's (Q4: the annual report too)
    assert document_tiers(DOCS, plan_for("Q3 2023 revenue", years=[2023], quarters=[3]))["KO_2023Q3_10Q"][0] == 0
    # a company without a document of the target year falls back to the next annual report (R2)
    tiers = document_tiers([KO23, KO22], plan_for("revenue in fiscal 2022 10-K", years=[2022], forms=["10-K"]))
    assert tiers["KO_2022_10K"][0] == 0
    tiers = document_tiers([KO23], plan_for("revenue in fiscal 2022 10-K", years=[2022], forms=["10-K"]))
    assert tiers["KO_2023_10K"].tier == 1 and "R2" in tiers["KO_2023_10K"].why


def test_a_years_figure_takes_the_annual_report_before_the_release_that_previewed_it():
    """P: asked a year's figure, naming no release, the fourth-quarter release of that year (its twelve-month
    columns print the same figure, its text is shorter and denser) falls behind the year's 10-K, to tier 1
    with no points; with no 10-K of that year it stays tier 0, and a question naming the release or a quarter
    takes it as before."""
    q4 = doc("KO_2023Q4_EARNINGS", 2023, "EARNINGS", period="Q4")
    year = plan_for("research and development expense in fiscal 2023", years=[2023])
    tiers = document_tiers([KO23, q4, KO22], year)
    assert tiers["KO_2023_10K"].tier == 0 and tiers["KO_2023Q4_EARNINGS"].tier == 1
    assert tiers["KO_2023Q4_EARNINGS"].bonus == 0 and "after that year's 10-K" in tiers["KO_2023Q4_EARNINGS"].why
    assert score_documents([KO23, q4], [Hit("KO_2023Q4_EARNINGS", 2.0, {}), Hit("KO_2023_10K", 1.0, {})], [],
                           tiers)[0].doc.doc_id == "KO_2023_10K"  # the release's better text match no longer wins
    assert document_tiers([q4, KO22], year)["KO_2023Q4_EARNINGS"].tier == 0  # no 2023 10-K: the release answers
    released = plan_for("fiscal 2023 revenue in its earnings release", years=[2023], forms=["EARNINGS"])
    assert document_tiers([KO23, q4], released)["KO_2023Q4_EARNINGS"].tier == 0
    fourth = plan_for("Q4 2023 revenue", years=[2023], quarters=[4])
    assert document_tiers([KO23, q4], fourth)["KO_2023Q4_EARNINGS"].tier == 0


def test_a_quarters_report_of_the_year_withholds_only_r2_for_a_quarter():
    """A quarter asked: the year's 10-Q is closer than the year's 10-K (R2 for a quarter withheld), but it is
    no document of the type asked: "Q4 2022 revenue in its 2022 10-K" still falls back to the 2023 10-K's
    comparative columns when the 2022 10-K is missing."""
    q22 = doc("KO_2022Q3_10Q", 2022, "10-Q", period="Q3")
    in_10k = plan_for("Q4 2022 revenue in its 2022 10-K", years=[2022], quarters=[4], forms=["10-K"])
    tiers = document_tiers([KO23, q22], in_10k)
    assert tiers["KO_2023_10K"].tier == 1 and "comparative" in tiers["KO_2023_10K"].why
    # no 10-K named: the year's 10-K is R2 for a quarter only when no quarter's report of the year exists
    q2 = plan_for("Q2 2022 dividends", years=[2022], quarters=[2])
    assert document_tiers([KO22, q22], q2)["KO_2022_10K"].tier == 2
    assert document_tiers([KO22], q2)["KO_2022_10K"].tier == 1


def test_a_day_named_alone_is_the_balance_sheet_of_the_reports_ending_that_day():
    """D: "cash at March 3, 2023" is the report whose period ends that day (a fiscal first quarter), tier 0
    whatever its fiscal year's number, with D's points; the annual report ending another day gets no A."""
    q1 = DocInfo(doc_id="ADBE_2023Q1_EARNINGS", form="EARNINGS", fiscal_year=2023, fiscal_period="Q1",
                 period_end=dt.date(2023, 3, 3), entity="adobe")
    fy = DocInfo(doc_id="ADBE_2023_10K", form="10-K", fiscal_year=2023, fiscal_period="FY",
                 period_end=dt.date(2023, 12, 1), entity="adobe")
    early = DocInfo(doc_id="AAPL_2024Q1_10Q", form="10-Q", fiscal_year=2024, fiscal_period="Q1",
                    period_end=dt.date(2023, 12, 30), entity="adobe")
    plan = make_plan(QueryAnalysis("cash at March 3, 2023", [KO], [2023], day=dt.date(2023, 3, 3)))
    tiers = document_tiers([q1, fy], plan)
    assert tiers["ADBE_2023Q1_EARNINGS"].tier == 0 and "D " in tiers["ADBE_2023Q1_EARNINGS"].why
    assert tiers["ADBE_2023Q1_EARNINGS"].bonus == pytest.approx(TIER_POINTS[0] + DAY_POINTS)
    # the annual report prints no balance of March 3: behind the report dated that day, with no points
    assert tiers["ADBE_2023_10K"].tier == 1 and tiers["ADBE_2023_10K"].bonus == 0
    # with no report of the company dated that day, the year's reports stand (R1; no A: no year's end)
    assert document_tiers([fy], plan)["ADBE_2023_10K"].bonus == pytest.approx(TIER_POINTS[0])
    year_end = make_plan(QueryAnalysis("cash at December 1, 2023", [KO], [2023], day=dt.date(2023, 12, 1)))
    assert document_tiers([fy], year_end)["ADBE_2023_10K"].bonus == \
        pytest.approx(TIER_POINTS[0] + ANNUAL_POINTS + DAY_POINTS)
    # the day ends a quarter numbered in the next fiscal year (a 52/53-week year's slack): still that report
    december = make_plan(QueryAnalysis("cash at December 31, 2023", [KO], [2023], day=dt.date(2023, 12, 31)))
    assert document_tiers([early], december)["AAPL_2024Q1_10Q"].tier == 0
    # a later year named too: the day is a comparative column of that year's report, and a form named rules
    later = make_plan(QueryAnalysis("the 2023 10-K's cash as of December 1, 2022", [KO], [2022, 2023],
                                    forms=["10-K"], day=dt.date(2022, 12, 1)))
    assert "D " not in document_tiers([fy], later)["ADBE_2023_10K"].why
    named = make_plan(QueryAnalysis("cash at March 3, 2023 per the 10-K", [KO], [2023], forms=["10-K"],
                                    day=dt.date(2023, 3, 3)))
    assert "D " not in document_tiers([q1], named)["ADBE_2023Q1_EARNINGS"].why
    # a span named by its end is E's, not D's
    ended = make_plan(QueryAnalysis("three months ended March 3, 2023", [KO], [2023], day=dt.date(2023, 3, 3),
                                    ended=(3, dt.date(2023, 3, 3))))
    assert "D " not in document_tiers([q1], ended)["ADBE_2023Q1_EARNINGS"].why


def test_a_filing_dated_the_day_asked_comes_before_a_report_ending_a_day_off():
    """D's slack lets a report ending near the day stand for it (a 52/53-week quarter), not when another of the
    company's filings is dated that day itself: Amcor's 8-K of July 1, 2022 before its fiscal 2022 10-K ending
    June 30, which falls to the company's other reports (tier 1, no points)."""
    fy = DocInfo(doc_id="AMCR_2022_10K", form="10-K", fiscal_year=2022, fiscal_period="FY",
                 period_end=dt.date(2022, 6, 30), entity="amcor")
    event = DocInfo(doc_id="AMCR_2022-07-01_8K", form="8-K", fiscal_year=2022, period_end=dt.date(2022, 7, 1),
                    entity="amcor")
    plan = make_plan(QueryAnalysis("What did Amcor announce on July 1, 2022?", [KO], [2022], day=dt.date(2022, 7, 1)))
    tiers = document_tiers([fy, event], plan)
    assert tiers["AMCR_2022-07-01_8K"].tier == 0 and tiers["AMCR_2022_10K"] == (1, ())
    assert document_tiers([fy], plan)["AMCR_2022_10K"].tier == 0  # alone, the slack still lets it stand


def test_document_score_is_half_rank_half_votes_plus_the_tier_bonus():
    plan = plan_for("revenue in fiscal 2023", years=[2023])
    doc_hits = [Hit("KO_2022_10K", 9.0), Hit("KO_2023_10K", 8.0)]  # rank scores 1.0 and 0.5
    passage_hits = [Hit("c1", 1.0, {"doc_id": "KO_2023_10K"}), Hit("c2", 0.9, {"doc_id": "KO_2023_10K"}),
                    Hit("c3", 0.8, {"doc_id": "KO_2022_10K"}), Hit("c4", 0.7, {"doc_id": "KO_2023Q3_10Q"})]
    scored = score_documents(DOCS, doc_hits, passage_hits, document_tiers(DOCS, plan))
    # votes: 1/3 + 1/4 = 0.5833 (KO23), 1/5 = 0.2 (KO22), 1/6 (KO23Q); normalized by the top vote
    by_id = {d.doc.doc_id: d.score for d in scored}
    # the year's annual report also gets A: a fiscal year without a quarter (another year's does not)
    assert by_id["KO_2023_10K"] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0 + TIER_POINTS[0] + ANNUAL_POINTS)
    assert by_id["KO_2022_10K"] == pytest.approx(0.5 * 1.0 + 0.5 * (0.2 / (7 / 12)) + TIER_POINTS[2])
    assert by_id["KO_2023Q3_10Q"] == pytest.approx(0.5 * 0.0 + 0.5 * ((1 / 6) / (7 / 12)) + TIER_POINTS[2])
    assert [d.doc.doc_id for d in scored] == ["KO_2023_10K", "KO_2022_10K", "KO_2023Q3_10Q"]
    assert isinstance(scored[0], ScoredDoc) and "R1" in scored[0].why


def test_documents_neither_found_nor_voted_for_are_not_candidates():
    plan = plan_for("revenue")
    scored = score_documents(DOCS, [Hit("KO_2023_10K", 1.0)], [], document_tiers(DOCS, plan))
    assert [d.doc.doc_id for d in scored] == ["KO_2023_10K"]


def test_diversify_takes_the_named_companies_in_turn():
    pep = doc("PEP_2023_10K", 2023, entity="pepsico")
    ranked = [ScoredDoc(KO23, 3.0, ""), ScoredDoc(KO22, 2.0, ""), ScoredDoc(KO23Q, 1.5, ""), ScoredDoc(pep, 1.0, "")]
    two = QueryAnalysis("q", [KO, PEP])
    assert [d.doc.doc_id for d in diversify(ranked, two, 3)] == ["KO_2023_10K", "PEP_2023_10K", "KO_2022_10K"]
    one = QueryAnalysis("q", [KO])
    assert [d.doc.doc_id for d in diversify(ranked, one, 2)] == ["KO_2023_10K", "KO_2022_10K"]


def test_document_weights_discount_a_companys_later_documents_within_a_tier():
    plan = make_plan(QueryAnalysis("revenue as of September 30, 2023", [KO], [2023], day=dt.date(2023, 9, 30)))
    chosen = [ScoredDoc(KO23, 2.0, ""), ScoredDoc(KO23Q, 1.0, ""), ScoredDoc(KO22, 0.5, "")]
    assert document_weights(chosen, plan) == pytest.approx(
        {"KO_2023_10K": 1.0, "KO_2023Q3_10Q": 0.85, "KO_2022_10K": 0.5})


def test_rescoring_weighs_document_item_and_tree():
    hits = [Hit("a", 10.0, {"doc_id": "KO_2023_10K", "form": "10-K", "item": "7"}),
            Hit("b", 8.0, {"doc_id": "KO_2022_10K", "form": "10-K", "item": "8"}),
            Hit("c", 6.0, {"doc_id": "KO_2023_10K", "form": "10-K", "item": "8"}),
            Hit("d", 5.0, {"doc_id": "OTHER", "form": "10-K", "item": "1"})]
    out = rescore_passages(hits, {"KO_2023_10K": 1.0, "KO_2022_10K": 0.5}, {"10-K:8": 0.4}, {"c"}, ["8"], 1.3)
    scores = {h.id: h.score for h in out}
    assert scores["a"] == pytest.approx(1.0)
    assert scores["b"] == pytest.approx(0.8 * 0.5 * 1.2 * 1.3)
    assert scores["c"] == pytest.approx(0.6 * 1.0 * 1.2 * 1.3 * 1.15)
    assert scores["d"] == pytest.approx(0.5 * 0.5)  # an unknown document weighs 0.5
    assert [h.id for h in out] == ["c", "a", "b", "d"]  # the Item's, FLAM's and the tree's boosts lift c past a
    assert "FLAM weight 0.40" in out[0].source["_reason"] and "tree node" in out[0].source["_reason"]


def test_a_chunk_counts_for_the_page_holding_most_of_it():
    text = "tail of page 3\nthe statement's title and its table on page 4"
    on_next = len("the statement's title and its table on page 4")
    assert evidence_page({"page_start": 3, "page_end": 4, "char_end": on_next, "text": text}) == 4
    assert evidence_page({"page_start": 3, "page_end": 4, "char_end": 5, "text": text}) == 3
    assert evidence_page({"page_start": 3, "page_end": 3, "text": "x"}) == 3
    assert evidence_page({"page_start": 3, "page_end": 6, "kind": "table"}) == 3  # tables: their first page
    assert evidence_page({"page_start": 3, "page_end": 4, "_page": 9}) == 9  # a pinned page is kept


def test_a_chunk_over_two_pages_counts_for_the_page_holding_the_question_words():
    tail = "Announced an agreement to acquire PDC Energy in an all-stock transaction."
    head = "Upstream earnings decreased on lower realizations, partly offset by lower operating expenses and volumes."
    chunk = {"page_start": 26, "page_end": 27, "char_end": len(head), "text": f"{tail}\n{head}"}
    assert evidence_page(chunk) == 27  # most of it is on 27
    assert evidence_page(chunk, terms("What did Chevron announce about acquiring PDC Energy?")) == 26
    assert evidence_page(chunk, terms("Why did upstream earnings decrease?")) == 27
    assert evidence_page(chunk, terms("What did Chevron acquire?")) == 27  # one word more: not enough to move it


def test_pages_keep_one_item_per_page_pins_first(monkeypatch):
    class Docs:
        docs = {}

    def hit(chunk_id, score, page, **extra):
        return Hit(chunk_id, score, {"doc_id": "KO_2023_10K", "page_start": page, "page_end": page, "text": chunk_id,
                                     **extra})

    hits = [hit("p1", 2.0, 62, _page=62, _reason="pinned"), hit("a", 1.0, 10), hit("b", 0.9, 11), hit("c", 0.8, 10),
            hit("d", 0.7, 11)]
    out = pages(hits, Docs(), "match")
    assert [(e.page, e.chunk_id) for e in out] == [(62, "p1"), (10, "a"), (11, "b")]
    assert out[0].reason == "pinned" and out[1].reason == "match"
    # with coverage, a page's other chunks add to its best: 1.0 + 0.5 * 0.8 = 1.4 on page 10, 0.9 + 0.5 * 2.0
    # = 1.9 on page 11 when a second chunk there scores 2.0
    out = pages(hits + [hit("e", 2.0, 11)], Docs(), "match", coverage=0.5)
    assert [e.page for e in out] == [62, 11, 10]
    assert [e.score for e in out[1:]] == pytest.approx([0.9 + 0.5 * (0.7 + 2.0), 1.4])


def test_document_choice_weighs_year_period_and_form_evidence():
    """Each piece of evidence adds its points; --explain shows them (``Choice.why``)."""
    latest_q = doc("KO_2024Q2_10Q", 2024, "10-Q", period="Q2").model_copy(update={"period_end": "2024-06-30"})
    old = KO23.model_copy(update={"period_end": "2023-12-31"})
    release = doc("KO_2023Q4_EARNINGS", 2023, "EARNINGS", period="Q4").model_copy(update={"period_end": "2023-12-31"})
    docs = [old, latest_q, release]
    # a fiscal year and no quarter: the annual report beats the same year's earnings release (A), which
    # previewed it (P: tier 1, no points)
    year = document_tiers(docs, plan_for("What were the total assets as of FY2023?", years=[2023]))
    assert year["KO_2023_10K"].bonus == pytest.approx(TIER_POINTS[0] + ANNUAL_POINTS)
    assert year["KO_2023Q4_EARNINGS"].tier == 1 and year["KO_2023Q4_EARNINGS"].bonus == 0
    assert "annual report" in year["KO_2023_10K"].why
    # no period named: the latest periodic report speaks for now (L); an earnings release is not one
    now = document_tiers(docs, plan_for("Is the business subject to cyclicality?"))
    assert now["KO_2024Q2_10Q"].bonus > now["KO_2023_10K"].bonus == now["KO_2023Q4_EARNINGS"].bonus == 0
    assert "newest" in now["KO_2024Q2_10Q"].why
    # non-GAAP wording: the earnings release of the year is tier 0, the annual report is not preferred
    adjusted = document_tiers(docs, plan_for("Adjusted non-GAAP EBITDA for FY2023", years=[2023]))
    assert adjusted["KO_2023Q4_EARNINGS"].bonus > adjusted["KO_2023_10K"].bonus


def test_documents_filter_on_sp500_membership():
    from query.scoring import filter_docs

    member, former, unknown = (DocInfo(doc_id=d, company="x", sp500_member=flag, entity="x")
                               for d, flag in (("A", True), ("B", False), ("C", None)))
    assert [d.doc_id for d in filter_docs([member, former, unknown], {"sp500_member": [True]})] == ["A"]
    assert [d.doc_id for d in filter_docs([member, former, unknown], {"sp500_member": [False]})] == ["B"]


def _ev(doc_id: str, page: int, score: float = 1.0) -> Evidence:
    return Evidence(doc_id=doc_id, source_name=None, company=None, ticker=None, form=None, fiscal_year=None,
                    fiscal_period=None, item="", item_title="", page=page, chunk_id=f"{doc_id}:{page}", text="",
                    score=score)


def test_a_close_second_document_gets_a_page_among_the_first_five():
    ranked = [_ev("KO_2023Q4_EX99", p, s) for p, s in ((9, 1.0), (2, 0.8), (0, 0.5), (7, 0.7), (19, 0.6))]
    ranked += [_ev("KO_2023Q4_EX99", 4, 0.4), _ev("KO_2023_10K", 27, 0.9), _ev("KO_2022_10K", 30, 0.9)]
    scores = {"KO_2023Q4_EX99": 1.7, "KO_2023_10K": 1.4, "KO_2022_10K": 0.8}
    out = second_document(ranked, scores)
    # the 10-K's best page fifth; the release's weakest match of the five (page 0) sixth, nothing lost
    assert [(e.doc_id[-4:], e.page) for e in out[:6]] == [("EX99", 9), ("EX99", 2), ("EX99", 7), ("EX99", 19),
                                                           ("_10K", 27), ("EX99", 0)]
    assert sorted(e.chunk_id for e in out) == sorted(e.chunk_id for e in ranked)
    assert "next document's best page" in out[4].reason
    assert second_document(ranked, {**scores, "KO_2023_10K": 0.8}) == ranked  # under half the first: stands
    mixed = ranked[:4] + ranked[6:]
    assert second_document(mixed, scores) == mixed  # two documents among the first five already
    assert second_document(ranked[:5], scores) == ranked[:5]  # no page of another document to give


def test_several_companies_each_have_their_best_page_first():
    """Issue 54: four of five pages one company's pushed the other's answer out; each named company's best
    page now comes first, in the order those pages ranked, then the rest as ranked."""
    entity_of = {"KO_2023_10K": "cocacola", "PEP_2023_10K": "pepsico"}
    ranked = [_ev("KO_2023_10K", 62), _ev("KO_2023_10K", 30), _ev("KO_2023_10K", 31), _ev("KO_2023_10K", 40),
              _ev("KO_2023_10K", 41), _ev("PEP_2023_10K", 61), _ev("PEP_2023_10K", 5)]
    out = company_turns(ranked, entity_of, ["pepsico", "cocacola"])
    assert [(e.doc_id, e.page) for e in out[:3]] == [("KO_2023_10K", 62), ("PEP_2023_10K", 61), ("KO_2023_10K", 30)]
    assert len(out) == len(ranked)
    assert company_turns(ranked, entity_of, ["cocacola"]) == ranked  # one company: the ranking stands


def test_no_period_named_keeps_the_report_before_the_newest():
    ko24 = DocInfo(doc_id="KO_2024_10K", form="10-K", fiscal_year=2024, period_end="2024-12-31", entity="cocacola")
    ko23 = DocInfo(doc_id="KO_2023_10K", form="10-K", fiscal_year=2023, period_end="2023-12-31", entity="cocacola")
    ko22 = DocInfo(doc_id="KO_2022_10K", form="10-K", fiscal_year=2022, period_end="2022-12-31", entity="cocacola")
    q3 = DocInfo(doc_id="KO_2024Q3_10Q", form="10-Q", fiscal_year=2024, period_end="2024-09-30", entity="cocacola")
    scored = [ScoredDoc(ko24, 3.0, ""), ScoredDoc(q3, 2.0, ""), ScoredDoc(ko22, 1.0, ""), ScoredDoc(ko23, 0.5, "")]
    chosen = scored[:2]
    no_year = plan_for("how has revenue trended over the last three years")
    assert [d.doc.doc_id for d in with_previous(chosen, scored, no_year)] == \
        ["KO_2024_10K", "KO_2024Q3_10Q", "KO_2023_10K"]  # the 10-K before the newest, not the oldest
    assert with_previous(chosen, scored, plan_for("revenue in 2024", years=[2024])) == chosen  # a year named
    assert previous_report(ko23, [ko24, ko23, ko22]).doc_id == "KO_2022_10K"
    assert previous_report(ko22, [ko24, ko23, ko22]) is None
    assert [d.doc_id for d in newest_reports(t.doc for t in chosen)] == ["KO_2024_10K"]


def test_no_period_named_any_report_answers_the_one_before_is_the_quarter_before():
    """When any periodic report answers (an accrual, a stake), the report before a newest 10-K is that year's
    10-Q, not the 10-K a year older; when only an annual report does (a trend), it is the 10-K before."""
    ge23 = DocInfo(doc_id="GE_2023_10K", form="10-K", fiscal_year=2023, period_end="2023-12-31", entity="ge")
    ge22 = DocInfo(doc_id="GE_2022_10K", form="10-K", fiscal_year=2022, period_end="2022-12-31", entity="ge")
    q2 = DocInfo(doc_id="GE_2023Q2_10Q", form="10-Q", fiscal_year=2023, period_end="2023-06-30", entity="ge")
    scored = [ScoredDoc(ge23, 3.0, ""), ScoredDoc(ge22, 1.0, ""), ScoredDoc(q2, 0.5, "")]
    stake = plan_for("How much of GE HealthCare did General Electric retain?")
    assert [d.doc.doc_id for d in with_previous(scored[:1], scored, stake)] == ["GE_2023_10K", "GE_2023Q2_10Q"]
    trend = plan_for("How has revenue trended over the last three years?")
    assert [d.doc.doc_id for d in with_previous(scored[:1], scored, trend)] == ["GE_2023_10K", "GE_2022_10K"]
    assert previous_report(ge23, [ge23, ge22, q2], newest_forms(stake)).doc_id == "GE_2023Q2_10Q"
    assert previous_report(ge23, [ge23, ge22, q2]).doc_id == "GE_2022_10K"  # its own form by default


def test_with_no_period_named_the_report_before_the_newest_is_a_close_second():
    ko24 = DocInfo(doc_id="KO_2024_10K", form="10-K", fiscal_year=2024, period_end="2024-12-31", entity="cocacola")
    ko23 = DocInfo(doc_id="KO_2023_10K", form="10-K", fiscal_year=2023, period_end="2023-12-31", entity="cocacola")
    docs = [ScoredDoc(ko24, 1.8, ""), ScoredDoc(ko23, 0.4, "")]
    before = {"KO_2024_10K": previous_report(ko24, [ko24, ko23])}
    assert second_scores(docs, plan_for("how many employees"), before) == {"KO_2024_10K": 1.8, "KO_2023_10K": 0.9}
    assert second_scores(docs, plan_for("employees in 2024", years=[2024]), before)["KO_2023_10K"] == 0.4  # a year


def test_over_years_with_no_year_named_the_newest_annual_report_answers():
    ko24 = DocInfo(doc_id="KO_2024_10K", form="10-K", fiscal_year=2024, period_end="2024-12-31", entity="cocacola")
    q1 = DocInfo(doc_id="KO_2025Q1_10Q", form="10-Q", fiscal_year=2025, fiscal_period="Q1", period_end="2025-03-31",
                 entity="cocacola")
    over = document_tiers([ko24, q1], plan_for("How has revenue trended over the last three years?"))
    assert over["KO_2024_10K"].bonus == LATEST_POINTS and over["KO_2025Q1_10Q"].bonus == 0
    now = document_tiers([ko24, q1], plan_for("How much cash does it hold?"))  # no years asked: the newest report
    assert now["KO_2025Q1_10Q"].bonus == LATEST_POINTS and now["KO_2024_10K"].bonus == 0
    assert [d.doc_id for d in newest_reports([ko24, q1])] == ["KO_2025Q1_10Q"]
    # a trend asked with no period named is one over years, as the verb's forms say it too
    for q in ("Does it maintain a stable trend of dividend distribution?", "How have its net revenues trended?",
              "What is the trend in its Services net sales?"):
        assert document_tiers([ko24, q1], plan_for(q))["KO_2024_10K"].bonus == LATEST_POINTS, q


def test_with_no_year_named_an_item_only_10ks_hold_is_the_newest_annual_reports():
    """The workforce is Item 1's (a 10-Q has no Item of it): "How many employees does it have?" takes the
    newest 10-K, not a newer 10-Q; a balance with no year named still takes the newest report."""
    ko24 = DocInfo(doc_id="KO_2024_10K", form="10-K", fiscal_year=2024, period_end="2024-12-31", entity="cocacola")
    q1 = DocInfo(doc_id="KO_2025Q1_10Q", form="10-Q", fiscal_year=2025, fiscal_period="Q1", period_end="2025-03-31",
                 entity="cocacola")
    staff = plan_for("How many employees does it have?")
    assert staff.items == ["1"] and staff.annual
    assert document_tiers([ko24, q1], staff)["KO_2024_10K"].bonus == LATEST_POINTS
    assert [d.doc_id for d in newest_reports([ko24, q1], newest_forms(staff))] == ["KO_2024_10K"]
    assert not plan_for("How much cash does it hold?").annual
    assert not plan_for("What were its revenues by segment?").annual  # a statement's figure: a 10-Q prints it


def test_an_8k_cover_speaks_for_the_year_of_its_event():
    """An 8-K's cover has no fiscal period; "its December 2025 8-K" is the one whose event is of 2025."""
    cover = DocInfo(doc_id="META_2025-12-19_8K", form="8-K", period_end="2025-12-19", entity="meta")
    old = DocInfo(doc_id="META_2019-01-30_8K", form="8-K", period_end="2019-01-30", entity="meta")
    assert document_year(cover) == 2025 and document_year(KO23) == 2023
    tiers = document_tiers([cover, old], plan_for("officer change in the December 2025 8-K", years=[2025],
                                                  forms=["8-K"]))
    assert tiers["META_2025-12-19_8K"].tier == 0 and tiers["META_2019-01-30_8K"].tier == 2


def test_a_narrative_question_takes_the_page_that_explains_its_metric_first():
    texts = {25: "Our strategy. Deliveries of airplanes are planned for the year.",
             28: "Operating margins increased primarily due to lower costs.",
             31: "Commercial Airplanes Segment. BCA revenues increased by seven billion dollars this year compared "
                 "with the year before primarily due to higher deliveries of the wide-body program."}
    assert explaining_first(texts, "What drove the increase in BCA revenues in 2023?") == [31, 25, 28]
    assert explaining_first(texts, "What drove the change in operating margins?") == [28, 25, 31]
    assert explaining_first(texts, "What is the strategy?") == [25, 28, 31]  # none explains it: search order


def test_a_page_explains_a_change_in_a_passage_the_search_left_out():
    """Nike's Converse page: the question's best passage on it is the segment's table, the sentence that
    explains the fall is in another passage of the page. Read whole (every passage counting for it, one run on
    from the page before included, another page's left out), the page explains the part asked ahead of the
    consolidated discussion."""
    def passage(start: int, end: int, text: str, char_start: int = 0, char_end: int = 100) -> dict:
        return {"page_start": start, "page_end": end, "text": text, "char_start": char_start, "char_end": char_end}
    table = passage(45, 45, "CONVERSE | FISCAL 2024 | FISCAL 2023 | TOTAL REVENUES | 2,082 | 2,427")
    sentence = passage(45, 45, "Converse revenues decreased 15% primarily due to declines in North America.")
    consolidated = passage(44, 44, "Revenues decreased 2% due to lower wholesale revenues.")
    later = passage(46, 46, "Converse EBIT decreased 30%.")
    question = "Why did Converse revenues fall in fiscal 2024?"
    best_only = page_texts([44, 45], [consolidated, table])
    assert explaining_first(best_only, question) == [44, 45]
    whole = page_texts([44, 45], [consolidated, table, sentence, later])
    assert whole == {44: consolidated["text"], 45: f"{table['text']}\n{sentence['text']}"}
    assert explaining_first(whole, question) == [45, 44]


def test_the_page_stating_the_expectation_asked_comes_first():
    """Pages with a sentence of expectation for the year asked, the one sharing the question's words first;
    a page whose sentence forecasts something else follows; a page forecasting nothing is left out."""
    texts = {18: "We expect the pressures of cost inflation to continue into 2025.",
             30: "Net sales in 2024 were $8.2 billion, up 3%.",
             33: "We anticipate a full-year effective income tax rate for 2025 to be approximately 24.4 percent."}
    q = "What full-year effective income tax rate does Acme anticipate for fiscal 2025?"
    assert forecasting_first(texts, q, 2025) == [33, 18]
    assert forecasting_first(texts, q, 2024) == []


def test_a_forecast_found_by_its_year_alone_must_name_what_is_asked():
    """Found by the year and a verb of expectation alone, a sentence counts only if it names what is
    forecast in the question's words: the capital expenditures expected, not payments expected "through 2024"
    for other obligations."""
    texts = {53: "We currently expect 2024 capital expenditures to be approximately $2.2 billion.",
             43: "We expect to continue to make payments related to clearing costs through 2024."}
    assert forecasting_first(texts, "How much did Acme expect to spend on capital expenditures in 2024?", 2024,
                             least=2) == [53]
    assert forecasting_first(texts, "What retiree benefit payments did Acme expect for 2024?", 2024, least=2) == []
    assert forecasting_first(texts, "What retiree benefit payments did Acme expect for 2024?", 2024) == [43, 53]


def test_the_page_whose_metric_is_the_questions_whole_comes_before_a_part_of_it():
    """A question on net sales: the page explaining worldwide net sales before the one explaining net sales in
    one region, whatever the search's order; a page explaining nothing the question names stays last."""
    texts = {40: "Latin America. Net sales in Latin America increased 14.0% in 2023 primarily due to pricing.",
             44: "Operating expenses increased in the year primarily due to higher marketing costs overall.",
             31: "Net Sales\nWorldwide Net sales were $19,457 in 2023, up 8.5% from 2022, due to net selling price "
                 "increases."}
    assert explaining_first(texts, "What drove Colgate's net sales growth in 2023?") == [31, 40, 44]
    texts = {41: "Net sales in Europe increased 7.5% in 2023 to $2,737, driven by net selling price increases.",
             31: texts[31]}  # a region of one word: "worldwide" is no part either, so the whole still leads
    assert explaining_first(texts, "What drove Colgate's net sales growth in 2023?") == [31, 41]
    assert explaining_first(texts, "What drove Colgate's net sales growth in Europe in 2023?") == [41, 31]


def test_the_company_whose_filings_print_a_products_name_is_the_one_asked_about():
    assert owner(["abbvie"] * 8 + ["amgen", None]) == "abbvie"  # 8 of 10 passages
    assert owner(["abbvie", "abbvie", "amgen", "merck", "pfizer"]) is None  # 2 of 5: below the share
    assert owner(["abbvie", "abbvie"]) is None  # too few passages to say
    assert owner([]) is None
    # a passage counts when it prints the name as the question writes it, not one of its words
    assert prints_any("Sales of Solar  Turbines rose.", ["Solar Turbines"])
    assert not prints_any("Gas turbines and wind turbines", ["Solar Turbines"])
    assert not prints_any(None, ["Humira"]) and prints_any("HUMIRA net revenues", ["Humira"])


def test_a_short_8k_chosen_first_is_read_whole():
    """Amcor's 8-K asked by its date ("What did Amcor announce on July 1, 2022?") matched only its exhibit
    list; its Item 8.01 page joins the hits just below the filing's best passage, on the hits' scale."""
    k8 = DocInfo(doc_id="X_8K", form="8-K", page_count=3)
    assert short_filing(k8)
    assert not short_filing(DocInfo(doc_id="X_8K_EX99-1", form="8-K", page_count=3, exhibit_type="EX-99.1"))
    assert not short_filing(DocInfo(doc_id="X_8K_long", form="8-K", page_count=SHORT_FILING_PAGES + 1))
    assert not short_filing(DocInfo(doc_id="X_10K", form="10-K", page_count=3))
    hits = [Hit("list", 0.9, {"doc_id": "X_8K"}), Hit("10k", 0.8, {"doc_id": "X_10K"})]
    own = [Hit("list", 20.0, {"doc_id": "X_8K"}), Hit("item", 10.0, {"doc_id": "X_8K"})]
    whole = read_whole(hits, "X_8K", own)
    assert [h.id for h in whole] == ["list", "10k", "item"]  # 0.95 * 0.9 * 10 / 20 = 0.43, below the 10-K's
    item = next(h for h in whole if h.id == "item")
    assert item.score == pytest.approx(WHOLE_SHARE * 0.9 * 10.0 / 20.0)
    assert read_whole(hits, "Y_8K", own) == hits  # the filing has no hit: nothing to scale by


def test_a_short_8k_named_by_its_form_and_day_is_read_at_the_top():
    """PepsiCo's 8-K dated May 5, 2023 (its shareholders' votes) asked what securities it describes: the
    10-Ks' exhibit lists share the question's words better, yet the filing named is the answer. Named, its
    passages all rank at the top of the hits' scale, in its own search's order, found or not."""
    hits = [Hit("10k-a", 0.8, {"doc_id": "X_10K"}), Hit("10k-b", 0.7, {"doc_id": "X_10K"}),
            Hit("votes", 0.4, {"doc_id": "X_8K"})]
    own = [Hit("cover", 4.0, {"doc_id": "X_8K"}), Hit("votes", 2.0, {"doc_id": "X_8K"})]
    named = read_whole(hits, "X_8K", own, named=True)
    assert [h.id for h in named] == ["cover", "10k-a", "10k-b", "votes"]
    assert named[0].score == pytest.approx(0.8) and named[-1].score == pytest.approx(0.4)
    assert [h.id for h in read_whole(hits[:2], "X_8K", own, named=True)] == ["cover", "10k-a", "10k-b", "votes"]
    assert [h.id for h in read_whole(hits, "X_8K", own)][:3] == ["10k-a", "10k-b", "votes"]  # not named: as found


def test_another_exhibit_of_a_results_filing_speaks_for_its_quarter_when_a_figure_is_asked():
    """Caterpillar's retail statistics, furnished as Exhibit 99.2 with its first quarter's release, print that
    quarter's figures (the cover prints none): asked a figure of the quarter, the exhibit is the quarter's
    document as the release is, even when its cover reader gave it a year and period of its own."""
    cat = dict(entity="caterpillar", company="Caterpillar", accession="0000018230-22-000107")
    release = DocInfo(doc_id="CAT_2022Q1_EARNINGS", form="EARNINGS", fiscal_year=2022, fiscal_period="Q1",
                      period_end="2022-04-28", exhibit_type="EX-99.1", **cat)
    stats = DocInfo(doc_id="CAT_2022-04-28_8K_EX99-2", form="8-K", fiscal_year=2022, fiscal_period="Q1",
                    period_end="2022-04-28", exhibit_type="EX-99.2", **cat)
    cover = DocInfo(doc_id="CAT_2022-04-28_8K", form="8-K", period_end="2022-04-28", **cat)
    tiers = document_tiers([release, stats, cover], plan_for("retail sales in Latin America in the first quarter of"
                                                             " 2022", years=[2022], quarters=[1]))
    assert tiers["CAT_2022-04-28_8K_EX99-2"].tier == tiers["CAT_2022Q1_EARNINGS"].tier == 0
    assert tiers["CAT_2022-04-28_8K"].tier == 2  # a figure asked: the cover prints none
    alone = document_tiers([stats], plan_for("retail sales in the first quarter of 2022", years=[2022], quarters=[1]))
    assert alone["CAT_2022-04-28_8K_EX99-2"].tier == 2  # no release in its filing: an 8-K's exhibit, not a quarter's


def test_an_8k_speaks_for_the_release_it_furnishes_and_for_the_fiscal_year_of_its_event():
    """An 8-K's cover furnishing a quarter's release is that quarter's, as the release is (one filing); another
    8-K's event is of its calendar year and of its company's fiscal year, read off its reports (NVIDIA's years
    end in late January: its March 2026 plan is of fiscal 2027; Oracle's end in May: July 2019 is fiscal 2020)."""
    nv = dict(entity="nvidia", company="NVIDIA")
    k25 = DocInfo(doc_id="NVDA_2025_10K", form="10-K", fiscal_year=2025, fiscal_period="FY",
                  period_end="2025-01-26", **nv)
    plan8k = DocInfo(doc_id="NVDA_2026-03-02_8K", form="8-K", period_end="2026-03-02", **nv)
    assert fiscal_ends([k25]) == {"nvidia": ("0126", 0)}
    tiers = document_tiers([k25, plan8k], plan_for("NVIDIA's fiscal 2027 variable compensation plan", years=[2027]))
    assert tiers["NVDA_2026-03-02_8K"].tier == 0 and tiers["NVDA_2025_10K"].tier == 2
    assert document_tiers([k25, plan8k], plan_for("NVIDIA's 8-K of 2026", years=[2026]))["NVDA_2026-03-02_8K"].tier == 0
    assert document_tiers([k25, plan8k], plan_for("fiscal 2026", years=[2026]))["NVDA_2026-03-02_8K"].tier == 0
    assert document_tiers([plan8k], plan_for("fiscal 2027", years=[2027]))["NVDA_2026-03-02_8K"].tier == 2  # no calendar
    orcl = dict(entity="oracle", company="Oracle")
    q1 = DocInfo(doc_id="ORCL_2024Q1_10Q", form="10-Q", fiscal_year=2024, fiscal_period="Q1", period_end="2023-08-31",
                 **orcl)
    assert fiscal_ends([q1]) == {"oracle": ("0531", 0)}
    elected = DocInfo(doc_id="ORCL_2019-07-03_8K", form="8-K", period_end="2019-07-03", **orcl)
    assert document_tiers([q1, elected], plan_for("director elected in fiscal 2020", years=[2020])
                          )["ORCL_2019-07-03_8K"].tier == 0
    ad = dict(entity="adobe", company="Adobe", accession="0000796343-23-000044")
    cover = DocInfo(doc_id="ADBE_2023-03-15_8K", form="8-K", period_end="2023-03-15", **ad)
    release = DocInfo(doc_id="ADBE_2023Q1_EARNINGS", form="EARNINGS", fiscal_year=2023, fiscal_period="Q1",
                      period_end="2023-03-15", **ad)
    tiers = document_tiers([cover, release], plan_for("non-GAAP measures of the first quarter of fiscal 2023",
                                                      years=[2023], quarters=[1]))
    assert tiers["ADBE_2023-03-15_8K"].tier == tiers["ADBE_2023Q1_EARNINGS"].tier == 0
    revenue = document_tiers([cover, release], plan_for("revenue of the first quarter of fiscal 2023", years=[2023],
                                                        quarters=[1]))
    assert revenue["ADBE_2023-03-15_8K"].tier == 2 and revenue["ADBE_2023Q1_EARNINGS"].tier == 0  # a figure
    named = document_tiers([cover, release], plan_for("the 8-K of the first quarter of fiscal 2023", years=[2023],
                                                      quarters=[1], forms=["8-K"]))
    assert named["ADBE_2023-03-15_8K"].tier == 0 and named["ADBE_2023Q1_EARNINGS"].tier == 2  # its form named
    assert document_tiers([cover], plan_for("first quarter of fiscal 2023", years=[2023], quarters=[1])
                          )["ADBE_2023-03-15_8K"].tier == 2  # no release of its filing: no quarter of its own


def test_a_margin_asked_takes_the_page_printing_its_row_before_a_segments_margin():
    """3M's 2022 10-K: the page printing the company's "Operating income margin" as a row of percents, whose
    prose explains its lines, comes before the segments' pages whose sentences explain "business segment
    operating income margins" (a part the question does not name), and after a page explaining the margin
    itself; a margin's row of amounts (the income statement's) is not its row of percents."""
    texts = {30: "Business segment operating income margins decreased in 2022 when compared to the prior year "
                 "primarily due to litigation costs.",
             18: "Overview. 3M is a diversified global manufacturer.",
             26: "Operating Expenses:\nOperating income margin\n19.1 %\n20.8 %\n(1.7)%\nCost of sales, measured "
                 "as a percent of sales, increased in 2022. Increases were primarily due to litigation costs.",
             59: "Operating income margin\n6,539\n7,369"}
    question = "What drove operating margin change as of FY2022 for 3M?"
    rows = ratio_rows([("oper", "margin")], question)
    assert explaining_first(texts, question) == [30, 18, 26, 59]
    assert explaining_first(texts, question, rows) == [26, 30, 18, 59]
    texts[20] = "Operating margin decreased 1.7 points in 2022 primarily due to litigation costs."
    assert explaining_first(texts, question, rows)[:2] == [20, 26]


def test_a_margin_printed_as_its_profits_share_of_sales_is_its_row():
    """Walmart prints its operating margin as "Operating income as a percentage of net sales", a row of percents
    over the sentences on its gross profit rate: that page comes before one explaining its expenses' share."""
    texts = {32: "Operating expenses as a percentage of net sales decreased 8 basis points due to expense "
                 "management.",
             35: "Gross profit rate\n24.1%\n24.5%\nOperating income as a percentage of net sales\n4.0%\n4.3%\n"
                 "Our gross profit rate decreased 40 basis points due to price investment."}
    question = "What drove operating margin change as of FY2020 for Walmart?"
    assert explaining_first(texts, question) == [32, 35]
    assert explaining_first(texts, question, ratio_rows([("oper", "margin")], question)) == [35, 32]
