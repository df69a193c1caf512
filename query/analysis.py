"""Query analysis: which companies, fiscal years, quarters and forms a question is about.

Companies are matched against a catalog of names built from data only: the published documents' cover
metadata and source names, and the S&P 500 universe (names and tickers). Names are compared squashed
(lower case, letters and digits only, corporate suffixes dropped), so "Best Buy's", "BESTBUY" and "Best Buy
Co., Inc." meet; a name counts when written capitalized ("regions" is not Regions Financial), and a
name's first word alone only when no other name starts with it ("Verizon", not "General"). A word written
with capitals after its first letter ("JPM", "JnJ", "AmEx") is read as a short name: a ticker (compared in
capitals: "JnJ" is JNJ), or an abbreviation made of the leading letters of each word of a name ("AmEx",
"AMEX": American Express). Nothing here is a hard requirement: an unrecognized
entity leaves the search unfiltered rather than empty. Periods are read by ``domain.periods``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from domain.periods import periods
from domain.rules import ANNUAL, CURRENT, QUARTERLY
from domain.text import first_word, surface_words

_SUFFIXES = {"the", "inc", "incorporated", "corp", "corporation", "company", "co", "plc", "ltd", "limited",
             "holdings", "holding", "group", "sa", "nv", "ag", "lp", "llc", "class", "common", "stock"}
# Capitalized words that look like tickers but are English (or finance) words in questions.
_NOT_TICKERS = {"A", "I", "AN", "AS", "AT", "BE", "BY", "DO", "FY", "IT", "ON", "OR", "SO", "TO", "US", "USD", "EPS",
                "Q", "CEO", "CFO", "GAAP", "EBIT", "EBITDA", "ROA", "ROE", "COGS", "SG", "PPNE", "PP", "YOY",
                "ALL", "ARE", "FOR", "HAS", "NOW", "NEW", "ONE", "KEY", "LOW", "WELL", "MAIN", "CASH", "NET"}


@lru_cache(maxsize=1 << 16)
def squash(text: str) -> str:
    """Lower case, possessives and corporate suffixes dropped, letters, digits and & only, no spaces. Kept
    per name: a catalog squashes the same few names for every filing of a company."""
    words = [w.lower().removesuffix("'s").removesuffix("’s") for w, _ in surface_words(text)]
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
    first_words: dict[str, set[str]] = field(default_factory=dict)  # a name's first word -> the entities it starts
    searchable: set[str] | None = None  # the entities with documents (None: all); others are names only
    name_words: dict[str, list[str]] = field(default_factory=dict)  # entity -> its name's words, for abbreviations

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
            first = first_word(variant)
            if len(squash(first)) >= 5:  # "Verizon Communications" is also "Verizon" (see finish)
                self.first_words.setdefault(squash(first), set()).add(key)
        if ticker:
            self.tickers.setdefault(ticker, key)
        return key

    def finish(self, searchable: Iterable[str] | None = None) -> None:
        """Once all names are in: a name's first word names its entity when no other name starts with it
        ("Verizon"; not "General", which starts General Mills and General Electric); each entity's name
        words are indexed for abbreviations ("AmEx"). ``searchable``: the entities that have documents;
        :meth:`find` reports only those (a spun-off company named in passing is not a second subject)."""
        self.searchable = set(searchable) if searchable is not None else None
        for word, keys in self.first_words.items():
            if len(keys) == 1:
                self.names.setdefault(word, next(iter(keys)))
        self.name_words = {key: [w for w in (x.lower() for x, _ in surface_words(e.name)) if w not in _SUFFIXES]
                           for key, e in self.entities.items()}

    def _short_name(self, word: str) -> str | None:
        """The entity a short name stands for: a ticker, else a unique abbreviation of a name."""
        if word in _NOT_TICKERS:
            return None
        if word.upper() in self.tickers:
            return self.tickers[word.upper()]
        keys = [k for k, ws in self.name_words.items() if len(ws) > 1 and _abbreviates(word.lower(), ws)]
        return keys[0] if len(keys) == 1 else None

    def find(self, question: str) -> list[Entity]:
        """Entities with documents mentioned in a question, in order of first mention."""
        found = self._mentions(question)
        if self.searchable is not None:
            found = {k: at for k, at in found.items() if k in self.searchable}
        return [self.entities[k] for k, _ in sorted(found.items(), key=lambda kv: kv[1])]

    def unindexed(self, question: str) -> list[Entity]:
        """Companies a question names that have no published document (the universe knows them)."""
        if self.searchable is None:
            return []
        found = self._mentions(question)
        return [self.entities[k] for k, _ in sorted(found.items(), key=lambda kv: kv[1]) if k not in self.searchable]

    def _mentions(self, question: str) -> dict[str, int]:
        """entity key -> where the question first names it."""
        found: dict[str, int] = {}
        tokens = surface_words(question)
        covered = 0  # tokens before this index belong to a name already matched ("Lockheed Martin")
        for i in range(len(tokens)):
            for n in (4, 3, 2, 1):
                if i < covered or i + n > len(tokens):
                    continue
                key = self.names.get(squash(" ".join(t for t, _ in tokens[i:i + n])))
                if key and not tokens[i][0][0].islower():  # a name is capitalized
                    found.setdefault(key, tokens[i][1])
                    covered = i + n
                    break
            word = tokens[i][0].removesuffix("'s").removesuffix("’s")
            key = self._short_name(word) if len(word) >= 2 and any(c.isupper() for c in word[1:]) else None
            if key:
                found.setdefault(key, tokens[i][1])
        return found


def _abbreviates(word: str, name_words: list[str]) -> bool:
    """Whether ``word`` is the leading letters (two or more) of each of ``name_words`` in turn."""
    if not name_words:
        return not word
    first, rest = name_words[0], name_words[1:]
    return any(word[:n] == first[:n] and _abbreviates(word[n:], rest)
               for n in range(min(len(word), len(first)), 1, -1))


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


_FORMS = [(re.compile(r"\b10-?K\b|\bannual report\b", re.I), ANNUAL),
          (re.compile(r"\b10-?Q\b|\bquarterly report\b", re.I), QUARTERLY),
          (re.compile(r"\b8-?K\b|\bcurrent report\b", re.I), CURRENT)]


def analyze(question: str, entities: EntityIndex | None = None) -> QueryAnalysis:
    mentioned = periods(question)
    years = [p.year for p in mentioned if p.year]
    quarters = [p.quarter for p in mentioned if p.quarter]
    forms = [form for pattern, form in _FORMS if pattern.search(question)]
    return QueryAnalysis(question, entities.find(question) if entities else [], list(dict.fromkeys(years)),
                         list(dict.fromkeys(quarters)), forms)
