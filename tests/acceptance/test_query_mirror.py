"""The query module on real filings: Coca-Cola's and PepsiCo's 2023 10-Ks and Apple's 2023 Q3 10-Q,
segmented, indexed by the Spark jobs (int8 ONNX embeddings, to keep the suite short) and published to the
embedded engine."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from kernel.resources import Resources
from query import Retriever
from query.curate import needs_of
from shell.cli import main
from shell.client import search

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def retriever(published):
    return Retriever(Resources(published))


def test_the_plan_is_made_once_per_question_and_once_per_follow_up(retriever, monkeypatch):
    """The pipeline builds one plan per question; each curation follow-up derives one from it."""
    import query.plan
    import query.retrieve

    made = []
    real = query.plan.make_plan

    def counting(analysis, concepts=None):
        made.append(analysis.question)
        return real(analysis, concepts)

    monkeypatch.setattr(query.plan, "make_plan", counting)
    monkeypatch.setattr(query.retrieve, "make_plan", counting)
    result = retriever.search("How did Coca-Cola's and PepsiCo's net revenues compare in fiscal 2023?", k=5)
    follow_ups = sum(len(it.get("complementary_queries", [])) for it in result.iterations)
    assert len(made) == 1 + follow_ups, (made, result.iterations)
    made.clear()
    # a question naming a company the evidence lacks at first gets one follow-up for it
    result = retriever.search("Apple and PepsiCo: what were net sales and net revenue in 2023?", k=5)
    follow_ups = sum(len(it.get("complementary_queries", [])) for it in result.iterations)
    assert len(made) == 1 + follow_ups, (made, result.iterations)


def test_comparative_question_returns_both_companies(retriever):
    result = retriever.search("Compare Coca-Cola's and PepsiCo's net revenues in fiscal 2023", k=5)
    assert [c for c in result.plan["companies"]][:2] == ["Coca-Cola Company (The)", "PepsiCo"]
    docs = [e.doc_id for e in result.evidence]
    assert "KO_2023_10K" in docs and "PEP_2023_10K" in docs, docs
    assert {docs[0], docs[1]} == {"KO_2023_10K", "PEP_2023_10K"}  # one per company at the top
    assert not result.iterations[-1]["missing"]


def test_single_company_question_finds_the_revenue_figure(retriever):
    result = retriever.search("What were Coca-Cola's net operating revenues in 2023?", k=5)
    assert result.documents[0]["doc_id"] == "KO_2023_10K"
    assert all(e.doc_id == "KO_2023_10K" for e in result.evidence)
    assert any("45,754" in e.text for e in result.evidence), [e.page for e in result.evidence]
    for e in result.evidence:
        assert e.page >= 0 and e.chunk_id.startswith("KO_2023_10K:") and e.reason


def test_missing_company_triggers_a_complementary_query(retriever):
    """With one document per question, the first pass covers one company; curation asks for the other."""
    from dataclasses import replace

    opts = replace(retriever.options, doc_k=1)
    result = retriever.search("How did Apple's iPhone net sales change, and Coca-Cola's revenues?", k=5,
                              options=opts)
    assert len(result.documents) == 1
    first = result.iterations[0]
    assert len(first["missing"]) == 1 and first["complementary_queries"][0]["found"] > 0
    assert {e.doc_id.split("_")[0] for e in result.evidence[:2]} == {"AAPL", "KO"}
    assert any(e.reason.startswith("complementary query for") for e in result.evidence)


@pytest.mark.parametrize("question", [
    'revenue" OR *:* --', "ticker:KO AND fiscal_year:[2000 TO 2030]", '{"query": {"match_all": {}}}',
    "'; DROP TABLE passages; --", "Acme Widgets revenue growth",
])
def test_odd_input_never_errors_or_empties(retriever, question):
    result = retriever.search(question, k=5)
    assert result.evidence  # unrecognized entities and query syntax do not empty the answer


def test_unknown_filter_field_is_a_clear_error(retriever):
    from kernel.search import BackendError

    with pytest.raises(BackendError, match="cannot filter"):
        retriever.search("revenue", filters={"text": "x"})
    ko = retriever.search("revenue", filters={"ticker": "KO"})
    assert ko.evidence and {e.ticker for e in ko.evidence} == {"KO"}


def test_python_http_and_cli_interfaces(published, capsys, monkeypatch):
    from fastapi.testclient import TestClient

    from shell.http import create_app

    evidence = search("Coca-Cola net operating revenues 2023", k=3, settings=published)
    assert 1 <= len(evidence) <= 3 and evidence[0].doc_id == "KO_2023_10K"
    client = TestClient(create_app(Retriever(Resources(published))))
    assert "/search" in client.get("/openapi.json").json()["paths"]
    resp = client.post("/search", json={"question": "PepsiCo net revenue 2023", "k": 2, "explain": True})
    assert resp.status_code == 200 and resp.json()["evidence"][0]["doc_id"] == "PEP_2023_10K"
    assert resp.json()["explain"]["documents"]
    timings = resp.json()["explain"]["timings_ms"]  # ms per stage and engine call
    assert {"total", "embed", "documents", "passages", "documents.hybrid", "passages.hybrid"} <= set(timings)
    assert timings["total"] >= timings["documents"] > 0
    bad = client.post("/search", json={"question": "x", "filters": {"text": "y"}})  # not a filterable field
    assert bad.status_code == 422 and "cannot filter passages on 'text'" in bad.json()["detail"]
    assert client.post("/search", json={"question": ""}).status_code == 422
    for key, value in {"LAKE_ROOT": published.lake_root, "EMBEDDING_BACKEND": "onnx-int8"}.items():
        monkeypatch.setenv(key, value)
    assert main(["query", "PepsiCo net revenue 2023", "--json", "-k", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["evidence"][0]["doc_id"] == "PEP_2023_10K"
    # a company of the universe with no indexed filing is named, not answered silently from other filings
    assert main(["query", "What was Tesla's revenue in 2023?", "-k", "2"]) == 0
    err = capsys.readouterr().err
    assert "note: no indexed filing of Tesla, Inc. (TSLA)" in err
    resp = client.post("/search", json={"question": "What was Tesla's revenue in 2023?", "k": 2})
    assert resp.json()["unindexed_companies"] == ["Tesla, Inc. (TSLA)"]


def test_llm_curation_uses_the_endpoint_and_falls_back(published, llm_endpoint):
    url, seen, answers = llm_endpoint
    settings = published.model_copy(update={"llm_url": url, "llm_model": "tiny", "llm_curation": True})
    retriever = Retriever(Resources(settings))
    plain = Retriever(Resources(published)).search("What were Coca-Cola's net operating revenues in 2023?", k=5)
    answers.append((200, "[2, 0]"))
    chosen = retriever.search("What were Coca-Cola's net operating revenues in 2023?", k=5)
    assert "Passages:" in seen[-1][2]["messages"][1]["content"]
    assert [e.chunk_id for e in chosen.evidence] == [plain.evidence[2].chunk_id, plain.evidence[0].chunk_id]
    answers.extend([(500, None)] * 3)  # every attempt fails
    fallback = retriever.search("What were Coca-Cola's net operating revenues in 2023?", k=5)
    assert [e.chunk_id for e in fallback.evidence] == [e.chunk_id for e in plain.evidence]


def test_human_output_names_items_as_readers_do(published, capsys, monkeypatch):
    """No `part1item1`-style key in what a person reads: the CLI's evidence and facts, the API's labels."""
    monkeypatch.setenv("LAKE_ROOT", published.lake_root)
    assert main(["query", "Apple net sales for the quarter ended July 1, 2023", "-k", "5"]) == 0
    out = capsys.readouterr().out
    assert "Part I, Item" in out or "Part II, Item" in out, out
    assert not re.search(r"\bpart\d(item)?|\bItem part", out), out
    assert main(["query", "Apple net sales for the quarter ended July 1, 2023", "--json"]) == 0
    evidence = json.loads(capsys.readouterr().out)["evidence"]
    assert any(e["item"].startswith("part") and e["item_label"].startswith("Part ") for e in evidence), evidence
    assert main(["facts", "--ticker", "AAPL", "--concept", "net sales", "--fiscal-year", "2023", "--form", "10-Q"]) == 0
    out = capsys.readouterr().out
    assert "Part I, Item 1 (Financial Statements)" in out and not re.search(r"\bpart\d", out), out


def test_needs_of_a_two_year_question():
    from query.analysis import Entity, QueryAnalysis

    a = QueryAnalysis("q", [Entity("ko", "KO")], [2022, 2023])
    assert [n.label for n in needs_of(a)] == ["KO fiscal 2022", "KO fiscal 2023"]


# --- iXBRL facts ------------------------------------------------------------------------------------------

def test_secplat_facts_prints_the_figure_and_its_page(published, capsys, monkeypatch):
    monkeypatch.setenv("LAKE_ROOT", published.lake_root)
    assert main(["facts", "--ticker", "KO", "--concept", "gross profit", "--fiscal-year", "2023"]) == 0
    first = capsys.readouterr().out.splitlines()[:2]
    assert first[0].startswith("us-gaap:GrossProfit  FY2023") and "27,234" in first[0], first
    assert "KO_2023_10K  page 62  Item 8" in first[1], first
    assert main(["facts", "--ticker", "ko", "--concept", "us-gaap:NoSuchConcept"]) == 0
    assert capsys.readouterr().out.strip() == "no facts found"


@pytest.mark.parametrize("words, concept", [
    ("capex", "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"),  # a reviewed synonym
    ("net operating revenues", "us-gaap:Revenues"),
    ("purchases of property plant and equipment", "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"),  # row label
])
def test_words_reach_concepts(retriever, words, concept):
    from query import FactsRequest

    found = retriever.facts(FactsRequest(concept=words, ticker="KO", fiscal_year=2023, fiscal_period="FY"))
    assert found and found[0].concept == concept and found[0].doc_id == "KO_2023_10K", found[:2]
    assert found[0].value is not None and found[0].page > 0 and not found[0].dimensions


def test_metric_questions_put_the_page_printing_the_fact_first(retriever):
    result = retriever.search("What was Coca-Cola's gross profit in fiscal 2023?", k=5)
    top = result.evidence[0]
    assert (top.doc_id, top.page) == ("KO_2023_10K", 62)
    assert "us-gaap:GrossProfit FY2023 = 27,234" in top.reason
    assert "facts" in result.timings
    narrative = retriever.search("What risks does Coca-Cola describe about climate change?", k=5)
    assert not any(e.reason.startswith("reports ") for e in narrative.evidence)


def test_a_pinned_note_runs_on_for_one_company_not_when_several_are_named(retriever):
    """Coca-Cola's income-tax note opens low on its page: alone, its next page is pinned too; beside
    PepsiCo, each company's note heading page is pinned and no page's continuation takes a place."""
    def notes(question: str) -> list[tuple[str, int, str]]:
        found = retriever.search(question, k=5).evidence[:5]
        return [(e.doc_id, e.page, e.reason) for e in found if e.basis == "note"]

    alone = notes("What did Coca-Cola say about its income taxes in 2023?")
    assert [p for d, p, r in alone if r.endswith("continued")] == [alone[0][1] + 1], alone
    both = notes("What did Coca-Cola and PepsiCo say about income taxes in 2023?")
    assert {d for d, _, _ in both} == {"KO_2023_10K", "PEP_2023_10K"}, both
    assert not any(r.endswith("continued") for _, _, r in both), both


def test_where_the_headquarters_are_pins_the_cover_that_prints_no_word_of_the_question(retriever):
    """Coca-Cola's cover prints its address under "principal executive offices", none of the question's words
    but the company's name: the cover is pinned by that name, beside the properties item."""
    found = retriever.search("Where are Coca-Cola's headquarters located?", k=5).evidence[:5]
    assert ("KO_2023_10K", 0, "cover") in [(e.doc_id, e.page, e.basis) for e in found], found


