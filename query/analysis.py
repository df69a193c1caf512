"""Query analysis: which companies, fiscal years, quarters and forms a question is about.

Companies are found by the company index (``domain.companies``: names from the universe, EDGAR and the
published documents, distinctive words, tickers and abbreviations, common words guarded), the catalog's
(``query.catalog``); periods by ``domain.periods``. Nothing here is a hard requirement: an unrecognized
entity leaves the search unfiltered rather than empty.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from domain.companies import Entity, EntityIndex
from domain.periods import Period, forecast_year, month_named, named_day, period_ended, periods, vantage_year
from domain.rules import ANNUAL, ANNUAL_PERIOD, CURRENT, PERIOD_MONTHS, QUARTERLY, asked_period, ended_periods

__all__ = ["Entity", "EntityIndex", "QueryAnalysis", "analyze"]


@dataclass
class QueryAnalysis:
    question: str
    entities: list[Entity] = field(default_factory=list)
    years: list[int] = field(default_factory=list)  # fiscal years mentioned, in order
    quarters: list[int] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    day: dt.date | None = None  # the day it names ("as of June 30, 2023"): a quarter's end may be meant
    ended: tuple[int, dt.date] | None = None  # a span named by its end: (months, day), "three months ended ..."
    names: list[str] = field(default_factory=list)  # the companies' own names as written: who, not what
    stand: int | None = None  # the year it stands in ("as of FY2021"): a later year named is that report's forecast
    written: list[str] = field(default_factory=list)  # every company name as written (own, brand, former)
    inferred: list[str] = field(default_factory=list)  # a company read off its product's name, as a note says it
    forecast: int | None = None  # the year it asks a forecast of ("expect to pay in 2024"): the year before's report
    spans: list[str] = field(default_factory=list)  # the facts' periods its quarters ask: "Q2", six months "H1"
    month_only: bool = False  # ``day`` is a month's last day, the month named with no day ("in March 2023")

    @property
    def dated(self) -> bool:
        return self.day is not None

    @property
    def months(self) -> frozenset[int]:
        """The spans, in months, the question asks figures for: its quarters' three months or the six or nine
        to date (``spans``), or a year named with no quarter and no shorter span (twelve); none when it
        names no period, whose figures any span may give."""
        if self.spans:
            return frozenset(PERIOD_MONTHS[s] for s in self.spans)
        year = PERIOD_MONTHS[ANNUAL_PERIOD]
        yearly = self.years and not self.quarters and (self.ended is None or self.ended[0] == year)
        return frozenset({year}) if yearly else frozenset()

    @property
    def comparative(self) -> bool:
        return len(self.entities) > 1 or len(self.years) > 1

    def as_dict(self) -> dict:
        return {"companies": [e.name for e in self.entities], "years": self.years, "quarters": self.quarters,
                "forms": self.forms}


# A form named, one or several ("their 10-Ks", "the quarterly reports"); FORM_NAMED: any of them as written,
# "Form 10-K" with its word (what the lexical query leaves out, query.plan.lexical_query).
_FORMS = [(re.compile(r"\b10-?K'?s?\b|\bannual reports?\b", re.I), ANNUAL),
          (re.compile(r"\b10-?Q'?s?\b|\bquarterly reports?\b", re.I), QUARTERLY),
          (re.compile(r"\b8-?K'?s?\b|\bcurrent reports?\b", re.I), CURRENT)]
FORM_NAMED = re.compile(r"(?:\bform\s+)?(?:" + "|".join(p.pattern for p, _ in _FORMS) + ")", re.I)


def analyze(question: str, entities: EntityIndex | None = None) -> QueryAnalysis:
    mentioned = periods(question)
    years = [p.year for p in mentioned if p.year]
    quarters = [p.quarter for p in mentioned if p.quarter]
    forms = [form for pattern, form in _FORMS if pattern.search(question)]
    ended = period_ended(question)
    written = entities.written(question) if entities else []
    return QueryAnalysis(question, entities.find(question) if entities else [], list(dict.fromkeys(years)),
                         list(dict.fromkeys(quarters)), forms, named_day(question), ended,
                         entities.own_names(question) if entities else [], vantage_year(question, mentioned),
                         written, forecast=forecast_year(question, mentioned, written), spans=_spans(mentioned, ended),
                         month_only=month_named(question))


def _spans(mentioned: list[Period], ended: tuple[int, dt.date] | None) -> list[str]:
    """The facts' periods a question asks (``domain.rules`` labels): its quarters' ("the second quarter",
    "the first six months") and a span's it names by its last day ("the three months ended June 30")."""
    asked = [s for p in mentioned if p.quarter and (s := asked_period(p.quarter, p.half))]
    return list(dict.fromkeys(asked + list(ended_periods(ended[0]) if ended else ())))
