"""Facts lookup: company, concept or words, fiscal period, dimensions -> reported figures with their page.

Words reach concepts two ways: the reviewed synonyms (``fact_synonyms.yaml``: analyst terms such as "capex"
that no concept name or row label spells), and BM25 over the ``concepts`` index (each concept's words and the
row labels it is printed under across the corpus). The ``facts`` index is then filtered by those concepts
and by the caller's company, fiscal year and period; without dimensions only consolidated figures count.
A QName (``us-gaap:GrossProfit``) skips the word step.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError, field_validator

from domain import vocabulary
from domain.periods import PERIOD_WORDS
from domain.rules import ANNUAL_PERIOD, concept_words, split_concept
from domain.sec_items import STATEMENT_ITEMS, item_label
from domain.text import (
    FUNCTION_WORDS,
    has_phrase,
    joined_initialisms,
    lexemes,
    lower_words,
    phrase_text,
    said_as_itself,
    surface_words,
    words,
)
from domain.text import terms as full_text_terms
from kernel.search import SearchReader
from query.concepts import concept_map
from query.initials import JOINING, written_initials
from query.parts import ASKING, SECTION_WORDS
from schemas.index import INDEXES

CONCEPT_CANDIDATES = 8
CONCEPT_FLOOR = 0.6  # of the best concept's BM25 score
FACTS_FOUND = 300  # a document's facts of the concepts asked one search reads
FACTS_TIED = 3000  # what the one search reads, so the rows tied at the FACTS_FOUND-th score are read whole
MAX_FACTS = 500


class FactsError(ValueError):
    """A facts request that cannot be answered as asked (the message says why)."""


class Fact(BaseModel):
    """One reported figure (or text fact) and where it is printed."""

    concept: str
    value: float | None
    display: str
    unit: str | None
    scale: int
    decimals: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    period_start: dt.date | None
    period_end: dt.date | None
    dimensions: list[str]
    doc_id: str
    ticker: str | None
    form: str | None
    page: int = Field(description="0-based page of the document's PDF")
    item: str | None
    item_label: str = Field("", description="The Item as a reader names it: 'Item 8 (Financial Statements)'")
    row_label: str | None
    column_header: str | None
    reason: str = Field("", description="How the concept was found: synonym, words or name")


class FactsRequest(BaseModel):
    concept: str = Field(max_length=200, description="QName (us-gaap:GrossProfit) or words")
    ticker: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = Field(None, description="FY, Q1..Q4, H1, 9M")
    form: str | None = None
    doc_id: str | None = None
    dimensions: list[str] | None = Field(None, description="'axis=member' each; none: consolidated figures only")
    limit: int = Field(20, ge=1, le=MAX_FACTS)

    @field_validator("concept")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the concept is empty: give a QName (us-gaap:GrossProfit) or words")
        return value


@dataclass(frozen=True)
class ConceptMatch:
    concept: str
    score: float
    reason: str

    @property
    def words(self) -> str:
        return concept_words(self.concept)


@functools.cache
def synonyms() -> dict[str, tuple[str, ...]]:
    """Analyst term (lower case) -> concepts, from the reviewed file; and the names of the measures no
    statement reports (the concept map's ``unreported``: "organic net sales") -> none, so a question asking
    one gets no fact pins though its words name a line ("net sales"), and MD&A's words answer it."""
    data = vocabulary.load("fact_synonyms")
    out: dict[str, tuple[str, ...]] = {term.lower(): () for term in concept_map().unreported_terms()}
    for term, concepts in data.items():
        if not isinstance(concepts, list) or not concepts or not all(isinstance(c, str) and ":" in c for c in concepts):
            raise FactsError(f"fact_synonyms.yaml: {term!r} must list concept QNames (a measure no statement "
                             "reports is concepts.yaml's, unreported: true)")
        out[str(term).lower()] = tuple(concepts)
    return out


@functools.cache
def _synonym_phrases() -> list[tuple[str, str]]:
    """(normalized phrase, term) of every synonym, longest first (``domain.text``: the words both sides use)."""
    return sorted(((phrase_text(words(t)), t) for t in synonyms()), key=lambda pt: (-len(pt[0]), pt[1]))


def synonym_terms(text: str) -> list[str]:
    """The synonyms' terms the text names, longest first, each word in one term (compared on normalized
    words, so "capital-intensive", "free cashflow" and "inventories" find their terms; a one-word term said as
    itself, "receivables" not by the verb "receive": ``domain.text.said_as_itself``); said with a verb of
    paying, a term with a "... paid" entry reads as it (:data:`PAYING`)."""
    stems = words(text)
    lowered, said = phrase_text(stems), lexemes(text)
    found = []
    for phrase, term in _synonym_phrases():
        if phrase in lowered and said_as_itself(term, said):
            lowered = lowered.replace(phrase, " | ")  # "operating cash flow" is not also "cash"
            found.append(term)
    paying = not PAYING.isdisjoint(stems)
    return list(dict.fromkeys(paid if paying and (paid := f"{t} {PAID}") in synonyms() else t for t in found))


# A verb of paying asks what was paid ("how much did Home Depot pay in income taxes": the cash flow statement's
# income taxes paid, not the income statement's provision), where the term has a "... paid" entry
PAYING = frozenset({"pay", "paid"})
PAID = "paid"


def synonym_concepts(text: str) -> list[ConceptMatch]:
    """Concepts of the synonyms the text names (:func:`synonym_terms`), each concept once."""
    return _term_concepts(synonym_terms(text))


def _term_concepts(terms: list[str]) -> list[ConceptMatch]:
    found: dict[str, ConceptMatch] = {}
    for term in terms:
        for rank, concept in enumerate(synonyms()[term]):
            found.setdefault(concept, ConceptMatch(concept, 100.0 - rank, f"synonym '{term}'"))
    return list(found.values())


def resolve_concepts(backend: SearchReader, targets: Mapping[str, str], words: str) -> list[ConceptMatch]:
    """The concepts words name: a QName as given, else synonyms, then the concepts index's best matches."""
    if re.fullmatch(r"[A-Za-z][\w-]*:[A-Za-z]\w*", words.strip()):
        return [ConceptMatch(words.strip(), 1.0, "concept name")]
    matches = synonym_concepts(words)
    spec = INDEXES["concepts"]
    hits = backend.bm25(targets["concepts"], spec, words, None, CONCEPT_CANDIDATES)
    best = hits[0].score if hits else 0.0
    known = {m.concept for m in matches}
    matches += [ConceptMatch(h.id, h.score, f"words '{words}'") for h in hits
                if h.score >= CONCEPT_FLOOR * best and h.id not in known]
    return matches


PERIOD_ORDER = ("FY", "Q4", "9M", "Q3", "H1", "Q2", "Q1")  # the whole year first, then the latest part of it


def _period_order(period: str | None) -> int:
    return PERIOD_ORDER.index(period) if period in PERIOD_ORDER else len(PERIOD_ORDER)


QUESTION_CONCEPTS = 2  # concepts a question's words may add (beyond its synonyms) ...
QUESTION_FLOOR = 0.8  # ... each within this share of the best one's BM25 score


_PERIOD_WORD = re.compile(r"(fy|q[1-4]|h[12])\d*")


# The income tax rate reconciliation's items: an item's effect on the tax, not the item ("restructuring and
# impairment costs" is Johnson Controls' RestructuringCharges, not its EffectiveIncomeTaxReconciliation... row)
_TAX_EFFECT = re.compile(r"IncomeTax(?:Rate)?Reconciliation")
TAX_WORD = "tax"  # in a stem a question says when it asks a tax figure


def best_concepts(scored: list[tuple[str, float]], most: int = QUESTION_CONCEPTS,
                  floor: float = QUESTION_FLOOR, taxes: bool = False) -> list[str]:
    """The concepts of facts found for a question's words (``scored``: (concept, score), best first): the
    best one and any other whose best fact scores within ``floor`` of it, ``most`` at most; the tax rate
    reconciliation's items (:data:`_TAX_EFFECT`) only when the question asks ``taxes``."""
    best: dict[str, float] = {}
    for concept, score in scored:
        if taxes or not _TAX_EFFECT.search(concept):
            best.setdefault(concept, score)
    top = max(best.values(), default=0.0)
    return [c for c, score in best.items() if score >= floor * top][:most]


def metric_words(text: str, names: list[str]) -> str:
    """A question's words without its companies' names, years and quarters: what the concepts index should
    match (a company's name also appears in row labels such as "equity income from Coca-Cola FEMSA")."""
    drop = {w for n in names for w in lower_words(n)}
    said = (w.lower().removesuffix("'s").removesuffix("’s") for w, _ in surface_words(joined_initialisms(text)))
    kept = [w for w in said if w not in drop and not w.isdigit() and not _PERIOD_WORD.fullmatch(w)]
    return " ".join(kept)


def proper_words(text: str, names: list[str]) -> str:
    """A question's words written with a capital, its companies' names left out (:func:`metric_words`): where
    a part's name is ("GE's Aerospace segment", "Google Cloud"), not the metric's words ("property and
    equipment", "net sales")."""
    return metric_words(" ".join(_capitalized(text)), names)


def _capitalized(text: str) -> list[str]:
    """The words of a text written with a capital, as written: where the names of parts and companies are."""
    return [w for w, _ in surface_words(text) if w[:1].isupper()]


def question_facts(backend: SearchReader, targets: Mapping[str, str], question: str, names: list[str], doc_id: str,
                   company: str = "") -> list[dict]:
    """One document's numeric facts of the concepts a metric question names: its synonyms when it has any
    (reviewed, so they decide), else the concepts whose facts in this document best match its words (the best
    and any within QUESTION_FLOOR of it, QUESTION_CONCEPTS at most). Scoped to the document, so a company's
    own extension concepts compete only with what that company reports. The consolidated figures, unless the
    question names a part of the company one of whose facts' members it says in full (:func:`named_members`):
    then that part's; one search finds both (the question's words bring a part's rows up). A benefit plan's
    figure has no consolidated fact (filers tag it plan by plan): for a question naming one (the concept map's
    ``by_plan``), the plans' own rows (:func:`of_plans`) count as the consolidated figures."""
    facts = INDEXES["facts"]
    scope = {"doc_id": doc_id, "kind": "numeric"}
    if concept_map().unreported(question):  # its names are also synonyms' terms of no concept (:func:`synonyms`)
        return []  # a measure no statement reports ("organic net sales"): its "net sales" is not the revenue line
    plans = concept_map().by_plan(question)  # a plan's figure: the plans' own rows stand for the whole

    def as_whole(fact: dict) -> bool:
        return not fact.get("dimensions") or plans and of_plans(fact)

    terms = synonym_terms(question)
    concepts = [m.concept for m in _term_concepts(terms)]
    asked = metric_words(question, names)
    said = frozenset(words(question))
    own = [name for n in names if (name := frozenset(words(n))) and name <= said]  # the names it says, brands too
    metric, whole = frozenset(words(" ".join(terms))), frozenset(words(company))
    initials = question_initials(question)
    proper = proper_words(question, names)
    taxes = any(TAX_WORD in w for w in said)  # "taxes", "pretax", "taxation"

    def part_concepts(measured: frozenset[str], required: bool = False) -> list[str]:
        """The concepts of the part the question names in full with capitals, as a name is written, chosen by
        its own rows' match of the question's words ("GE's Aerospace segment profit": the concept the
        segment's rows are tagged with, not net earnings; "spend on property and equipment" names no part):
        the rows whose concept or label says one of the ``measured`` stems (:func:`_measures`), not a row the
        part's name alone matched ("GM Financial net sales and revenue" for what GM Financial paid in
        dividends); when none does, any of the part's rows, unless ``required``."""
        hits = backend.bm25(targets["facts"], facts, asked, {**scope, "dimensional": True}, 50)
        parts = {id(f) for f in named_members([h.source for h in hits], proper, metric, own, whole, initials,
                                              labels=False)}
        rows = [h for h in hits if id(h.source) in parts]
        saying = [h for h in rows if _measures(h.source, measured)]
        return best_concepts([(h.source["concept"], h.score) for h in (saying if saying or required else rows)],
                             taxes=taxes)

    if not concepts and asked:
        measure = _measure_text(asked)
        stems = words(measure)
        # a concept is chosen by the part's facts, else by the consolidated facts (searched only then)
        concepts = part_concepts(measure_words(asked, proper)) or best_concepts(
            [(h.source["concept"], h.score)
             for h in backend.bm25(targets["facts"], facts, measure,
                                   scope if plans else {**scope, "dimensional": False}, 50)
             if as_whole(h.source) and qualified(h.source, stems)],
            taxes=taxes)
    if not concepts:
        return []
    # a business or a brand the question names beside the company ("Collins Aerospace's sales") brings its rows
    # up too: they are the part's, though its words are a name's (left out of ``asked``)
    brands = " ".join(n for n in names if (name := frozenset(words(n))) and name <= said and not name <= whole)
    found = _of_concepts(backend, targets, scope, concepts, f"{asked} {brands}".strip())
    named = named_members([f for f in found if f.get("dimensions")], asked, metric, own, whole, initials)
    if not named and terms and asked and (proper or initials) and (mine := part_concepts(metric, required=True)):
        # the measure named has no row of the part named, which reports its own ("GM Financial's earnings
        # before income taxes": its EBT-adjusted, tagged with GM's concept): the part's measure, not the whole's;
        # a row saying a word of the measure asked, not one matched by the part's name alone ("GM Financial
        # net sales and revenue" for its pre-tax earnings)
        named = named_members([f for f in _of_concepts(backend, targets, scope, mine, asked) if f.get("dimensions")],
                              asked, metric, own, whole, initials)
    # a segment's, a product line's figure ("Mobility's operating income"): its own rows; a figure asked for
    # every segment, region or product ("revenues by segment"): the rows of that split, not the total
    return named or split_by(found, breakdown_axes(question)) or [f for f in found if as_whole(f)]


LABEL_OWN_WORDS = 2  # a row's label said whole asks for its figure when it has this many words besides joining ones


def says_a_row(backend: SearchReader, targets: Mapping[str, str], question: str, names: list[str],
               doc_id: str) -> bool:
    """Whether the question says whole the label of the consolidated row its words match best in the document
    ("what membership and other income did Walmart report": the income statement's "Membership and other
    income"): it asks for that row's figure though no concept cue or synonym names it. The label's words in
    a row, at least LABEL_OWN_WORDS of them not joining words: one word ("Revenues", "Other") is said by too
    many questions that ask for no figure."""
    asked = metric_words(question, names)
    if not asked:
        return False
    scope = {"doc_id": doc_id, "kind": "numeric", "dimensional": False}
    hits = backend.bm25(targets["facts"], INDEXES["facts"], asked, scope, 10)
    said = phrase_text(words(question))
    return any(_says_label(said, h.source.get("row_label")) for h in hits if h.score >= hits[0].score)


def _says_label(said: str, label: str | None) -> bool:
    stems = words(label)
    return len([w for w in stems if w not in FUNCTION_WORDS]) >= LABEL_OWN_WORDS and has_phrase(said, stems)


# Words that name a period (months too), say a figure was reported, or that it is a balance at a date ("commercial
# paper balance at December 31": not the "Balance, December 31" rows of a roll-forward)
_PERIODS = PERIOD_WORDS | frozenset(words("half period report reported balance"))
_UNMEASURED = FUNCTION_WORDS | ASKING | _PERIODS  # words that join, ask or name a period: never what is measured


def measure_words(asked: str, proper: str) -> frozenset[str]:
    """The stems of a question's words (``asked``, its companies' names left out) that may say what is measured:
    not a part's name (``proper``: its words written with capitals), nor a word that asks, says a part is one
    ("segment"), names a period or says a figure was reported (:data:`_PERIODS`)."""
    return frozenset(words(asked)) - frozenset(words(proper)) - _UNMEASURED - SECTION_WORDS


def part_named(lexical: str) -> str:
    """The name of the part of a company a question names, its words written with capitals ("International
    Package", "Optum Health"; ``lexical``: the plan's text, its companies' names left out), without a word that
    asks, names a period or a section: empty when it names none."""
    return " ".join(w for w in _capitalized(lexical) if set(words(w)) - _UNMEASURED - SECTION_WORDS)


def _measure_text(asked: str) -> str:
    """A question's words (``asked``) without those that ask or name a period: what the consolidated facts are
    searched by when no reviewed term names the concept ("cross-border volume grow", not "how much ... third
    quarter", whose words match "Cash dividends declared ... at a quarterly amount")."""
    return " ".join(w for w in asked.split() if not set(words(w)) <= _UNMEASURED)


_PROFIT = frozenset(words("profit profits income earnings"))  # one measure's names: a profit is an income is earnings


def _measures(fact: dict, measured: frozenset[str]) -> bool:
    """Whether a fact's concept or row label says one of the ``measured`` stems, or its label opens with words
    whose initials spell one ("EBIT" of "Earnings (loss) before interest and taxes-adjusted"). Profit, income
    and earnings are one measure's names: a segment's "profit" is tagged with an income concept (the segments'
    pre-tax income, "Construction Industries" under "Profit from reportable segments"), not with revenue."""
    if measured & _PROFIT:
        measured = measured | _PROFIT
    if measured & _fact_words(fact):
        return True
    initials = label_initials(fact.get("row_label") or "")
    return any(len(m) > 2 and initials.startswith(m) for m in measured)


# The words that make one measure of another of the same name ("gross profit" is not "profit", "diluted
# earnings" not "earnings"): a concept found by a question's words, not by a reviewed synonym, says each such word
# the question says together with the word it qualifies, in its name or its row's label (Walmart's "gross profit
# rate": neither its consolidated net income, "ProfitLoss", matched by "profit", nor its gross property and
# equipment, matched by "gross")
QUALIFIERS = frozenset(words("gross diluted basic comprehensive"))


def qualified(fact: dict, asked: tuple[str, ...]) -> bool:
    """Whether a fact's concept or row label says each :data:`QUALIFIERS` stem of the question's (``asked``: its
    stems in order) and the word it qualifies, the next one that is not a joining word."""
    said = _fact_words(fact)
    measured = [w for w in asked if w not in FUNCTION_WORDS]
    return all(set(measured[i:i + 2]) <= said for i, w in enumerate(measured) if w in QUALIFIERS)


def _fact_words(fact: dict) -> set[str]:
    """The stems of a fact's concept name and row label: what says which measure it is."""
    return set(words(f"{concept_words(fact['concept'])} {fact.get('row_label') or ''}"))


def label_initials(label: str) -> str:
    """The initials of a row label's words, lower case, what it says in brackets and joining words left out."""
    said = re.sub(r"\([^)]*\)", " ", label)
    return "".join(w[0] for w in re.findall(r"[a-z0-9]+", said.lower()) if w not in JOINING)


def consolidated_facts(backend: SearchReader, targets: Mapping[str, str], doc_id: str,
                       concepts: list[str]) -> list[dict]:
    """A document's consolidated numeric facts of these concepts (no member's rows): the terms of a figure the
    question asks through them (a tax rate's tax and pre-tax income)."""
    return _of_concepts(backend, targets, {"doc_id": doc_id, "kind": "numeric", "dimensional": False}, concepts, "")


def _of_concepts(backend: SearchReader, targets: Mapping[str, str], scope: dict, concepts: list[str],
                 asked: str) -> list[dict]:
    """A document's facts of these concepts, the question's words ranking a part's rows up (one search). When
    the search fills its ``FACTS_FOUND``, the consolidated rows are searched again apart, so one concept's
    hundreds of members' rows (revenue by segment, product and customer) never crowd another concept's
    consolidated figure out (a margin's operating income)."""
    text = f"{' '.join(dict.fromkeys(w for c in concepts for w in concept_words(c).split()))} {asked}"
    hits = backend.bm25(targets["facts"], INDEXES["facts"], text, {**scope, "concept": concepts}, FACTS_TIED)
    if len(hits) >= FACTS_FOUND:
        hits = _whole_tie(hits, hits[FACTS_FOUND - 1].score)
    if len(hits) >= FACTS_FOUND:
        seen = {h.id for h in hits}
        hits += [h for h in backend.bm25(targets["facts"], INDEXES["facts"], text,
                                         {**scope, "concept": concepts, "dimensional": False}, FACTS_FOUND)
                 if h.id not in seen]
    return [h.source for h in hits]


def _whole_tie(hits: list, cut: float) -> list:
    """The hits scoring at least the cut, the ``FACTS_FOUND``-th best hit's score: the rows tied at it are read
    whole, not cut at an arbitrary one of them; one search of up to ``FACTS_TIED`` reads them (a document
    with fewer matching rows returns no more for it) (Johnson & Johnson's 480 revenue rows: the hundreds saying only
    "worldwide" or "U.S." tie, and the segment's own total was the 358th of them)."""
    return [h for h in hits if h.score >= cut]


# Members every dimensional table has, which a question's words may say without meaning one part of the company
_GENERIC_MEMBERS = frozenset({"OperatingSegments", "SegmentReconcilingItems", "CorporateNonSegment", "Consolidated",
                              "Consolidation", "IntersegmentElimination", "ConsolidationEliminations", "Reportable"})


PRODUCT_AXIS = "ProductOrServiceAxis"  # a product line's members: the split "by product" asks, a brand's rows

# A figure asked split one way ("revenues by segment", "sales by region", "which segment earned the most"): the
# XBRL axes whose members make that split (US GAAP and SEC reporting taxonomies' own names)
# ("which of its segments", "which of Apple's regions", "which of Johnson Controls' regional segments", "which
# of the operating regions")
_ANY = (r"\b(?:by|each|per|across|every|which|what|any)(?: of(?: (?:its|the|their|(?:[\w.&-]+ ){0,3}[\w.&-]+(?:['’]s|s['’])))?)?"
        r"(?: (?:business|operating|reportable|reporting))? ")
GEOGRAPHIC_AXIS = "StatementGeographicalAxis"
BREAKDOWNS = (
    (re.compile(_ANY + r"(?:segments?|divisions?)\b|\bsegment (?:breakdown|split|mix)\b"),
     ("StatementBusinessSegmentsAxis",)),
    (re.compile(_ANY + r"(?:regions?|geograph(?:y|ies|ic(?:al)? (?:areas?|regions?|markets?|segments?))"
                r"|countr(?:y|ies)|regional (?:segments?|divisions?|markets?))\b|\b(?:regional|geographic) "
                r"(?:breakdown|split|mix)\b"), (GEOGRAPHIC_AXIS,)),
    (re.compile(_ANY + r"(?:products?(?: (?:lines?|categor(?:y|ies)))?|product categor(?:y|ies)"
                r"|class(?:es)? of (?:similar )?products)\b"),
     (PRODUCT_AXIS,)),
)


def breakdown_axes(question: str) -> tuple[str, ...]:
    """The XBRL axes of the split a question asks a figure by (none: the total, or one part it names)."""
    text = question.lower()
    return tuple(axis for pattern, axes in BREAKDOWNS if pattern.search(text) for axis in axes)


def split_by(facts: list[dict], axes: tuple[str, ...]) -> list[dict]:
    """The facts that are one member of one of these axes each (a segment's row of the segment note)."""
    if not axes:
        return []
    return [f for f in facts if _on_axes(f, axes)]


# The axes of a company's parts no consolidated statement prints a row of (its segments, its regions); a
# product line's (Oracle's cloud services), a class of stock's or a debt instrument's rows may be the statement's
PART_AXES = ("StatementBusinessSegmentsAxis", "StatementGeographicalAxis")


def of_a_part(fact: dict) -> bool:
    """Whether a fact is a segment's or a region's (:data:`PART_AXES`): the statements print the whole's."""
    return _on_axes(fact, PART_AXES)


# The axes of a company's benefit plans (pension or retiree medical, U.S. or foreign, a plan by its name): a plan's
# figures (its discount rate, its expected return on assets) are tagged plan by plan, with no consolidated fact
PLAN_AXES = ("RetirementPlanTypeAxis", "RetirementPlanSponsorLocationAxis", "RetirementPlanNameAxis")
RANGE_AXIS = "RangeAxis"  # the low and the high end of a figure given as a range ("3.0% - 5.5%")


def of_plans(fact: dict) -> bool:
    """Whether a fact is one benefit plan's or one kind of plans' (a :data:`PLAN_AXES` member, and no other
    dimension but the end of a range): not a plan's assets of one category, nor a segment's plans."""
    axes = {_axis(d) for d in fact.get("dimensions") or []}
    return bool(axes & set(PLAN_AXES)) and axes <= {*PLAN_AXES, RANGE_AXIS}


def _on_axes(fact: dict, axes: tuple[str, ...]) -> bool:
    return any(_axis(d) in axes for d in fact.get("dimensions") or [])


def _axis(dimension: str) -> str:
    """A dimension's axis as its local name ('us-gaap:StatementBusinessSegmentsAxis=...' -> its axis's name)."""
    return dimension.split("=", 1)[0].rsplit(":", 1)[-1]


def member_name(dimension: str) -> str | None:
    """A dimension's member as its local name ('srt:ProductOrServiceAxis=us-gaap:ProductMember' -> 'Product');
    None for the members every segment table has."""
    member = dimension.rsplit(":", 1)[-1].removesuffix("Member")
    return None if _without_role(member) in _GENERIC_MEMBERS else member


def _without_role(member: str) -> str:
    """A member's name without its "Segment" suffix, whatever its case (``mrk:AnimalHealthsegmentMember``),
    nor the organisational word before it (:data:`_ROLES`), which questions leave out: Verizon's
    ``VerizonBusinessGroupSegmentMember`` is "Verizon Business", Medtronic's ``DiabetesGroupMember``
    "Diabetes" (a question saying the word still names it)."""
    if member.lower().endswith(_SEGMENT.lower()):
        member = member[:-len(_SEGMENT)]
    role = next((r for r in _ROLES if member.endswith(r) and len(member) > len(r)), "")
    return member[:len(member) - len(role)]


_SEGMENT = "Segment"
_ROLES = ("Group", "Division")  # a part's organisational word, as filers glue it to its name


_INITIAL_DOT = re.compile(r"(?<=[A-Z])\.")  # "U.S.RetailPetFoods", "NonU.S.Commercial": initials' dots


@functools.lru_cache(maxsize=65536)
def member_words(dimension: str) -> tuple[str, ...]:
    """The stems of a dimension's member (:func:`member_name`), a "Segment" suffix left out
    (``WalmartUSSegmentMember``: the axis's role, not the part's name, which questions say without it), dotted
    initials joined as questions' are (``sjm:U.S.RetailPetFoodsMember``: "us retail pet food"); none for a
    member whose name is a stop word (``country:IN``, India's: "net sales in 2023" names no country)."""
    member = member_name(dimension)
    if not member or not full_text_terms(member):  # a country code that is a stop word ("IN", "AT", "IT"): no part's name
        return ()
    return words(_member_phrase(member))


def member_words_as_said(dimension: str, said: Collection[str]) -> tuple[str, ...]:
    """A member's stems as the question writes its name: the pieces its capitals split
    (:func:`member_words`) joined back into one word where the question says that word ("MedTech" of
    ``jnj:MedTechMember``, "iPhone" of ``aapl:IPhoneMember``, "PepsiCo" of a ``PepsiCoBeveragesNorthAmerica``
    member), else each piece's own, a joining word glued to one read off it (:func:`_unglued`). ``said``: the
    question's stems."""
    pieces = _member_pieces(dimension)
    out: list[str] = []
    i = 0
    while i < len(pieces):
        own, joins = pieces[i]
        joined = next(((j, stem) for j, stem in joins if stem in said), None)
        out.extend((joined[1],) if joined else (_unglued(stem, said) for stem in own))
        i = joined[0] if joined else i + 1
    return tuple(dict.fromkeys(out))


GLUED_JOINS = ("and", "of")  # joining words a member's name writes in lower case, glued to the word before


def _unglued(stem: str, said: Collection[str]) -> str:
    """A piece whose capitals did not split a joining word off ("Productsand" of
    ``tmo:LaboratoryProductsandServicesMember``): the word before it, when the question says that word
    (never "Thailand" or "Island", whose heads no question says)."""
    for join in GLUED_JOINS:
        if stem.endswith(join) and len(head := words(stem[:-len(join)])) == 1 and head[0] in said:
            return head[0]
    return stem


@functools.lru_cache(maxsize=65536)
def _member_pieces(dimension: str) -> tuple[tuple[tuple[str, ...], tuple[tuple[int, str], ...]], ...]:
    """Each piece of a member's name split at its capitals: its own stems, and the pieces from it to each
    later one joined into a single stem ((end, stem), the longest first); none for a member
    :func:`member_words` reads no words from. Read once per member: the question only looks them up."""
    member = member_name(dimension)
    if not member_words(dimension) or not member:
        return ()
    pieces = _member_phrase(member).split()
    return tuple((words(piece), tuple((j, one[0]) for j in range(len(pieces), i + 1, -1)
                                      if len(one := words("".join(pieces[i:j]))) == 1))
                 for i, piece in enumerate(pieces))


def _member_phrase(member: str) -> str:
    """A member's local name as words, its "Segment" suffix and its initials' dots left out
    (``U.S.RetailPetFoodsSegment`` -> "US Retail Pet Foods"): what its stems and its initials are read from."""
    return split_concept(_INITIAL_DOT.sub("", _without_role(member)))


def named_members(facts: list[dict], asked: str, metric: frozenset[str] = frozenset(),
                  own: Collection[frozenset[str]] = (), whole: frozenset[str] = frozenset(),
                  initials: Collection[str] = (), labels: bool = True) -> list[dict]:
    """The dimensional facts one of whose members the question names in full (``asked``: its words without
    the companies' names): Mobility's of "AT&T's Mobility operating income", not the consolidated figure. A
    member the metric's own words name (``metric``: the stems of the synonym terms it says) is no part: the
    "Sales" member of a collaboration's table is not what "Merck's total sales" asks. ``own``: the stems of
    each name of the company the question says (its own, a brand's): a part's name may carry them beside
    words of its own ("Walmart U.S.", "Google Cloud", "Disney Media and Entertainment Distribution"), or be one
    of them whole or all of a business's words but one ("Pratt & Whitney", "Amazon Web Services", "Pet
    Nutrition" of "Hill's Pet Nutrition": :func:`_brand_part`); a part whose words are only some of a name's
    ("Raytheon" of "Raytheon Technologies' net sales": RTX's, not its Raytheon segment's) or the registrant's
    name alone (``whole``: its stems) is the company, no part. ``initials``: the question's capitals that
    may be a segment's or a region's initials ("AWS", "E&T": :func:`question_initials`, :func:`member_initials`).
    A segment's or a region's row may also be named by its table row's label (:func:`_label_names`), when
    ``labels``: not while the concept is still to be chosen by the part's rows, where the label's words are all
    the search matched and any line printed under it would do ("how much did Established Pharmaceuticals sell":
    its depreciation and assets, not its sales)."""
    mine = set(words(asked))
    said = mine.union(*own)
    brands = [name for name in own if not name <= whole]  # a business's or a brand's name, not the company's

    def a_part(m: set[str]) -> bool:  # words of something, not of the registrant's name alone
        return bool(m) and not m <= whole

    def says(m: set[str]) -> bool:
        return a_part(m) and m <= said and (bool(mine & m) or any(_brand_part(m, b) for b in brands)) \
            and not m <= metric

    def part_said(d: str) -> frozenset[str] | None:
        """The member's words, when they name a part the question says (in full, or by its initials)."""
        m = set(member_words_as_said(d, said))
        named = says(m) or (a_part(m) and bool(initials) and _axis(d) in PART_AXES and member_initials(d) in initials)
        return frozenset(m) if named else None

    named = [(f, {m for d in f.get("dimensions") or [] if (m := part_said(d)) is not None}) for f in facts]
    fullest = _fullest(set().union(*(m for _, m in named)))
    return [f for f, members in named if members & fullest
            or _alternative_names(f, says) or labels and _label_names(f, metric, says)]


def _fullest(members: set[frozenset[str]]) -> set[frozenset[str]]:
    """The members said whose words no other member said holds with more: "Laboratory Products and
    Biopharma Services" names Thermo Fisher's segment, not its Products and Services members, one of whose
    words each it says."""
    return {m for m in members if not any(m < other for other in members)}


def _alternative_names(fact: dict, says: Callable[[set[str]], bool]) -> bool:
    """Whether the question names one of the brands a product's row label lists with slashes, each a name of
    the fact's product member ("Gardasil/Gardasil 9" of ``GardasilGardasil9Member``, a product family's:
    "Gardasil's sales" names it, though not the member's every word). Products only: a region's or a
    segment's slashed label joins words that name nothing alone ("Corporate/Other", "Asia/Pacific")."""
    label = fact.get("row_label") or ""
    if "/" not in label:
        return False
    members = [set(member_words(d)) for d in fact.get("dimensions") or [] if _axis(d) == PRODUCT_AXIS]
    return any(says(name) and any(name <= m for m in members)
               for part in label.split("/") if (name := set(words(part))))


LABEL_WORDS = 2  # a row label names a part by two words or more of its own: "Other" or "Total" alone names none


def _label_names(fact: dict, metric: frozenset[str], says: Callable[[set[str]], bool]) -> bool:
    """Whether a segment's or a region's fact (:data:`PART_AXES`) is named by the label of the row it is
    printed on: the filer's name for a part its member does not spell, a taxonomy's own member under the
    filer's name (``us-gaap:AllOtherSegmentsMember`` printed as "Other Bets") or a member longer than the name
    people say (``CollinsAerospaceSystemsMember`` printed as "Collins Aerospace"). The label's words beyond
    the metric's must be :data:`LABEL_WORDS` or more ("Total net sales" names no part)."""
    label = set(words(fact.get("row_label") or ""))
    return len(label - metric) >= LABEL_WORDS and any(_axis(d) in PART_AXES for d in fact.get("dimensions") or []) \
        and says(label)


def question_initials(question: str) -> frozenset[str]:
    """The words a question writes in capitals, two to five letters ("AWS", "SPS", "E&T" as "ET"): where a
    segment may be named by its initials, as analysts and the filings' own MD&A write them ("Amazon Web
    Services (AWS)", "Disney Media and Entertainment Distribution (DMED)"). A company's ticker or a metric's
    initials ("EPS", "R&D") are among them: no segment's or region's member has those."""
    return frozenset(i.replace("&", "") for i in written_initials(question))


@functools.lru_cache(maxsize=65536)
def member_initials(dimension: str) -> str:
    """The initials of a member's words, two or more, a "Segment" suffix and joining words ("And", "Of", "The")
    left out: ``AmazonWebServicesSegmentMember`` "AWS", ``SafetyAndProductivitySolutionsMember`` "SPS",
    ``EnergyandTransportationMember`` "ET"; empty for a one-word member ("Aerospace", "EMEA")."""
    member = member_name(dimension)
    if not member:
        return ""
    kept = [w for w in _member_phrase(member).split() if w.lower() not in JOINING]
    return "".join(w[0].upper() for w in kept) if len(kept) >= 2 else ""


def _brand_part(member: set[str], brand: frozenset[str]) -> bool:
    """A member named by a brand or a business of the company: its words, or two or more that are all of
    them but one ("Pratt & Whitney"; "Pet Nutrition" of "Hill's Pet Nutrition"; not "Service" of "Amazon Web
    Services", nor "Raytheon" of "Raytheon Technologies", a name RTX filed under)."""
    return member == brand or member <= brand and len(member) >= max(2, len(brand) - 1)


def fact_pages(facts: list[dict], year: int | None, limit: int = 2,
               spans: Collection[str] = ()) -> list[tuple[int, list[dict]]]:
    """The pages that print the wanted concepts for the year (any year when none is known), best first: most
    measures of the year (:func:`_printed_measures`: concepts tagging one figure are one), then a page none
    of whose facts more axes split than the least split fact found (:func:`split_axes`), then most distinct
    figures of those concepts over all periods (:func:`_figure`: a statement prints each year side by side, a
    discussion one figure; a total reprinted in each section of a table is one), then the statements' Items,
    then the earlier page. Each page comes with its facts of the year. ``spans``: the periods a question's
    quarters ask (``Q2``, six months ``H1``): where the year has facts of them, only those count, so a 10-Q's
    six-month table is not taken for its quarter's (nor the quarter's for "the first six months"); a question
    asking no quarter asks the whole year where the year has its facts, so a 10-K's table of quarterly
    results is not taken for the year's.
    Among pages whose figures split further, the larger the share of the page's figures of the period split
    least (:func:`_least_share`), the earlier: Johnson & Johnson's segment total among its product rows
    before pages of product rows alone, General Dynamics' segment note before its revenue-by-customer table."""
    def of_year(rows: list[dict]) -> list[dict]:
        return [f for f in rows if year is None or f.get("fiscal_year") == year]

    periods = set(spans) if spans else {ANNUAL_PERIOD}
    asked = any(f.get("fiscal_period") in periods for f in of_year(facts))

    def of_period(rows: list[dict]) -> list[dict]:
        return [f for f in of_year(rows) if not asked or f.get("fiscal_period") in periods]

    by_page: dict[int, list[dict]] = {}
    for f in facts:
        by_page.setdefault(int(f["page"]), []).append(f)
    wanted = {p: kept for p, rows in by_page.items() if (kept := of_period(rows))}
    least = min((split_axes(f) for f in facts), default=0)
    ranked = sorted(wanted, key=lambda p: (-_printed_measures(wanted[p]),
                                           any(split_axes(f) > least for f in by_page[p]),
                                           -_least_share(wanted[p], least), -len(set(map(_figure, by_page[p]))),
                                           not any(f.get("item") in STATEMENT_ITEMS for f in by_page[p]), p))
    return [(p, sorted(wanted[p], key=split_axes)) for p in ranked[:limit]]  # its least split figures first


def _figure(fact: dict) -> tuple:
    """What a fact prints, whatever concept tags it: its period, its members and its value (its displayed text
    when it has none). A table reprinting the consolidated total in each of its sections prints one figure, not
    one per section."""
    return (fact.get("fiscal_year"), fact.get("fiscal_period"), tuple(sorted(fact.get("dimensions") or ())),
            fact.get("display") if fact.get("value") is None else fact["value"])


def _printed_measures(facts: list[dict]) -> int:
    """How many measures a page's facts print: concepts tagging one same figure count as one (RTX tags its
    consolidated net sales under both ``Revenues`` and ``RevenueFromContractWithCustomer...`` in its
    geographic tables, which are no fuller for it than the income statement), while a margin's two
    concepts, printing two figures, count as two."""
    owner: dict[str, str] = {}

    def root(concept: str) -> str:
        while owner.setdefault(concept, concept) != concept:
            concept = owner[concept]
        return concept

    first: dict[tuple, str] = {}
    for f in facts:
        owner[root(f["concept"])] = root(first.setdefault(_figure(f), f["concept"]))
    return len({root(c) for c in owner})


def _least_share(facts: list[dict], least: int) -> float:
    """The share of a page's facts that are split no more than the least split fact found: the page most
    wholly printing the part's own figure (a segment note printing each segment's revenue and its U.S.
    government revenue) before tables splitting it by product, customer or contract type."""
    return sum(split_axes(f) <= least for f in facts) / len(facts)


# The member marking a segment's own figure among the reconciling items: it splits the figure no further
OPERATING_SEGMENTS = "ConsolidationItemsAxis=us-gaap:OperatingSegmentsMember"


def split_axes(fact: dict) -> int:
    """How many axes split a fact's figure (:data:`OPERATING_SEGMENTS` aside). Pages are ranked by it in
    :func:`fact_pages`: a table printing a segment's figure with its rows split no further (the segment note)
    comes before the tables that break each segment down by customer, contract type, product line or into
    its external and intersegment sales, which print its figure too, as their subtotal, among many more of
    the concept's figures (General Dynamics' Technologies revenue: the segment note, not the
    revenue-by-customer table of 208 figures; RTX's segment sales: not the tables adding intersegment
    eliminations)."""
    return len({_axis(d) for d in fact.get("dimensions") or [] if not d.endswith(OPERATING_SEGMENTS)})


def describe(facts: list[dict], most: int = 3) -> str:
    """``us-gaap:GrossProfit FY2023 = 27,234 (x10^6 USD)``, a part's with its members
    (``us-gaap:OperatingIncomeLoss [Communications, Mobility] H12023 = ...``), for the evidence's reason."""
    seen, parts = set(), []
    for f in facts:
        members = [m for d in f.get("dimensions") or [] if (m := member_name(d))]
        key = (f["concept"], f.get("fiscal_year"), f.get("fiscal_period"), tuple(members))
        if key in seen:
            continue
        seen.add(key)
        scale = f" x10^{f['scale']}" if f.get("scale") else ""
        part = f" [{', '.join(members)}]" if members else ""
        parts.append(f"{f['concept']}{part} {f.get('fiscal_period') or ''}{f.get('fiscal_year') or ''} = "
                     f"{f['display']} ({(scale + ' ' + (f.get('unit') or '')).strip()})")
    return "; ".join(parts[:most]) + (f"; +{len(parts) - most} more" if len(parts) > most else "")


def facts_request(**fields) -> FactsRequest:
    """A FactsRequest from a caller's arguments, or FactsError with the first problem in one line."""
    try:
        return FactsRequest(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ()))
        raise FactsError(f"{field}: {first.get('msg', 'invalid')}".replace("Value error, ", "")) from None


