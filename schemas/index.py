"""Index-ready datasets written by the Spark jobs (indexing/) and published by the backends.

Vectors are ``list<float32>``; ``{"dims": 384}`` is the default model's width, the actual width is the
configured model's and is recorded next to the model name.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pydantic import BaseModel, Field

from schemas.facts import ConceptRecord, FactIndexRecord


class DocumentMeta(BaseModel):
    """The document metadata every index record carries, so each index filters by company, form and period."""

    doc_id: str
    doc_name: str | None = Field(None, description="LOFin-style name (an alias of doc_id)")
    source_name: str | None = None
    company: str | None = Field(None, json_schema_extra={"es": "text"})
    ticker: str | None = None
    form: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    period_end: dt.date | None = None
    exhibit_type: str | None = Field(None, description="EX-99.1, ...: the document is that exhibit of its 8-K")
    sp500_member: bool | None = Field(None, description="Its company was an S&P 500 member on the document's "
                                      "period end (else its filing date); None: no membership known")


class PassageRecord(DocumentMeta):
    """A chunk with its document's metadata and its embedding: what passage search returns."""

    chunk_id: str
    item: str
    item_title: str = Field(json_schema_extra={"es": "text"})
    kind: str
    seq: int
    text: str = Field(json_schema_extra={"es": "text"})
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    token_count: int
    vector: list[float] = Field(json_schema_extra={"dims": 384})
    model: str = Field(description="Embedding model name or path the vector came from")


class DocumentIndexRecord(DocumentMeta):
    """A document for document-level retrieval: cover metadata, cover summary and its embedding."""

    accession: str | None = None
    cik: int | None = None
    filing_date: dt.date | None = None
    is_amendment: bool = False
    amends: str | None = Field(None, description="doc_id of the filing this amendment amends")
    page_count: int
    filing_items: list[str] = Field(default_factory=list, description="The 8-K's Items (its cover and exhibits)")
    absent_items: list[str] = Field(default_factory=list, description="Items incorporated by reference from a "
                                    "document the corpus does not hold")
    cover_summary: str = Field(json_schema_extra={"es": "text"})
    vector: list[float] = Field(json_schema_extra={"dims": 384})
    model: str


class LexiconRecord(BaseModel):
    """A lexicon term with its corpus statistics (FinGEAR's FLAM)."""

    term: str = Field(json_schema_extra={"es": "text"})
    category: str = Field(description="curated category, or xbrl for terms mined from iXBRL concept names")
    source: str = Field(description="curated | xbrl")
    cluster: int = Field(description="Cluster of terms with similar embeddings")
    total_count: int
    doc_count: int
    item_weights: dict[str, float] = Field(
        description="'<form>:<item>' -> w_i = freq_i / sum_j freq_j over the form's items (freq per 10k tokens)")


class TreeNodeRecord(DocumentMeta):
    """A node of an Item's summary or question tree (FinGEAR); both trees share topology and leaves."""

    node_id: str = Field(description="<doc_id>:<item>:<root|cN>:<tree>")
    tree: str = Field(description="summary | question")
    item: str
    item_title: str
    level: int = Field(description="0 for the Item's root, 1 for a cluster")
    parent_id: str | None = None
    children: list[str] = Field(description="Child node ids (root) or chunk ids (cluster)")
    chunk_ids: list[str] = Field(description="Every chunk (leaf) under the node")
    text: str = Field(json_schema_extra={"es": "text"})
    vector: list[float] = Field(json_schema_extra={"dims": 384})
    model: str


@dataclass(frozen=True)
class IndexSpec:
    """A published index: its record schema, id and BM25 fields (its lake data: ``kernel.layout.INDEX_DATASETS``)."""

    name: str
    model: type[BaseModel]
    id_field: str
    text_fields: tuple[str, ...]
    doc_field: str | None = "doc_id"  # rows grouped per document (incremental publish); None: whole-corpus
    # BM25 scores of the text fields are summed, each times its boost (1 unless named): a passage's company
    # counts beside its text, as the company prefix does for its vector.
    boosts: tuple[tuple[str, float], ...] = ()

    def boost(self, field: str) -> float:
        return dict(self.boosts).get(field, 1.0)

    @property
    def has_vector(self) -> bool:
        return "vector" in self.model.model_fields


INDEXES: dict[str, IndexSpec] = {spec.name: spec for spec in (
    IndexSpec("documents", DocumentIndexRecord, "doc_id", ("cover_summary", "company")),
    IndexSpec("passages", PassageRecord, "chunk_id", ("text", "item_title", "company"), boosts=(("company", 3.0),)),
    IndexSpec("tree_nodes", TreeNodeRecord, "node_id", ("text",)),
    IndexSpec("lexicon", LexiconRecord, "term", ("term",), doc_field=None),
    IndexSpec("facts", FactIndexRecord, "fact_id", ("label", "company")),
    IndexSpec("concepts", ConceptRecord, "concept", ("label",), doc_field=None),
)}


class RankerPairRecord(BaseModel):
    """A training question the corpus made about itself (no person, no LLM): a row label printed on a
    figures page, or a statement's or a note's heading, asked about its company and period; the page that
    prints it is the answer (``indexing/ranker_pairs.py``)."""

    pair_id: str = Field(description="<doc_id>:<page>:<source>:<sha of the label>: stable across reruns")
    doc_id: str
    page: int = Field(description="0-based page that answers the question")
    source: str = Field(description="row | statement | note")
    label: str = Field(description="The row label or heading the question asks about")
    question: str
