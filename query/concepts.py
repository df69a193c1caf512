"""The analyst concept map (``concepts.yaml``): which evidence a question's concepts need.

The map is reviewed data; this module only reads it and matches its cues. A concept's evidence is a list of
kinds (``statement: balance sheet``, ``note: income taxes``, ``section: liquidity and capital resources``,
``item: 1A``, ``cover``); the statements, notes and MD&A sections (read by ``domain.statements``) give each
one's title pattern and the words that find it. Cues are phrases compared on normalized, stemmed words
(``domain.text``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from domain import statements as sections
from domain import vocabulary
from domain.statements import Section
from domain.text import has_phrase, hyphenated, lexemes, phrase_text, said_as_itself, words


class ConceptMapError(ValueError):
    """The concept map file is malformed; the message names the entry."""


Cue = tuple[str, ...]  # a phrase's normalized words


@dataclass(frozen=True)
class Concept:
    name: str
    cues: tuple[Cue, ...]
    evidence: tuple[str, ...]  # "statement: X" | "note: X" | "section: X" | "item: X" | "cover" | "regions"
    figure: bool
    with_cues: tuple[Cue, ...] = ()  # when given, one of these must be in the question too
    narrative: bool = False  # the question asks for an explanation in prose, whatever figures it names
    instead_of: tuple[str, ...] = ()  # concepts whose cues said only inside this one's do not count
    one_measure: bool = False  # its cues are names of one measure: a row printing any of them prints it
    written: tuple[str, ...] = ()  # the cues as the map writes them (the first: the name filings print most)
    about: tuple[str, ...] = ()  # concepts that, said with this one, name what it is about: they do not count
    listed: bool = False  # long tables list the parts row by row under one header of this measure
    unreported: bool = False  # a statistic MD&A reports and no statement does: its words name no fact
    by_plan: bool = False  # a benefit plan's figure: filers tag it plan by plan, and no consolidated fact states it

    def matches(self, stems: str) -> bool:
        return _said_with(stems, self.cues, self.with_cues)

    def in_own_words(self, stems: str, lexemes: frozenset[str]) -> bool:
        """Whether the text (``stems``; ``lexemes``: its :func:`~domain.text.lexemes`) says a cue of the concept
        as the concept means it: a phrase, or a one-word cue as that word ("receivables", "receivable"; not
        the verb "receive", which the stemmer cuts to the same stem)."""
        return not self.written or any(said_as_itself(written, lexemes) for cue, written
                                       in zip(self.cues, self.written, strict=True) if has_phrase(stems, cue))


@dataclass(frozen=True)
class ConceptMap:
    concepts: tuple[Concept, ...]
    notes: dict[str, Section]
    sections: dict[str, Section]
    doc_types: dict[str, tuple[tuple[tuple[Cue, ...], tuple[Cue, ...]], ...]]  # type -> (cues, with) each
    narrative: tuple[Cue, ...] = ()  # words asking for an explanation in prose

    def matching(self, text: str) -> list[Concept]:
        """The concepts the text says; one said only inside the words of a concept that stands instead of it
        is not ("comparable sales" is a statistic MD&A reports, not the income statement's sales)."""
        stems, said_as = phrase_text(words(text)), lexemes(text)
        said = [c for c in self.concepts if c.matches(stems) and c.in_own_words(stems, said_as)]
        shadowed = {name for c in said for name in c.instead_of
                    if not any(o.name == name and o.matches(_without(stems, c.cues)) for o in said)}
        counted = [c for c in said if c.name not in shadowed]
        about = {name for c in counted for name in c.about}
        return [c for c in counted if c.name not in about]

    def described(self, text: str, matched: list[Concept]) -> list[str]:
        """The concepts the text says only as what another concept it says is about ("revenue" in "is its
        revenue seasonal"): no figure of theirs is asked (``matched``: the text's :meth:`matching`)."""
        about = {name for c in matched for name in c.about}
        stems = phrase_text(words(text))
        return sorted(c.name for c in self.concepts if c.name in about and c.matches(stems))

    def metric(self, text: str, names: list[str]) -> Cue | None:
        """The longest cue of the named figure concepts that the text says: the metric a table's row prints."""
        stems = phrase_text(words(text))
        said = [cue for c in self.concepts if c.name in names and c.figure for cue in c.cues if has_phrase(stems, cue)]
        return max(said, key=len, default=None)

    def row_labels(self, text: str, names: list[str]) -> list[Cue]:
        """The labels a table's row of the metric asked may print: the cue the text says (:meth:`metric`), then,
        for a concept whose cues name one measure (``one_measure``), its other cues of two words or more in the
        map's order, the name filings print most first ("comp sales" asked, "Comparable sales" printed). Other
        concepts' cues name several measures ("margins": gross margin, operating income): not the one asked."""
        said = self.metric(text, names)
        if not said:
            return []
        own = [cue for c in self.concepts if c.name in names and c.one_measure and said in c.cues for cue in c.cues]
        return list(dict.fromkeys([said] + [c for c in own if len(c) > 1]))

    def printed_names(self, text: str, names: list[str]) -> list[str]:
        """For each named one-measure concept the text says by another of its names ("capex", "same-store
        sales"), its first name as the map writes it ("capital expenditure"): the words filings print, for the
        lexical search, which matches words, not meanings."""
        stems = phrase_text(words(text))
        return [c.written[0] for c in self.concepts if c.name in names and c.one_measure and c.written and
                _any_cue(stems, c.cues) and not has_phrase(stems, c.cues[0])]

    def metric_cues(self, text: str, names: list[str]) -> tuple[Cue, ...]:
        """The cues of the named figure concepts of which the text says one: the ways a filing may print the
        metric asked ("net sales" for a question's "revenue"); a one-word cue only if the text says it
        ("sales" alone heads comparable sales' tables too)."""
        stems = phrase_text(words(text))
        return tuple(cue for c in self.concepts if c.name in names and c.figure and _any_cue(stems, c.cues)
                     for cue in c.cues if len(cue) > 1 or has_phrase(stems, cue))

    def figure_cues(self, names: list[str]) -> tuple[Cue, ...]:
        """Every cue of the named figure concepts: the measure asked, however a filing's table may say it."""
        return tuple(cue for c in self.concepts if c.name in names and c.figure for cue in c.cues)

    def unreported_terms(self) -> tuple[str, ...]:
        """The cues, as the map writes them, of the measures no statement reports ("organic net sales",
        "comparable sales", "backlog"): though their words name a line, no fact states them. Not the cues of
        one said with a qualifier elsewhere in the text ("revenue" ... "in constant currency"): alone, they
        name the line."""
        return tuple(w for c in self.concepts if c.unreported and not c.with_cues for w in c.written)

    def unreported(self, text: str) -> bool:
        """Whether the text asks a measure no statement reports, by its name or by the line's with the
        qualifier said after it ("net revenue grew on a currency-neutral basis")."""
        return any(c.unreported for c in self.matching(text))

    def by_plan(self, text: str) -> bool:
        """Whether the text asks a benefit plan's figure (a pension plan's discount rate), which filers tag
        plan by plan (pension or retiree medical, U.S. or foreign) with no consolidated fact."""
        return any(c.by_plan for c in self.matching(text))

    @functools.cached_property
    def measure_cues(self) -> tuple[Cue, ...]:
        """Every figure concept's cues: the words by which a table's header says what it measures (a passage
        naming none is a table's rows without their header, or prose about no figure); read once per map,
        as every part row and sum pin asks."""
        return tuple(dict.fromkeys(cue for c in self.concepts if c.figure for cue in c.cues))

    def lists_parts(self, names: list[str]) -> bool:
        """Whether a named concept's measure is one long tables list part by part (``listed``: a product's
        sales), so a passage of such rows far below the table's header names no measure."""
        return any(c.listed for c in self.concepts if c.name in names)

    def metric_words(self, text: str, names: list[str]) -> frozenset[str]:
        """Every word of the named figure concepts' cues that the text says ("net", "revenue" of "net
        revenues"; "percentage" of "gross margin percentage"): words that say what is measured, none a part."""
        stems = phrase_text(words(text))
        return frozenset(w for c in self.concepts if c.name in names and c.figure for cue in c.cues
                         if has_phrase(stems, cue) for w in cue)

    def vocabulary(self, said: str = "") -> frozenset[str]:
        """Every word by which the map names a measure or asks why ("cash", "long", "term", "drove",
        "affect"): words that say what is measured or asked, none a part of the company. Less the words of a
        hyphenated compound ``said`` in which no cue says them in a row: "company-operated" names a part,
        though "company" and "operated" each name a measure ("growth company", "operating income"), while
        "long-term" stays the measure's ("expected long-term rate of return")."""
        cues = self.measure_cues + self.narrative + tuple(cue for c in self.concepts if c.narrative
                                                           for cue in c.cues)
        runs = [phrase_text(cue) for cue in cues]
        kept = frozenset(w for run in hyphenated(said) if not any(has_phrase(r, run) for r in runs) for w in run)
        return frozenset(w for cue in cues for w in cue) - kept

    def asks_why(self, text: str, matched: list[Concept]) -> bool:
        """Whether the question asks for an explanation in prose: a narrative word, or a concept that is one
        (``matched``: the question's concepts)."""
        return _any_cue(phrase_text(words(text)), self.narrative) or any(c.narrative for c in matched) or \
            CAUSE_ASKED.search(text) is not None

    def doc_types_of(self, text: str) -> list[str]:
        """The document types the text's wording points at: one of a type's cues said (with one of its ``with``
        cues, when the cue has them)."""
        stems = phrase_text(words(text))
        return [t for t, said in self.doc_types.items() if any(_said_with(stems, *pair) for pair in said)]


# "What impacted ..." asks a cause as "what affected" does, though its stems are also "what impact did ... have"
# (an effect's figure, which the narrative cues leave out): the verb's own past form, after "what" (the words
# read here unstemmed)
CAUSE_ASKED = re.compile(r"\bwhat\s+(?:has\s+|have\s+)?impacted\b", re.I)


def _any_cue(stems: str, cues: tuple[Cue, ...]) -> bool:
    return any(has_phrase(stems, c) for c in cues)


def _said_with(stems: str, cues: tuple[Cue, ...], with_cues: tuple[Cue, ...]) -> bool:
    """One of the cues said, and one of the ``with`` cues when there are any: a concept's match and a doc type's."""
    return _any_cue(stems, cues) and (not with_cues or _any_cue(stems, with_cues))


def _without(stems: str, cues: tuple[Cue, ...]) -> str:
    """The phrase text with every occurrence of the cues cut out (a cut word joins no phrase across it)."""
    for cue in sorted(cues, key=len, reverse=True):
        while has_phrase(stems, cue):
            stems = stems.replace(phrase_text(cue), " | ", 1)
    return stems


def _cue(phrase: str, where: str) -> Cue:
    cue = words(phrase)
    if not cue:
        raise ConceptMapError(f"{where}: cue {phrase!r} has no words")
    return cue


def _doc_type_cue(entry: str | dict, where: str) -> tuple[tuple[Cue, ...], tuple[Cue, ...]]:
    """A doc type's cue: a phrase, or ``{cues: [...], with: [...]}`` (one of each said)."""
    if isinstance(entry, str):
        return (_cue(entry, where),), ()
    if not isinstance(entry, dict) or not entry.get("cues") or not entry.get("with"):
        raise ConceptMapError(f"{where}: a cue is a phrase or {{cues: [...], with: [...]}}, not {entry!r}")
    return tuple(_cue(c, where) for c in entry["cues"]), tuple(_cue(c, where) for c in entry["with"])


_BARE = ("cover", "regions")  # evidence named by its kind alone: the cover page; the regions a filing lists


def _check_evidence(kind: str, known: dict[str, dict], where: str) -> str:
    name, _, value = (part.strip() for part in kind.partition(":"))
    if name in known and value in known[name] or name == "item" and value or name in _BARE and not value:
        return f"{name}: {value}" if value else name
    raise ConceptMapError(f"{where}: unknown evidence {kind!r}")


def parse(data: dict, source: str = "concept map") -> ConceptMap:
    statements, notes, mdna = sections.parse(data, source)
    statements = statements or sections.statements()  # a partial map (tests) names the domain's statements
    known = {"statement": statements, "note": notes, "section": mdna}
    concepts = []
    for n, entry in enumerate(data.get("concepts") or []):
        where = f"{source} concept {entry.get('name') or n}"
        if not entry.get("cues") or not entry.get("evidence"):
            raise ConceptMapError(f"{where}: needs cues and evidence")
        concepts.append(Concept(entry["name"], tuple(_cue(c, where) for c in entry["cues"]),
                                tuple(_check_evidence(e, known, where) for e in entry["evidence"]),
                                bool(entry.get("figure", False)),
                                tuple(_cue(c, where) for c in entry.get("with") or ()),
                                bool(entry.get("narrative", False)), tuple(entry.get("instead_of") or ()),
                                bool(entry.get("one_measure", False)), tuple(entry["cues"]),
                                tuple(entry.get("about") or ()), bool(entry.get("listed", False)),
                                bool(entry.get("unreported", False)), bool(entry.get("by_plan", False))))
    names = {c.name for c in concepts}
    for c in concepts:
        if unknown := [n for n in c.instead_of + c.about if n not in names]:
            raise ConceptMapError(f"{source} concept {c.name}: instead_of or about names no concept: {', '.join(unknown)}")
        if (c.one_measure or c.listed) and not c.figure:
            raise ConceptMapError(f"{source} concept {c.name}: one_measure and listed need figure: true (a row's label)")
        if (c.unreported or c.by_plan) and not c.figure:
            raise ConceptMapError(f"{source} concept {c.name}: unreported and by_plan need figure: true (a measure)")
    doc_types = {t: tuple(_doc_type_cue(c, f"{source} doc type {t}") for c in cues)
                 for t, cues in (data.get("doc_types") or {}).items()}
    narrative = tuple(_cue(c, f"{source} narrative") for c in data.get("narrative") or ())
    return ConceptMap(tuple(concepts), notes, mdna, doc_types, narrative)


@functools.lru_cache(maxsize=1)
def concept_map() -> ConceptMap:
    return parse(vocabulary.load("concepts"), "concepts.yaml")