def find_facts(backend: SearchReader, targets: Mapping[str, str], request: FactsRequest) -> list[Fact]:
    """Facts of the resolved concepts under the request's filters: concept order first (synonyms, then by
    score), then the latest period, then the page (a figure printed twice is listed at each page)."""
    matches = resolve_concepts(backend, targets, request.concept)
    if not matches:
        return []
    rank = {m.concept: (i, m.reason) for i, m in enumerate(matches)}
    filters: dict = {"concept": list(rank)}
    for name in ("ticker", "fiscal_year", "fiscal_period", "form", "doc_id"):
        value = getattr(request, name)
        if value is not None:
            filters[name] = value.upper() if name in ("ticker", "fiscal_period", "form") else value
    if not request.dimensions:
        filters["dimensional"] = False
    # Every fact's label holds its concept's words, so these words reach every fact the filters allow.
    words = " ".join(dict.fromkeys(w for m in matches for w in m.words.split()))
    hits = backend.bm25(targets["facts"], INDEXES["facts"], words, filters, MAX_FACTS)
    rows = [h.source for h in hits]
    if request.dimensions:
        wanted = set(request.dimensions)
        rows = [r for r in rows if wanted <= set(r.get("dimensions") or [])]
    rows.sort(key=lambda r: (rank[r["concept"]][0], -(r.get("fiscal_year") or 0), _period_order(r.get("fiscal_period")),
                             r.get("form") != "10-K", r["doc_id"], r["page"]))
    return [Fact(**{k: r.get(k) for k in Fact.model_fields if k not in ("reason", "item_label")},
                 item_label=item_label(r.get("form"), r.get("item")), reason=rank[r["concept"]][1])
            for r in rows[:request.limit]]