@pytest.mark.parametrize("question, doc, page", [
    ("What credit terms does PepsiCo typically give its customers?", "PEP_2023_10K", 56),
    ("How much does Coca-Cola expect to contribute to its pension plans in 2024?", "KO_2023_10K", 57),
])
def test_the_pages_of_a_chosen_report_are_searched_without_its_companys_name(retriever, question, doc, page):
    """Inside the chosen report the company's name only pulls the pages that print it near (the exhibit list,
    the signatures, MD&A's opening): its pages are searched by the question's vector averaged with that of
    its words without the name (``query.question.page_vector``), which finds the page answering."""
    found = retriever.search(question, k=5).evidence[:5]
    assert (doc, page) in [(e.doc_id, e.page) for e in found], found


def test_where_a_company_operates_pins_the_regions_item_1_names(retriever):
    """PepsiCo's Item 1 lists its divisions, each a region ("Latin America", "Europe", "Africa, Middle East and
    South Asia", ...): asked where it operates, that page is pinned first, then the table listing the most
    regions; a figure of its operations somewhere is that figure's question, which runs neither pin."""
    found = retriever.search("What are the geographies that PepsiCo primarily operates in as of FY2023?",
                             k=5).evidence[:5]
    first = found[0]
    assert (first.doc_id, first.page, first.basis) == ("PEP_2023_10K", 2, "section"), found
    assert "regions it operates in" in (first.reason or "") and found[1].basis == "row", found
    figure = retriever.search("What were PepsiCo's revenues from its Canadian operations in 2023?", k=5).evidence
    assert not any("regions it operates in" in (e.reason or "") for e in figure), figure


