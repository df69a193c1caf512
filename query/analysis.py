"""Query analysis: which companies, fiscal years, quarters and forms a question is about.

Companies are matched against a catalog of names built from the published documents' cover metadata,
the S&P 500 universe and a short list of common names ("Google" is Alphabet, "AmEx" American Express).
Names are compared squashed (lower case, letters and digits only, corporate suffixes dropped), so "Best
Buy's", "BESTBUY" and "Best Buy Co., Inc." meet. Tickers count only when written in capitals. Nothing
here is a hard requirement: an unrecognized entity leaves the search unfiltered rather than empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_SUFFIXES = {"the", "inc", "incorporated", "corp", "corporation", "company", "co", "plc", "ltd", "limited",
             "holdings", "holding", "group", "sa", "nv", "ag", "lp", "llc", "class", "common", "stock"}
_WORD = re.compile(r"[A-Za-z0-9&]+(?:['’][sS])?")
# Common names a question may use instead of the registrant's name (squashed -> a name in the catalog).
COMMON_NAMES = {
    "google": "alphabet", "facebook": "meta platforms", "meta": "meta platforms", "amex": "american express",
    "jnj": "johnson johnson", "j&j": "johnson johnson", "jpm": "jpmorgan chase", "jpmorgan": "jpmorgan chase",
    "coke": "coca cola", "cocacola": "coca cola", "pepsi": "pepsico", "walmart": "walmart", "mgm": "mgm resorts",
    "3m": "3m", "bofa": "bank of america", "ge": "general electric", "p&g": "procter gamble",
    "att": "at&t", "verizon": "verizon", "ulta": "ulta beauty", "cvs": "cvs health", "kraft": "kraft heinz",
}
# Capitalized words that look like tickers but are English (or finance) words in questions.
_NOT_TICKERS = {"A", "I", "AN", "AS", "AT", "BE", "BY", "DO", "FY", "IT", "ON", "OR", "SO", "TO", "US", "USD", "EPS",
                "Q", "CEO", "CFO", "GAAP", "EBIT", "EBITDA", "ROA", "ROE", "COGS", "SG", "PPNE", "PP", "YOY",
                "ALL", "ARE", "FOR", "HAS", "NOW", "NEW", "ONE", "KEY", "LOW", "WELL", "MAIN", "CASH", "NET"}
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def squash(text: str) -> str:
    """Lower case, possessives and corporate suffixes dropped, letters, digits and & only, no spaces."""
    words = [w.lower().removesuffix("'s").removesuffix("’s") for w in _WORD.findall(text or "")]
    words = [w for w in words if w not in ("&", "and")] or words  # "Johnson & Johnson" = "Johnson and Johnson"
    kept = [w for w in words if w not in _SUFFIXES] or words
    return "".join(kept)


@dataclass(frozen=True)
class Entity:
    key: str  # squashed canonical name
    name: str  # display name
    tickers: frozenset[str] = frozenset()


@dataclass
class EntityIndex:
    """Squashed names and tickers -> entity keys."""

    names: dict[str, str] = field(default_factory=dict)
    tickers: dict[str, str] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)

    def add(self, name: str, ticker: str | None = None, extra_names: Iterable[str] = ()) -> str | None:
        # The first variant already known names the entity: a cover's "Adobe Systems Incorporated" joins the
        # universe's "Adobe Inc." through the document's source name "ADOBE".
        known = next((self.names[squash(v)] for v in (name, *extra_names) if squash(v) in self.names), None)
        key = known or (self.tickers.get(ticker) if ticker else None) or squash(name)
        if not key:
            return None
        old = self.entities.get(key)
        tickers = set(old.tickers if old else ()) | ({ticker} if ticker else set())
        self.entities[key] = Entity(key, old.name if old else name, frozenset(tickers))
        for variant in (name, *extra_names):
            squashed = squash(variant)
            if squashed:
                self.names.setdefault(squashed, key)
            first = variant.split()[0] if variant.split() else ""
            if len(squash(first)) >= 5:  # "Verizon Communications" is also "Verizon"
                self.names.setdefault(squash(first), key)
        if ticker:
            self.tickers.setdefault(ticker, key)
        return key

    def finish(self) -> None:
        """Resolve the common names against what the catalog holds."""
        for alias, target in COMMON_NAMES.items():
            key = self.names.get(squash(target))
            if key:
                self.names.setdefault(squash(alias), key)

    def find(self, question: str) -> list[Entity]:
        """Entities mentioned in a question, in order of first mention."""
        found: dict[str, int] = {}
        tokens = [(m.group(0), m.start()) for m in _WORD.finditer(question)]
        for i in range(len(tokens)):
            for n in (4, 3, 2, 1):
                if i + n > len(tokens):
                    continue
                key = self.names.get(squash(" ".join(t for t, _ in tokens[i:i + n])))
                if key and key not in found:
                    found[key] = tokens[i][1]
                    break
            word = tokens[i][0].removesuffix("'s").removesuffix("’s")
            if word.isupper() and len(word) >= 2 and word not in _NOT_TICKERS and word in self.tickers:
                found.setdefault(self.tickers[word], tokens[i][1])
        return [self.entities[k] for k, _ in sorted(found.items(), key=lambda kv: kv[1])]


@dataclass
class QueryAnalysis:
    question: str
    entities: list[Entity] = field(default_factory=list)
    years: list[int] = field(default_factory=list)  # fiscal years mentioned, in order
    quarters: list[int] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)

    @property
    def comparative(self) -> bool:
        return len(self.entities) > 1 or len(self.years) > 1

    def as_dict(self) -> dict:
        return {"companies": [e.name for e in self.entities], "years": self.years, "quarters": self.quarters,
                "forms": self.forms}


_YEAR = re.compile(r"\b(?:FY|fiscal(?: year)?)?\s?'?((?:19|20)\d{2})\b", re.I)
_SHORT_FY = re.compile(r"\bFY\s?'?(\d{2})\b", re.I)
_QUARTER = re.compile(r"\bQ([1-4])(?:\b|(?=\s?'?(?:FY)?\s?(?:19|20)\d{2}\b))|\b(first|second|third|fourth) quarter\b",
                      re.I)
_QUARTER_YEAR = re.compile(r"\bQ[1-4]\s?'?(?:FY)?\s?((?:19|20)\d{2})\b", re.I)  # "Q22023", "Q2 FY2023"
_FORMS = [(re.compile(r"\b10-?K\b|\bannual report\b", re.I), "10-K"),
          (re.compile(r"\b10-?Q\b|\bquarterly report\b", re.I), "10-Q"),
          (re.compile(r"\b8-?K\b|\bcurrent report\b", re.I), "8-K")]


def analyze(question: str, entities: EntityIndex | None = None) -> QueryAnalysis:
    years: list[int] = []
    for m in _YEAR.finditer(question):
        years.append(int(m.group(1)))
    for m in _SHORT_FY.finditer(question):
        years.append(2000 + int(m.group(1)))
    for m in _QUARTER_YEAR.finditer(question):
        years.append(int(m.group(1)))
    quarters = [int(m.group(1)) if m.group(1) else _QUARTER_WORDS[m.group(2).lower()]
                for m in _QUARTER.finditer(question)]
    forms = [form for pattern, form in _FORMS if pattern.search(question)]
    return QueryAnalysis(question, entities.find(question) if entities else [], list(dict.fromkeys(years)),
                         list(dict.fromkeys(quarters)), forms)
