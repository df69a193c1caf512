"""Inline XBRL facts: the conversion stage's ``facts`` dataset and the published ``facts`` and ``concepts``
indexes built from it (``indexing.facts_job``)."""

from __future__ import annotations

import dataclasses
import datetime as dt

from pydantic import BaseModel, Field


class FactRecord(BaseModel):
    """One ``ix:nonFraction`` / ``ix:nonNumeric`` fact of a document, where it is printed."""

    doc_id: str
    seq: int = Field(description="Order of the fact in the document (0-based)")
    ix_id: str | None = Field(None, description="The element's id attribute, when it has one")
    concept: str = Field(description="QName, e.g. us-gaap:GrossProfit")
    kind: str = Field(description="numeric (ix:nonFraction) | text (ix:nonNumeric)")
    value: float | None = Field(None, description="Numeric facts: the displayed number with scale and sign "
                                "applied; null when nil or when the display does not parse (see problem)")
    display: str = Field(description="The displayed text (whitespace folded; text facts cut at 2,000 characters)")
    text_chars: int = Field(description="Characters of the whole displayed text (continuations included)")
    unit: str | None = Field(None, description="USD, shares, USD/shares, pure, ...")
    decimals: str | None = None
    scale: int = 0
    negated: bool = Field(False, description="sign='-': the value is the negative of the displayed number")
    format: str | None = Field(None, description="The ixt transformation, e.g. ixt:num-dot-decimal")
    nil: bool = False
    context_id: str
    period_type: str = Field(description="instant | duration | forever")
    period_start: dt.date | None = None
    period_end: dt.date | None = Field(None, description="The instant, or the duration's last day")
    fiscal_year: int | None = Field(None, description="Fiscal year the period ends in (domain.rules.fact_period); "
                                        "index/facts numbers it as the filer does (filer_year_shift)")
    fiscal_period: str | None = Field(None, description="FY, Q1..Q4, H1, 9M, <n>M")
    dimensions: list[str] = Field(default_factory=list, description="'axis=member' (explicit or typed), sorted")
    hidden: bool = Field(False, description="In ix:hidden; page is where it is shown (-sec-ix-hidden) if anywhere")
    page: int = Field(description="0-based EDGAR page the fact starts on")
    end_page: int = Field(description="Last page of the fact (its last continuation)")
    row_label: str | None = Field(None, description="The label cell of its table row")
    column_header: str | None = Field(None, description="The header cells above its column, joined by ' / '")
    problem: str | None = Field(None, description="Why a numeric fact has no value although it is not nil")


def _extracted_fact() -> type:
    """The extractor's working record (``etl.convert.ixbrl``): a plain dataclass of FactRecord's fields but the
    document's id, which extraction does not know; one field list, and no validation per fact during the walk
    (the record is validated once, as a FactRecord, when its document is written)."""
    fields = []
    for name, info in FactRecord.model_fields.items():
        if name == "doc_id":
            continue
        if info.default_factory is not None:
            fields.append((name, info.annotation, dataclasses.field(default_factory=info.default_factory)))
        elif info.is_required():
            fields.append((name, info.annotation))
        else:
            fields.append((name, info.annotation, dataclasses.field(default=info.default)))
    return dataclasses.make_dataclass("ExtractedFact", fields, kw_only=True, namespace={"__module__": __name__})


ExtractedFact = _extracted_fact()


class FactIndexRecord(BaseModel):
    """A fact as published: the fact, its document's company and form, its Item, and its concept's words."""

    fact_id: str = Field(description="<doc_id>#<seq>")
    doc_id: str
    ticker: str | None = None
    company: str | None = Field(None, json_schema_extra={"es": "text"})
    form: str | None = None
    filing_date: dt.date | None = None
    concept: str
    label: str = Field(json_schema_extra={"es": "text"}, description="The concept's words and its row label")
    kind: str
    value: float | None = None
    nil: bool = False
    display: str
    unit: str | None = None
    decimals: str | None = None
    scale: int = 0
    period_type: str
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    fiscal_year: int | None = Field(None, description="As the filer numbers it (dei:DocumentFiscalYearFocus)")
    fiscal_period: str | None = None
    dimensions: list[str] = Field(default_factory=list)
    dimensional: bool = Field(description="Whether the fact has dimensions (false: the consolidated figure)")
    hidden: bool = False
    page: int
    end_page: int
    item: str | None = Field(None, description="The SEC Item of its page (the latest Item starting on or before it)")
    row_label: str | None = None
    column_header: str | None = None


class ConceptRecord(BaseModel):
    """A concept of the corpus and the words that find it: its name split as the lexicon splits it, the row
    labels it is printed under (most frequent first) and the reviewed synonyms (``domain/vocabulary/fact_synonyms.yaml``
    is read at query time, not stored)."""

    concept: str
    label: str = Field(json_schema_extra={"es": "text"})
    words: str = Field(description="The concept's local name split into words")
    row_labels: list[str] = Field(description="Up to 8 most frequent row labels, lower case")
    kind: str
    fact_count: int
    doc_count: int


class FactSeriesRecord(BaseModel):
    """One value of a company's concept per fiscal period, from the latest filing reporting it; Q4 derived as
    FY minus 9M (or minus Q1..Q3) where no filing reports it."""

    ticker: str
    concept: str
    fiscal_year: int
    fiscal_period: str = Field(description="FY | Q1..Q4")
    value: float
    unit: str | None = None
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    derived: bool = Field(description="Computed (Q4 = FY - 9M), not reported")
    doc_id: str | None = Field(None, description="The filing the value comes from (the FY filing when derived)")
    page: int | None = None