def test_a_split_by_product_pins_the_products_adding_up_to_the_total(retriever):
    """Apple's 10-Q prints the quarter's net sales twice as parts of one total: by geographic segment (MD&A's
    page 16) and by product category (MD&A's page 17, the note's page 8). Asked by product category, the
    products' tables are pinned (rows adding up to "Total net sales"), not the segments'; asked by segment,
    the segments' table is."""
    def summed(question: str) -> list[tuple[str, int]]:
        found = retriever.search(question, k=5).evidence[:5]
        return [(e.doc_id, e.page) for e in found if "add up to" in (e.reason or "")]

    products = summed("What were Apple's net sales by product category in the quarter ended July 1, 2023?")
    assert ("AAPL_2023Q3_10Q", 17) in products and ("AAPL_2023Q3_10Q", 16) not in products, products
    segments = summed("What were Apple's net sales by reportable segment in the quarter ended July 1, 2023?")
    assert ("AAPL_2023Q3_10Q", 16) in segments, segments


def test_a_share_asked_pins_the_row_that_prints_it(retriever):
    """Apple's income statement prints gross margin in dollars; MD&A's table prints its percentage: asked
    for the percentage, that page is pinned after the statement's facts, as the margin the facts compute
    printed again (gross margin over net sales of the quarter: ``query.margins``), no longer left to the
    row pin below them."""
    found = retriever.search("What was Apple's total gross margin percentage for the quarter ended July 1, 2023?",
                             k=5).evidence[:5]
    page = [e for e in found if (e.doc_id, e.page) == ("AAPL_2023Q3_10Q", 18)]
    assert page and page[0].basis == "fact" and "margin asked" in (page[0].reason or ""), found
    assert found[0].basis == "fact"


