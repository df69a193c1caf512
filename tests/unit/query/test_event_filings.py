"""Rule L's other newest filing: an 8-K dated after a company's newest report, on literal documents."""

from __future__ import annotations

from kernel.search import Hit
from query.analysis import Entity, QueryAnalysis
from query.api import Evidence
from query.catalog import DocInfo
from query.coverage import taken_notes
from query.event_filings import asks_event, events_after
from query.plan import LATEST_EVENT, LATEST_POINTS, make_plan
from query.scoring import document_tiers, score_documents, taken, with_previous

MMM = Entity("3m", "3M")
Q2 = DocInfo(doc_id="MMM_2023Q2_10Q", ticker="MMM", form="10-Q", fiscal_year=2023, fiscal_period="Q2",
             period_end="2023-06-30", entity="3m", accession="a-23")
K22 = DocInfo(doc_id="MMM_2022_10K", ticker="MMM", form="10-K", fiscal_year=2022, fiscal_period="FY",
              period_end="2022-12-31", entity="3m", accession="a-22")
COVER = DocInfo(doc_id="MMM_2024-03-08_8K", ticker="MMM", form="8-K", period_end="2024-03-08", entity="3m",
                accession="a-24")
RELEASE = DocInfo(doc_id="MMM_2024-03-08_8K_EX99-1", ticker="MMM", form="8-K", fiscal_year=2024,
                  period_end="2024-03-08", entity="3m", accession="a-24")
OLD = DocInfo(doc_id="MMM_2023-05-01_8K", ticker="MMM", form="8-K", period_end="2023-05-01", entity="3m",
              accession="a-old")
DOCS = [Q2, K22, COVER, RELEASE, OLD]


def plan_for(question: str, years=(), forms=()):
    return make_plan(QueryAnalysis(question, [MMM], list(years), [], list(forms)))


SPIN_OFF = plan_for("When will 3M distribute the Solventum shares in the spin-off?")


def test_an_8k_after_the_newest_report_answers_when_its_words_match_it_better():
    assert asks_event(SPIN_OFF)
    text = {"MMM_2023Q2_10Q": 0.8, "MMM_2024-03-08_8K": 0.3, "MMM_2024-03-08_8K_EX99-1": 1.0, "MMM_2023-05-01_8K": 0.9}
    assert events_after(DOCS, [Q2], text, SPIN_OFF) == {"MMM_2023Q2_10Q": ["MMM_2024-03-08_8K",
                                                                           "MMM_2024-03-08_8K_EX99-1"]}
    weaker = {**text, "MMM_2024-03-08_8K_EX99-1": 0.5}  # the report speaks of it better: it keeps rule L
    assert events_after(DOCS, [Q2], weaker, SPIN_OFF) == {}
    assert events_after(DOCS, [Q2], {"MMM_2023-05-01_8K": 0.9}, SPIN_OFF) == {}  # an 8-K before the report's end


def test_a_figure_a_year_or_a_form_asked_keeps_the_report():
    text = {"MMM_2024-03-08_8K_EX99-1": 1.0}
    for plan in (plan_for("What was 3M's revenue?"), plan_for("spin-off in 2024", years=[2024]),
                 plan_for("What does 3M's 10-Q say about the spin-off?", forms=["10-Q"])):
        assert not asks_event(plan) and events_after(DOCS, [Q2], text, plan) == {}


def test_the_8k_takes_rule_ls_points_and_the_report_stays_the_one_before():
    hits = [Hit("MMM_2024-03-08_8K_EX99-1", 1.0), Hit("MMM_2023Q2_10Q", 0.9), Hit("MMM_2024-03-08_8K", 0.5)]
    scored = score_documents(DOCS, hits, [], document_tiers(DOCS, SPIN_OFF), SPIN_OFF)
    assert [t.doc.doc_id for t in scored][:2] == ["MMM_2024-03-08_8K_EX99-1", "MMM_2024-03-08_8K"]
    first = scored[0]
    assert first.after == "MMM_2023Q2_10Q" and LATEST_EVENT in first.why
    assert first.score == 0.5 + LATEST_POINTS  # half the search rank (no passage votes), and rule L
    report = next(t for t in scored if t.doc.doc_id == "MMM_2023Q2_10Q")
    assert report.after is None and report.score < 1.0  # no rule L points left
    chosen = with_previous(scored[:2], scored, SPIN_OFF)
    assert [t.doc.doc_id for t in chosen] == ["MMM_2024-03-08_8K_EX99-1", "MMM_2024-03-08_8K", "MMM_2023Q2_10Q"]
    assert taken(chosen, [t.doc for t in chosen], SPIN_OFF) == [(RELEASE, Q2)]
    # without the plan (or with a figure asked), the newest report keeps rule L
    plain = score_documents(DOCS, hits, [], document_tiers(DOCS, SPIN_OFF))
    assert plain[0].doc.doc_id == "MMM_2023Q2_10Q" and not any(t.after for t in plain)
    assert taken(plain[:1], DOCS, SPIN_OFF) == [(Q2, K22)]


def test_the_note_names_the_8k_and_the_report_before_it():
    shown = [Evidence(doc_id=RELEASE.doc_id, source_name=None, company=None, ticker="MMM", form="8-K",
                      fiscal_year=2024, fiscal_period=None, item="8.01", item_title="", page=0, chunk_id="c",
                      text="", score=1.0)]
    assert taken_notes(None, [], [RELEASE], {RELEASE.doc_id: Q2}, shown) == [
        "no period named: MMM's newest filing on it answers, MMM_2024-03-08_8K_EX99-1 (8-K of 2024-03-08); "
        "its newest report, MMM_2023Q2_10Q, is kept among the candidates"]
