"""The query side's public models: what a caller sends and gets back, shared by the Python API
(``query.search``, ``Retriever``), the CLI and the HTTP layer (``shell.http``), so that each is written once.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from domain.text import clean_question

MODES = ("bm25", "dense", "hybrid", "hierarchical")
RANKERS = ("rules", "learned", "learned-all")  # how the hierarchical mode orders its pages (query.page_order)

# Why an evidence item is there. The learned ranker's features, the CLI's label and the JSON read this field,
# never the wording of ``reason`` (an explanation for people, free to change).
Basis = Literal["match", "statement", "continuation", "note", "section", "cover", "fact", "row", "reranker"]
SEARCH_BASES = frozenset({"match", "reranker"})  # found by the search (and reordered), not pinned for what it prints
BASIS_LABELS: dict[str, str] = {
    "match": "search match", "statement": "statement pin", "continuation": "statement pin (continued)",
    "note": "note pin", "section": "section pin", "cover": "cover pin", "fact": "fact pin", "row": "row pin",
    "reranker": "cross-encoder",
}
SECTION_PINS = frozenset({"statement", "continuation", "note", "section", "cover"})  # pinned for the plan's evidence
FIGURE_PINS = frozenset({"fact", "row"})  # pinned for printing the figure asked (an iXBRL fact, a table's row)


@dataclass
class RetrievalOptions:
    mode: str = "hierarchical"
    doc_candidates: int = 100  # k'
    doc_k: int = 5  # k_D
    vote_docs: int = 12  # documents whose passages vote in document ranking (best tier, then document rank)
    passage_window: int = 100
    fusion: str = "rrf"  # rrf | minmax, both weighted by dense_weight (kNN) and 1 - dense_weight (BM25)
    # Chosen on the dev questions by bench.tune_retrieval (README: the grid and its leave-one-company-out
    # estimate); FLAM, the trees and the Item boost changed nothing or hurt there, so they are off by default.
    dense_weight: float = 0.6
    item_boost: float = 1.0  # > 1: passages in an Item the query plan's evidence names weigh more
    page_coverage: float = 0.0  # > 0: a page's other chunks add this share of their scores to its best one
    flam: bool = False  # weight passages by the Items the question's lexicon terms point to
    trees: bool = False  # boost chunks under the best-matching tree nodes
    statements: bool = True  # metric questions: the statements' own pages first (query.statements)
    rows: bool = True  # metric questions: the page printing the metric as a table's row when no statement does
    facts: bool = True  # metric questions over iXBRL filings: the pages printing the named facts first (query.facts)
    curate: bool = True
    max_iterations: int = 3
    max_passages: int = 10
    relevance_floor: float = 0.25  # of the best passage's score
    reranker: str | None = None  # cross-encoder name or path
    # learned: the release's page ranker (query.ranker) for the kinds of question query/page_order.yaml gives it,
    # the rules for the others and where a release has none; learned-all: the model for every kind; rules
    ranker: str = "learned"


class Evidence(BaseModel):
    """One evidence item: a page of a document, represented by its best passage."""

    doc_id: str
    doc_name: str | None = Field(None, description="LOFin-style name (doc_id unless another filing holds it)")
    source_name: str | None
    company: str | None
    ticker: str | None
    form: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    exhibit_type: str | None = Field(None, description="EX-99.1, ...: the page is of that exhibit of an 8-K")
    document: str = Field("", description="What an exhibit is: 'EX-99.1 (earnings release) of 8-K <accession>'")
    item: str = Field(description="The Item's key: 7, 1A, part1item2, 2.02, cover")
    item_title: str
    item_label: str = Field("", description="The Item as a reader names it: 'Part I, Item 2 (MD&A)'")
    page: int = Field(description="0-based page of the document's PDF")
    chunk_id: str
    text: str
    score: float
    reason: str = Field("", description="Why, in words (for people: its wording may change)")
    basis: Basis = Field("match", description="Why, as a value: a search match, or the pin that put it there "
                                              "(statement, continuation, note, cover, fact), or the cross-encoder")
    complementary: bool = Field(False, description="Found by a complementary query for a missing requirement")

    @property
    def label(self) -> str:
        """What the CLI prints before the reason: the basis as a reader names it."""
        return BASIS_LABELS[self.basis] + (", complementary query" if self.complementary else "")

    def as_dict(self) -> dict:
        return self.model_dump()


@dataclass
class SearchResult:
    question: str
    evidence: list[Evidence]
    plan: dict = field(default_factory=dict)  # the query plan (query.plan.QueryPlan.as_dict)
    documents: list[dict] = field(default_factory=list)  # the selected documents with their scores
    iterations: list[dict] = field(default_factory=list)  # what each curation round did
    timings: dict[str, float] = field(default_factory=dict)  # ms per stage and engine call (kernel.timing)
    release: str | None = None  # the release every engine call of this search read
    unindexed: list[str] = field(default_factory=list)  # companies the question names without indexed filings
    page_order: str | None = None  # hierarchical: "learned" (the release's model) or "rules" (none, asked, or the kind's)
    missing_periods: list[str] = field(default_factory=list)  # the asked period absent from a company's evidence
    ambiguous_names: list[str] = field(default_factory=list)  # a name the question uses that fits several companies
    period_taken: list[str] = field(default_factory=list)  # no period named: the filing the answer takes (newest)
    company_pages: list[str] = field(default_factory=list)  # several companies named: each one's best page and rank
    inferred_companies: list[str] = field(default_factory=list)  # a company read off a product or a spin-off's name

    def as_dict(self) -> dict:
        return {"question": self.question, "release": self.release, "unindexed_companies": self.unindexed,
                "ambiguous_names": self.ambiguous_names,
                "missing_periods": self.missing_periods, "period_taken": self.period_taken,
                "inferred_companies": self.inferred_companies, "company_pages": self.company_pages, "page_order": self.page_order,
                "plan": self.plan, "documents": self.documents,
                "iterations": self.iterations, "timings_ms": self.timings,
                "evidence": [e.as_dict() for e in self.evidence]}

    def explain(self) -> dict:
        """Everything but the question and the evidence: how the answer was reached."""
        return {k: v for k, v in self.as_dict().items() if k not in ("evidence", "question")}


class SearchRequest(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    k: int = Field(5, ge=1, le=10)
    filters: dict[str, str | int | dt.date | list[str | int]] | None = Field(
        None, description="Exact-valued fields: ticker, form, fiscal_year, fiscal_period, doc_id, item, ...")
    mode: str = Field("hierarchical", description=f"one of {', '.join(MODES)}")
    explain: bool = False

    @field_validator("question")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if not clean_question(value):
            raise ValueError("the question has no words (only white space or control characters)")
        return value


class SearchResponse(BaseModel):
    question: str
    release: str | None = Field(None, description="the published release the answer was read from")
    page_order: str | None = Field(None, description="what ordered the pages: 'learned' (the release's page "
                                   "ranker) or 'rules' (asked for, or the release has no model yet)")
    unindexed_companies: list[str] = Field(
        default_factory=list, description="companies the question names that have no indexed filing, by a "
        "name no company with indexed filings shares: the evidence cannot be theirs")
    ambiguous_names: list[str] = Field(
        default_factory=list, description="one line per name the question uses that fits several companies, "
        "naming them (those with indexed filings first): 'Honeywell: Honeywell Technologies (HON), Honeywell "
        "Aerospace (HONA, no indexed filing)'")
    missing_periods: list[str] = Field(
        default_factory=list, description="one line per company whose evidence does not report the fiscal "
        "period the question asks for, naming the closest period found: 'no FY2023 figures of IBM in the "
        "index; closest: H1 2023 (IBM_2023Q2_10Q)'")
    period_taken: list[str] = Field(
        default_factory=list, description="a question naming no fiscal period: one line per company naming the "
        "filing the answer takes (its newest periodic report) and the one before it, kept among the candidates")
    inferred_companies: list[str] = Field(
        default_factory=list, description="a company the evidence is from that the question does not name, "
        "and why: a product only its filings print ('Humira: no company named; the evidence is AbbVie's, whose "
        "filings print it'), or the parent a business with no indexed filing was spun off from under its name "
        "('GE Vernova: no indexed filing; the evidence is from the filings of GE Aerospace, whose name it "
        "opens with')")
    evidence: list[Evidence]
    explain: dict | None = None