def test_a_margin_is_found_whatever_the_search_found_of_its_terms(retriever):
    """A margin's page comes first where the question's search found its measure without the revenue it is a
    percent of: the document's consolidated revenue is read too (``query.margins.margin_concepts``), so
    Coca-Cola's gross profit and PepsiCo's operating profit give the margins their MD&A pages print, which
    came below the statements' fact pages before. (A gross margin untagged, a "% of sales" row and a whole
    percent are read by the unit tests of ``query.margins`` and ``query.statements.percent_page``.)"""
    asked = {"What was Coca-Cola's gross profit margin in 2023?": ("KO_2023_10K", 47),
             "What was PepsiCo's operating profit margin in 2023?": ("PEP_2023_10K", 40)}
    for question, page in asked.items():
        first = retriever.search(question, k=5).evidence[0]
        assert (first.doc_id, first.page) == page and "margin asked" in (first.reason or ""), (question, first)


def test_facts_over_http_and_the_time_series(published):
    from fastapi.testclient import TestClient

    from kernel.storage import open_lake, read_parquet
    from shell.http import create_app

    client = TestClient(create_app(Retriever(Resources(published))))
    resp = client.post("/facts", json={"concept": "gross profit", "ticker": "KO", "fiscal_year": 2023})
    assert resp.status_code == 200 and resp.json()[0]["page"] == 62 and resp.json()[0]["value"] == 27_234e6
    assert client.post("/facts", json={"concept": ""}).status_code == 422
    series = read_parquet(open_lake(published.lake_root), "index/fact_series.parquet").to_pylist()
    ko = {(r["concept"], r["fiscal_year"], r["fiscal_period"]): r for r in series if r["ticker"] == "KO"}
    revenue = ko[("us-gaap:Revenues", 2023, "FY")]
    assert (revenue["value"], revenue["doc_id"], revenue["derived"]) == (45_754e6, "KO_2023_10K", False)
    assert ko[("us-gaap:Revenues", 2021, "FY")]["value"] > 0  # the 10-K's comparative years are in the series


@pytest.fixture(scope="module")
def ibm(converted_mirror, mirror_manifest, universe_csv, tmp_path_factory):
    """EDGAR as it is: IBM's 2023 10-K (Items 3, 7, 7A and 8 incorporated from its Annual Report to
    Stockholders, Exhibit 13, which the mirror does not hold) and 2023 second-quarter 10-Q, and Intel's 2023
    10-K (organized by its own plan: Items located through its cross-reference index), published; with
    Honeywell's and GE's 2023 10-Qs (companies as people name them)."""
    from tests.conftest import publish_filings

    return publish_filings(converted_mirror, mirror_manifest, universe_csv, tmp_path_factory.mktemp("ibm") / "lake",
                           [("IBM", "10-K", "2023"), ("IBM", "10-Q", "2023"), ("INTC", "10-K", "2023"),
                            ("HON", "10-Q", "2023"), ("GE", "10-Q", "2023")])


def _cli_json(settings, question: str, capsys, monkeypatch):
    """``secplat query QUESTION --json`` on the lake of ``settings``: its captured output."""
    monkeypatch.setenv("LAKE_ROOT", str(settings.lake_root))
    monkeypatch.setenv("UNIVERSE_CSV", str(settings.universe_csv))
    monkeypatch.setenv("EMBEDDING_BACKEND", "onnx-int8")
    assert main(["query", question, "--json"]) == 0
    return capsys.readouterr()


def test_an_item_over_several_page_ranges_is_searched_over_all_of_them(ibm):
    """Intel's index: "Item 7 ... Liquidity and capital resources: Pages 5-6, 42-44, 45-47" (printed pages;
    the PDF's 0-based pages are one more: the cover is unnumbered). With the release's page ranker (asked for
    every kind here; the train stage follows publish) the MD&A's liquidity pages are among the first five, labelled
    Item 7: the question names MD&A's section, whose opening page (its heading low on printed page 42) and
    the page after it are pinned beside the balance sheet."""
    from shell.runner import run_stage

    assert run_stage("train", Resources(ibm)).outcome == "trained"
    retriever = Retriever(Resources(ibm))
    result = retriever.search("What did Intel report about its liquidity and capital resources in 2023?", k=5,
                              options=dataclasses.replace(retriever.options, ranker="learned-all"))
    assert result.page_order == "learned"
    intel = [e for e in result.evidence if e.doc_id == "INTC_2023_10K"]
    assert any(43 <= e.page <= 45 and e.item == "7" for e in intel), [(e.page, e.item) for e in intel]
    assert any(e.basis == "section" for e in intel)


def test_an_annual_report_incorporated_by_reference_is_recorded_and_the_missing_year_said(ibm, capsys, monkeypatch):
    retriever = Retriever(Resources(ibm))
    ten_k = retriever.catalog.docs["IBM_2023_10K"]
    assert ten_k.absent_items == ["3", "7", "7A", "8"]
    result = retriever.search("What was IBM's total revenue in 2023?", k=5)
    assert result.missing_periods == ["no FY2023 figures of IBM in the index; closest: H1 2023 (IBM_2023Q2_10Q)"]
    out = _cli_json(ibm, "What was IBM's total revenue in 2023?", capsys, monkeypatch)
    assert "note: no FY2023 figures of IBM in the index; closest: H1 2023 (IBM_2023Q2_10Q)" in out.err
    assert json.loads(out.out)["missing_periods"] == result.missing_periods


def test_a_company_named_as_people_name_it_answers_from_its_filings_only(ibm, capsys, monkeypatch):
    """"Honeywell" is two listed companies (Honeywell Technologies, HON; Honeywell Aerospace, HONA, with no
    indexed filing): the answer is HON's filings only and says the name fits both, not that the evidence is
    another company's. Named with "General
    Electric" (GE Aerospace's EDGAR name), each company's evidence and no other's."""
    retriever = Retriever(Resources(ibm))
    result = retriever.search("Which segments does Honeywell report?", k=5)
    assert result.evidence and {e.doc_id.split("_")[0] for e in result.evidence} == {"HON"}
    assert result.ambiguous_names == ["Honeywell: Honeywell Technologies (HON), Honeywell Aerospace (HONA, no "
                                      "indexed filing)"]
    assert result.unindexed == []  # no "evidence from other companies": the name is HON's too, which answers
    both = retriever.search("Compare the segments Honeywell and General Electric report", k=8)
    assert {e.doc_id.split("_")[0] for e in both.evidence} == {"HON", "GE"}
    out = _cli_json(ibm, "Which segments does Honeywell report?", capsys, monkeypatch)
    assert "note: Honeywell: Honeywell Technologies (HON), Honeywell Aerospace (HONA, no indexed filing)" in out.err
    assert json.loads(out.out)["ambiguous_names"] == result.ambiguous_names


def test_a_business_spun_off_under_its_parents_name_answers_from_the_parents_filings(ibm, capsys, monkeypatch):
    """"Honeywell Aerospace" is a listed company with no indexed filing, and in 2023 Honeywell's Aerospace
    segment: the evidence is HON's 10-Q, and the answer says whose filings it took and why."""
    question = "What was Honeywell Aerospace's segment profit in the second quarter of 2023?"
    result = Retriever(Resources(ibm)).search(question, k=5)
    assert result.evidence and {e.doc_id for e in result.evidence} == {"HON_2023Q2_10Q"}
    note = ("Honeywell Aerospace: no indexed filing; the evidence is from the filings of Honeywell Technologies, "
            "whose name it opens with")
    assert result.inferred_companies == [note]
    assert f"note: {note}" in _cli_json(ibm, question, capsys, monkeypatch).err


def test_a_product_named_without_its_company_answers_from_the_company_whose_filings_print_it(ibm, capsys,
                                                                                              monkeypatch):
    """"Xeon" names no company, yet only Intel's filings print it: the evidence is Intel's, and the answer
    says whose it took and why."""
    result = Retriever(Resources(ibm)).search("How did Xeon processors sell in 2023?", k=5)
    assert result.evidence and {e.doc_id.split("_")[0] for e in result.evidence} == {"INTC"}
    assert result.inferred_companies == ["Xeon: no company named; the evidence is Intel's, whose filings print it"]
    out = _cli_json(ibm, "How did Xeon processors sell in 2023?", capsys, monkeypatch)
    assert "note: Xeon: no company named; the evidence is Intel's, whose filings print it" in out.err
    assert json.loads(out.out)["inferred_companies"] == result.inferred_companies


def test_shares_in_percent_adding_up_to_a_hundred_are_pinned(retriever):
    """Coca-Cola's MD&A prints each operating segment's share of net operating revenues in percent only,
    adding up to "Total | 100.0%" (page 47): asked for each segment's share, that table is pinned as one of
    shares, beside the segment note's amounts."""
    found = retriever.search("What share of Coca-Cola's 2023 net operating revenues came from each operating "
                             "segment?", k=5).evidence[:5]
    pinned = [e for e in found if (e.doc_id, e.page) == ("KO_2023_10K", 47)]
    assert pinned and "shares add up to" in (pinned[0].reason or ""), found


def test_what_drove_a_change_is_read_in_mdna_before_the_note_the_question_names(retriever):
    """Asked why Coca-Cola's effective tax rate changed, MD&A's income taxes discussion (page 51) comes first
    and the income taxes note (page 109), which the question's words also name, after it."""
    found = retriever.search("Why did Coca-Cola's effective tax rate change in 2023?", k=5).evidence[:5]
    pages = [(e.doc_id, e.page) for e in found]
    assert pages[0] == ("KO_2023_10K", 51) and ("KO_2023_10K", 109) in pages[1:], found


def test_a_regions_table_captioned_in_the_text_before_it_is_the_measures(retriever):
    """Coca-Cola's percent changes of net operating revenues by operating segment print under a caption in the
    text passage before the table's (the table's own lines name no measure); the unit case table the page
    before lists regions beside "Concentrate Sales". Asked which region's revenue grew most, the captioned
    table's page is pinned, the regions' figures side by side."""
    found = retriever.search("Which of Coca-Cola's operating regions posted the strongest net operating revenue "
                             "growth in 2023?", k=5).evidence[:5]
    rows = [(e.doc_id, e.page) for e in found if "regions' figures side by side" in (e.reason or "")]
    assert rows == [("KO_2023_10K", 46)], found


def test_each_company_named_gets_the_page_printing_its_figure_again(retriever):
    """Two companies' figure asked: beside each company's fact page, the page printing its figure again (MD&A's
    table or sentence); a tax rate asked: the page printing each one's rate (``query.fact_pins``)."""
    for question, what in (("Compare Coca-Cola's and PepsiCo's net revenues in fiscal 2023", "amount"),
                           ("What were the effective tax rates of Coca-Cola and PepsiCo in 2023?", "tax rate asked")):
        top = retriever.search(question, k=5).evidence[:5]
        again = [e for e in top if e.reason.startswith("prints the figure asked again") and what in e.reason]
        assert {e.doc_id for e in again} == {"KO_2023_10K", "PEP_2023_10K"}, [(e.doc_id, e.page, e.reason) for e in top]
