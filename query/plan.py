"""The typed query plan: what a question asks for, and the rules that turn it into document preferences.

From the analysis (companies, years, quarters, named forms) and the concept map (``domain/vocabulary/concepts.yaml``):

- ``core``: the question without instructions and caveats ("Round your answer ...", "If gross margin is not a
  useful metric ..., state that and explain why"): the concepts and the lexical search read this;
- ``target_year``: the fiscal year whose document answers: the latest year named (a comparison or an average
  over years is answered by the latest filing, which reports the earlier years as comparatives), unless the
  question stands in an earlier one ("as of FY2021, ... expected to pay in 2024": that report's forecast);
- ``doc_types``: a named form, a quarter (10-Q or an earnings release), or the wording (an 8-K event, a
  non-GAAP "adjusted" measure reported in earnings releases);
- ``evidence``: statements, notes, Items, the cover, from the concepts the question names.

Document choice (:func:`document_choice`) is a scored decision: each piece of evidence the question gives
about the document it needs (year, period, form) weighed against a candidate's metadata, shown by
``--explain`` with its points:
  R1 a document of the target year and an allowed type (and the quarter asked) is tier 0 (+0.8); a year
     named with no quarter asks for the year's figures, so a quarter's document (a 10-Q, a Q1-Q3 release)
     is not of the target year (Y: the year's annual documents, the 10-K, the annual release and report,
     come before the quarters that lead up to them; a day named, "as of June 30, 2023", may be a quarter's
     end and keeps them; P: of the year's annual documents, the annual report before the fourth-quarter
     release that previewed it, when the company has both and the question names no release or wording of
     one: the release is tier 1 with no points, so a release's shorter, denser text does not outrank the
     audited statements and the discussion the 10-K adds; with no 10-K of that year the release is tier 0);
  R2 when the company has none, its annual report of the next year or the one after (which carries the
     target year as a comparative column) is tier 1 (+0.4); so is, for a quarter asked of a company with no
     quarter's report of that year, the annual report of the quarter's own fiscal year (its year holds the
     quarter: the dividends paid each quarter, the year's quarterly data; the coverage note's closest);
  R3 anything else is tier 2 (kept, so a question never comes back empty, but weighed down);
  A  a fiscal year named with no quarter and no form or wording that points elsewhere: the annual report
     (+0.2; "as of FY2022", a balance, a year's results);
  L  no period named: the company's newest periodic report (10-K or 10-Q) speaks for now (+1.0: it answers,
     whatever the text match of older ones); asked over years ("the last three years", "annually") or of
     an Item no 10-Q has (the workforce, the business: ``QueryPlan.annual``), its newest annual report.
     The report before it stays a candidate (``scoring.with_previous``). Asked no figure, form or period
     about an event, an 8-K dated after that report that the question's words match better takes these
     points, the report staying the one before (``query.event_filings``).
  E  a span shorter than a year named by its last day ("the three months ended June 30, 2023", "the quarter
     ended July 1, 2023") is a quarter's question: the 10-Q whose period ends that day is tier 0, whatever its
     fiscal year's number (Apple's quarter ended December 30, 2023 is its fiscal 2024's first), a 10-Q of
     another quarter tier 2; an earnings release dated within about a quarter after that day likewise
     (``domain.periods.releases_quarter``). A quarter named by its last month ("the December quarter of
     2023") is named by that month's last day.
  D  a day named alone ("cash at March 3, 2023", "as of June 30, 2023"; a month and its year, "in June 2023",
     its last day): the reports of an allowed type whose
     period ends that day hold its balance sheet: tier 0 whatever their fiscal year's number (+0.3 besides);
     the annual report gets A only if it is one of them (a quarter's end is no year's); the company's other
     reports then print no balance of that day: tier 1, no points, whatever year they are of (the fiscal 2023
     10-K holds December's balances, not June 30, 2023's), and so are the reports the slack alone lets in
     when another filing of the company is dated that day itself (``scoring.farther_from_day``); not when a
     later year is named too (the day is then a comparative column of that year's report). A month named
     with no figure asked ("What board change did MGM Resorts report in March 2023?") takes an 8-K dated any
     day of it as of the day asked (:func:`event_in_month`).
A date alone is otherwise a year (a balance "as of December 31, 2022"); only an event's wording points at an
8-K.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from domain import vocabulary
from domain.periods import COMPARATIVE_YEARS, ends_on, in_month, printed_periods, releases_quarter
from domain.rules import ANNUAL, CURRENT, EARNINGS, PERIODIC, QUARTERLY, QUARTERS
from domain.sec_items import ANNUAL_ONLY_ITEMS
from domain.text import lower_words, without_names
from query.analysis import FORM_NAMED, Entity, QueryAnalysis
from query.concepts import ConceptMap, concept_map
from query.counts import Counted, counted
from query.defined import term
from query.facts import GEOGRAPHIC_AXIS, breakdown_axes
from query.statements import TITLES

# Instructions and caveats around the question proper: sentences that tell how to answer, not what.
_INSTRUCTION = re.compile(
    r"^\s*(answer the following|you are an?|we (want|need) to|please (help|answer|state|utilize|base)|here'?s the "
    r"question|respond to the question|give a (response|solution)|provide a response|calculate (what|or extract)|"
    r"compute or extract|round your answer|answer in|using the |when primarily|basing your|base your|by drawing|"
    r"according to the)", re.I)
# Caveats: a conditional sentence that tells how to answer ("If gross margin is not a useful metric for a
# company like this, state that and explain why."; "If that ratio is the wrong gauge, say so.").
_CAVEAT = re.compile(r"^\s*if\b[^?]{0,160}\b(state|say|explain|answer|respond|write|return|give|note)\b", re.I)
_SENTENCES = re.compile(r"(?<=[.?!])\s+|(?<=;)\s+(?=if\b)", re.I)  # and a caveat after a semicolon ("...; if ...")
# Words asking about several fiscal years without naming one: the newest annual report answers.
_OVER_YEARS = re.compile(r"\b(?:last|past|previous|prior|recent)\s+(?:(?:two|three|four|five|several|few|\d+)\s+)?"
                         r"(?:fiscal\s+)?years\b|\bover (?:the|recent) years\b|\bmulti-?year\b|\bannual(?:ly)?\b|"
                         r"\beach year\b|\byear[- ]over[- ]year\b|\btrend(?:s|ed|ing)?\b", re.I)
# A share asked for ("gross margin percentage", "as a percent of sales", "EBITDA % margin"); in the core question,
# so "answer in percents" (an instruction) is not one.
_PERCENT = re.compile(r"\bpercent(?:age)?s?\b|%")
_AMOUNT = re.compile(r"\bhow (?:much|many)\b", re.I)  # a number asked, whatever concept it is of
_WHICH = re.compile(r"\bwhich\b", re.I)  # "which of its segments had the highest ...": the parts compared
_PARTS_NOTE = "segments"  # the note (concepts.yaml's notes) listing a filing's parts: segments, regions
_ALSO_NAMED = {"income statement": re.compile(r"\bp&l\b|profit and loss", re.I)}  # names a title never prints


# Words that say how a figure is to be given, not what it is: noise for lexical matching.
_UNIT_WORDS = re.compile(r"\b(usd|us\$|dollars?|millions?|billions?|thousands?|(?:in\s+(?:units?\s+of\s+)?|units?\s+of\s+)"
                         r"percent(?:age)?s?|units?|amount|round(ed)?|decimal|places?|answer|respond|calculate|compute|"
                         r"extract|figure)\b", re.I)


def lexical_query(core: str, names: list[str] | tuple[str, ...] = ()) -> str:
    """The words BM25 should match, as filings print them: FY2018 -> 2018, FY22 -> 2022, Q22023 -> Q2 2023,
    H1 FY2023 -> six months 2023 (``domain.periods``), and no unit or instruction words (USD, millions,
    round ...), which every page of figures shares, nor a form's name ("per its 2023 10-K", "in the annual
    report": where to look, which the plan's document types take; as words it finds the pages that print
    the form's name, the cover, the controls report, the exhibit list, not the answer), nor the named
    companies' own ``names`` (the search is within their documents already: the name finds the pages that
    print it most, the signatures and the exhibit list)."""
    text = without_names(printed_periods(core), names)
    return " ".join(FORM_NAMED.sub(" ", _UNIT_WORDS.sub(" ", text)).split()) or core


@functools.lru_cache(maxsize=1)
def _word_forms() -> dict[str, str]:
    return {str(verb).lower(): str(noun) for verb, noun in vocabulary.load("word_forms").items()}


@functools.lru_cache(maxsize=1)
def _short_forms() -> tuple[tuple[re.Pattern, str], ...]:
    lists = vocabulary.load("short_forms")
    forms = [(str(short), str(words), False) for short, words in lists["replaced"].items()] + \
        [(str(short), str(words), True) for short, words in lists["kept"].items()]
    return tuple((re.compile(rf"(?<![\w&/']){re.escape(short)}(?![\w&/'])", re.I),
                  rf"\g<0> {words}" if kept else words) for short, words, kept in sorted(forms, key=lambda f: -len(f[0])))


def short_form(word: str) -> bool:
    """Whether ``word`` is a short form the vocabulary spells out ("R&D", "FCF"): the trade's, no company's."""
    return any(pattern.fullmatch(word) for pattern, _ in _short_forms())


# "How much did Apple sell in its first fiscal quarter", "how much has the segment sold": the sales figure,
# asked by a verb the stemmer keeps apart from the "net sales" filings print. Only after "how much" and an
# auxiliary, within a few words of them: "how much revenue did the sold business bring" asks no sales, "how
# many vehicles did GM sell" counts units, "what business did 3M agree to sell" names a business, "selling,
# general and administrative" is an expense.
_SOLD = re.compile(r"\bhow much\s+(?:did|does|do|has|have|had|will|would|could|can)(?:\s+\S+){1,6}?\s+(?:sell|sold)\b",
                   re.I)


def spelled_out(text: str) -> str:
    """The text with the short forms analysts type spelled out as filings print them
    (``domain/vocabulary/short_forms.yaml``): "rev" replaced by "revenue" (no filing prints it), "R&D" followed
    by "research and development" (filings print both). BM25, the concept cues and the embedding then meet the
    words filings print, so a question asked with a short form finds what the spelled-out one finds. A sales
    figure asked by the verb is followed by the noun filings print it under (:data:`_SOLD`)."""
    for pattern, words in _short_forms():
        text = pattern.sub(words, text)
    return _SOLD.sub(r"\g<0> sales", text)


def printed_nouns(text: str) -> list[str]:
    """The nouns filings print for the verbs the text asks with (``domain/vocabulary/word_forms.yaml``:
    "deliver" -> "deliveries"), which the stemmer leaves apart from them."""
    forms = _word_forms()
    return list(dict.fromkeys(forms[w] for w in lower_words(text) if w in forms))


def core_question(question: str, instructions: bool = False) -> str:
    """The question without its caveat sentences, and without its instructions unless ``instructions``
    (the concepts read what is asked, not how to answer; lexical search keeps the statement names the
    instructions give)."""
    parts = []
    for sentence in _SENTENCES.split(question):
        if _CAVEAT.match(sentence):
            continue
        # "Here's the question: what is ...?" keeps the question after the colon.
        head, colon, tail = sentence.partition(":")
        if not instructions and colon and _INSTRUCTION.match(head) and "?" in tail:
            sentence = tail
        if instructions or not _INSTRUCTION.match(sentence):
            parts.append(sentence.strip())
    return " ".join(parts) or question


@dataclass
class QueryPlan:
    question: str
    core: str
    analysis: QueryAnalysis
    lexical: str = ""  # what BM25 matches (lexical_query of core)
    target_year: int | None = None
    doc_types: list[str] = field(default_factory=list)  # allowed types, preferred first; empty: any
    statements: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # MD&A sections
    items: list[str] = field(default_factory=list)
    cover: bool = False
    figure: bool = False  # asks for a number: the page holding the figures comes first
    narrative: bool = False
    over_years: bool = False  # asks about several fiscal years without naming one ("the last three years")
    percent: bool = False  # asks for a share: the row printing it prints percentages
    concepts: list[str] = field(default_factory=list)
    described: list[str] = field(default_factory=list)  # concepts said only as what another is about: no figure
    forecast: int | None = None  # the year a forecast is asked of: read in the report of the year before
    defines: tuple[str, ...] = ()  # the stems of a term whose definition is asked (query.defined): no figure
    counted: Counted | None = None  # what a "how many" question counts (query.counts): its row or sentence
    regions: bool = False  # asks a figure by region ("which region grew most"): the table of the regions' figures
    operates: bool = False  # asks where it operates: the regions Item 1 names, and the table listing them
    shares: bool = False  # asks a figure by segment or product ("any product category over 20% of revenue")
    rules: list[str] = field(default_factory=list)  # which planning rules fired, for --explain

    @property
    def annual(self) -> bool:
        """Only an annual report answers it: asked over years, or of an Item no 10-Q has (the workforce, the
        business's segments, properties) with no statement's figure asked; rule L then takes the newest 10-K."""
        return self.over_years or (bool(self.items) and set(self.items) <= ANNUAL_ONLY_ITEMS and not self.statements)

    def as_dict(self) -> dict:
        a = self.analysis
        return {"companies": [e.name for e in a.entities], "years": a.years, "target_year": self.target_year,
                "quarters": a.quarters, "doc_types": self.doc_types, "concepts": self.concepts,
                "evidence": {"statements": self.statements, "notes": self.notes, "sections": self.sections,
                             "items": self.items,
                             "cover": self.cover, "figure": self.figure},
                "narrative": self.narrative, "forecast": self.forecast, "core": self.core, "lexical": self.lexical,
                "rules": self.rules}


def named_statements(question: str) -> list[str]:
    """The statements a question names outright (by their titles, or "P&L")."""
    return [s for s, title in TITLES.items()
            if title.search(question) or (s in _ALSO_NAMED and _ALSO_NAMED[s].search(question))]


def make_plan(analysis: QueryAnalysis, concepts: ConceptMap | None = None) -> QueryPlan:
    concepts = concepts or concept_map()
    question = analysis.question
    core = core_question(question)
    plan = QueryPlan(question, core, analysis,
                     lexical_query(core_question(question, instructions=True), analysis.names),
                     rules=list(analysis.inferred))  # a company read off its product's name
    if analysis.years:
        plan.target_year = max(analysis.years)
        stand = analysis.stand  # while among the years asked: a follow-up narrowed to one year keeps it
        if stand in analysis.years and stand < plan.target_year:  # the later years are that report's forecasts
            plan.target_year = stand
            plan.rules.append(f"as of {stand}: that year's report, whose forecasts name the later years")
        elif stand is None and analysis.forecast == plan.target_year:  # a forecast: made the year before
            plan.forecast, plan.target_year = plan.target_year, plan.target_year - 1
            plan.rules.append(f"a forecast of {analysis.forecast}: the report of {plan.target_year}, which makes it")
        elif len(analysis.years) > 1:
            plan.rules.append(f"years {sorted(analysis.years)}: the latest filing reports the earlier ones")
    plan.doc_types = _doc_types(analysis, concepts, core, plan.rules)
    if short_span(analysis):
        plan.rules.append(f"E {analysis.ended[0]} months ended {analysis.ended[1]}: the report of the period "
                          "ending that day")
    matched = concepts.matching(core)
    plan.concepts = [c.name for c in matched]
    if described := concepts.described(core, matched):
        plan.described = described
        plan.rules.append(f"no figure asked: {', '.join(described)} named as what the question is about")
    if printed := concepts.printed_names(core, plan.concepts):
        plan.lexical = f"{plan.lexical} {' '.join(printed)}"
        plan.rules.append(f"searched also as filings print it: {', '.join(printed)}")
    if nouns := printed_nouns(core):
        plan.lexical = f"{plan.lexical} {' '.join(nouns)}"
    plan.narrative = concepts.asks_why(core, matched)
    plan.over_years = bool(_OVER_YEARS.search(core))
    plan.percent = bool(_PERCENT.search(core))
    named = named_statements(question)
    evidence = [e for c in matched for e in c.evidence]
    plan.defines = term(core)
    if plan.defines:  # "How does X define adjusted EBITDA?": its sentence, none of its figures
        plan.rules.append("a definition asked: the sentence defining it, no figure")
    if named:  # a statement named outright (often in the instructions) decides
        plan.statements = named
        plan.rules.append(f"statements named: {', '.join(named)}")
    elif not plan.narrative and plan.forecast is None and not plan.defines:  # prose: no statement reports it
        plan.statements = _unique(e.split(": ", 1)[1] for e in evidence if e.startswith("statement: "))
    plan.notes = _unique(e.split(": ", 1)[1] for e in evidence if e.startswith("note: "))
    if plan.statements and not named and _PARTS_NOTE in plan.notes and _WHICH.search(core):
        plan.statements = []  # the parts compared: their own tables answer, the whole's statement does not
        plan.rules.append("which of its parts: the parts' tables, not the consolidated statement")
    # a measure asked by region ("which region's sales grew most"); not where it operates ("which countries")
    measured = any(c.figure for c in matched)  # a concept of a figure is named
    axes = breakdown_axes(plan.lexical)
    plan.regions = GEOGRAPHIC_AXIS in axes and measured
    if plan.regions:
        plan.rules.append("by region: the table setting the regions' figures side by side")
    # a measure asked by segment or product, none named: the table whose rows add up to the whole's
    plan.shares = measured and not plan.regions and any(a != GEOGRAPHIC_AXIS for a in axes)
    if plan.shares:
        plan.rules.append("by segment or product: the table of the parts adding up to the whole")
    # where it operates, no figure nor cause asked ("its Canadian operations' revenues" is a figure's question)
    plan.operates = "regions" in evidence and not (plan.regions or plan.narrative or measured)
    if plan.operates:
        plan.rules.append("where it operates: the regions Item 1 names, and the table listing them")
    plan.sections = _unique(e.split(": ", 1)[1] for e in evidence if e.startswith("section: "))
    plan.items = _unique(e.split(": ", 1)[1] for e in evidence if e.startswith("item: "))
    plan.cover = "cover" in evidence
    plan.figure = not (plan.narrative or plan.defines) and plan.forecast is None and measured
    if not (plan.narrative or plan.defines or plan.cover) and plan.forecast is None:
        plan.counted = counted(without_names(core, analysis.names), nouns)
        if plan.counted:
            plan.rules.append(f"a count asked ({' '.join(plan.counted.what)}): the row or sentence counting it")
    return plan


def follow_up_plan(parent: QueryPlan, entity: Entity | None, year: int | None) -> QueryPlan:
    """A curation follow-up's plan: the parent's question narrowed to one company (and one year, else the
    parent's years), so its target year and document rules are the follow-up's own. Everything else of the
    parent's analysis carries over (the companies' own names stay out of its search words too)."""
    a = parent.analysis
    return make_plan(replace(a, entities=[entity] if entity else [], years=[year] if year else a.years))


def _doc_types(analysis: QueryAnalysis, concepts: ConceptMap, core: str, rules: list[str]) -> list[str]:
    if analysis.forms:
        rules.append(f"form named: {', '.join(analysis.forms)}")
        return list(analysis.forms)
    worded = concepts.doc_types_of(core)
    if worded:
        rules.append(f"wording points at: {', '.join(worded)}")
        return worded
    if analysis.quarters or short_span(analysis):
        rules.append("a quarter: its 10-Q or earnings release (Q4: the annual report too)")
        return [QUARTERLY, EARNINGS] + ([ANNUAL] if 4 in analysis.quarters else [])
    return []


def short_span(analysis: QueryAnalysis) -> bool:
    """Whether the question names a span shorter than a year by its last day ("the three months ended June
    30, 2023"): the quarter's report ending that day answers, whatever its fiscal year's number (E)."""
    return analysis.ended is not None and analysis.ended[0] < 12


def reports_span(plan: QueryPlan, form: str | None, period_end: dt.date | None) -> bool:
    """Whether a quarter's report covers the span the question names by its last day (E): a 10-Q whose
    period ends that day, an earnings release dated within about a quarter after it (a release's date is its
    own, ``domain.periods.releases_quarter``)."""
    if not short_span(plan.analysis) or period_end is None:
        return False
    day = plan.analysis.ended[1]
    return ends_on(period_end, day) if form == QUARTERLY else form == EARNINGS and releases_quarter(period_end, day)


def document_tier(plan: QueryPlan, fiscal_year: int | None, form: str | None, fiscal_period: str | None,
                  company_has_target: bool, period_end: dt.date | None = None,
                  company_has_day: bool = False, company_has_quarter: bool = False,
                  company_has_annual: bool = False) -> tuple[int, str]:
    """(tier, why) of a document under the plan's rules R1-R3, E, D and P (module docstring); lower is better.
    ``company_has_target``: the company has a document of the target year and an allowed type;
    ``company_has_day``: it has a report of an allowed type ending on the day asked (:func:`on_day`);
    ``company_has_quarter``: for a quarter asked, it has a quarter's report (:func:`quarter_document`) of the
    target year, which is closer than that year's annual report (only R2 for a quarter reads it);
    ``company_has_annual``: it has the target year's annual report (P)."""
    if short_span(plan.analysis) and form in (QUARTERLY, EARNINGS) and period_end is not None:
        day = plan.analysis.ended[1]
        return (0, f"E it reports the quarter ended {day}") if reports_span(plan, form, period_end) else (2, "")
    if on_day(plan, form, period_end):
        day = plan.analysis.day
        if event_in_month(plan, form, period_end):
            return 0, f"D dated {period_end}, in the month asked ({day:%B %Y})"
        return 0, f"D its period ends {day}, the day asked"
    if company_has_day:
        return 1, ""  # D: another of the company's reports is dated that day
    type_ok = not plan.doc_types or form in plan.doc_types
    quarter_ok = not plan.analysis.quarters or form == ANNUAL or \
        (fiscal_period or "").upper() in {f"Q{q}" for q in plan.analysis.quarters}
    if not plan.analysis.quarters and not plan.analysis.dated and quarter_document(form, fiscal_period) and \
            not (plan.doc_types and QUARTERLY in plan.doc_types):
        quarter_ok = False  # Y: a year's figures are its annual documents' (module docstring)
    if plan.target_year is None:
        return (0, "type asked for") if type_ok and plan.doc_types else (1 if not plan.doc_types else 2, "")
    if company_has_annual and previews_annual(plan, fiscal_year, form, fiscal_period):
        return 1, PREVIEW_RULE.format(year=plan.target_year)  # no points (module docstring)
    if fiscal_year == plan.target_year and type_ok and quarter_ok:
        return 0, f"R1 fiscal {plan.target_year}" + (f" {form}" if plan.doc_types else "")
    if not company_has_target and form == ANNUAL and fiscal_year is not None and \
            plan.target_year < fiscal_year <= plan.target_year + COMPARATIVE_YEARS and \
            (not plan.doc_types or ANNUAL in plan.doc_types or not plan.analysis.quarters):
        return 1, f"R2 fiscal {fiscal_year} 10-K reports {plan.target_year} as a comparative"
    if not company_has_target and not company_has_quarter and form == ANNUAL and \
            fiscal_year == plan.target_year and plan.analysis.quarters:
        return 1, f"R2 fiscal {fiscal_year} 10-K holds the quarter asked (no quarter's report of that year)"
    return 2, ""


def day_alone(plan: QueryPlan) -> dt.date | None:
    """The day a question names without a span ("cash at March 3, 2023", "as of June 30, 2023", a month's last
    day for "in March 2023"), which D reads; None when it names none, or a later year too ("the 2023 10-K's
    debt as of December 31, 2022": that day is then a comparative column of the later year's report)."""
    day = plan.analysis.day
    return day if day is not None and plan.analysis.ended is None and plan.target_year in (None, day.year) else None


def balance_day(plan: QueryPlan, period_end: dt.date | None) -> bool:
    """Whether a report's period ends on the day a question names alone (:func:`day_alone`): its balance sheet
    is dated that day (D), whatever the fiscal year's number."""
    day = day_alone(plan)
    return day is not None and ends_on(period_end, day)


def event_in_month(plan: QueryPlan, form: str | None, period_end: dt.date | None) -> bool:
    """D over a month named with no day and no figure asked ("What board change did MGM Resorts report in
    March 2023?"): an 8-K dated any day of that month is of the day asked, as a report ending with the month
    is for a balance (MGM's 8-K of March 1 stands 30 days off the month's last day)."""
    day = day_alone(plan)
    return form == CURRENT and plan.analysis.month_only and day is not None and in_month(period_end, day) and \
        not asks_figure(plan)


def on_day(plan: QueryPlan, form: str | None, period_end: dt.date | None) -> bool:
    """D: a report of an allowed type whose period ends on the day the question names alone (an 8-K of the
    month named, when no figure is asked: :func:`event_in_month`)."""
    return (not plan.doc_types or form in plan.doc_types) and \
        (balance_day(plan, period_end) or event_in_month(plan, form, period_end))


def asks_figure(plan: QueryPlan) -> bool:
    """Whether the question asks a figure: a concept of one, or an amount ("How much cash did Acme hold at
    December 31, 2025?"), which no concept need name."""
    return plan.figure or bool(_AMOUNT.search(plan.core))


def names_filing(plan: QueryPlan, form: str | None, period_end: dt.date | None) -> bool:
    """Whether the question names this filing by its day (or its month): D's report of the day asked, when
    the question also names its form ("its 8-K dated May 5, 2023") or asks no figure (:func:`asks_figure`),
    so it asks what was reported that day ("What executive change did Meta report in December 2025?"): the
    filing of that day is the answer, whatever words an older report shares with the question."""
    return (bool(plan.doc_types) or not asks_figure(plan)) and on_day(plan, form, period_end)


def previews_annual(plan: QueryPlan, fiscal_year: int | None, form: str | None, fiscal_period: str | None) -> bool:
    """P: an earnings release of the year's last quarter (or the year) that a year's question, naming no
    release, form or quarter, takes after the company's annual report of that year."""
    return form == EARNINGS and fiscal_year == plan.target_year and not plan.doc_types and \
        not plan.analysis.quarters and not quarter_document(form, fiscal_period)


def quarter_document(form: str | None, fiscal_period: str | None) -> bool:
    """A document of one quarter short of the year: a 10-Q, or a release of the first three quarters."""
    return form == QUARTERLY or (form == EARNINGS and (fiscal_period or "").upper() in QUARTERS[:3])


class Choice(NamedTuple):
    """A candidate document's standing under the plan: its tier (R1-R3) and the points of each piece of
    evidence for it (module docstring), which add up to its bonus."""

    tier: int
    points: tuple[tuple[str, float], ...] = ()

    @property
    def bonus(self) -> float:
        return sum(w for _, w in self.points)

    @property
    def why(self) -> str:
        return ", ".join(f"{reason} (+{w:.2f})" for reason, w in self.points)


TIER_POINTS = (0.8, 0.4, 0.0)  # R1, R2, R3
ANNUAL_POINTS = 0.2  # A
LATEST_POINTS = 1.0  # L
LATEST_RULE = "L no period named"  # the reason rule L's points carry, whichever document takes them
DAY_POINTS = 0.3  # D
PREVIEW_RULE = "P fiscal {year}'s release, after that year's 10-K"  # P: shown by --explain, no points


def document_choice(plan: QueryPlan, fiscal_year: int | None, form: str | None, fiscal_period: str | None,
                    company_has_target: bool, latest: bool = False, period_end: dt.date | None = None,
                    company_has_day: bool = False, company_has_quarter: bool = False,
                    company_has_annual: bool = False) -> Choice:
    """The scored evidence for one candidate document (module docstring). ``company_has_target``: its company
    has a tier-0 document; ``latest``: it is its company's latest periodic report; ``company_has_day``: its
    company has a report dated the day asked (D); ``company_has_quarter``, ``company_has_annual``: as
    :func:`document_tier`."""
    tier, rule = document_tier(plan, fiscal_year, form, fiscal_period, company_has_target, period_end,
                               company_has_day, company_has_quarter, company_has_annual)
    weight = 0.0 if rule == PREVIEW_RULE.format(year=plan.target_year) else TIER_POINTS[tier]  # P: none
    points = [(rule, weight)] if rule else []
    in_month_asked = tier == 0 and event_in_month(plan, form, period_end)
    dated_that_day = tier == 0 and (balance_day(plan, period_end) or in_month_asked)
    if tier < 2 and plan.target_year is not None and form == ANNUAL and not plan.doc_types and \
            not plan.analysis.quarters and (dated_that_day or not plan.analysis.dated):  # the year's annual report
        points.append(("A a fiscal year, no quarter: the annual report", ANNUAL_POINTS))
    if dated_that_day:
        points.append(("D filed in the month asked" if in_month_asked else "D the balance sheet of the day asked",
                       DAY_POINTS))
    if plan.target_year is None and latest and form in PERIODIC and (not plan.doc_types or form in plan.doc_types):
        points.append((f"{LATEST_RULE}: the newest " + ("annual report" if plan.annual else "report"),
                       LATEST_POINTS))
    return Choice(tier, tuple(points))


LATEST_EVENT = f"{LATEST_RULE}: the newest filing on it, an 8-K filed after the newest report"


def latest_moved(choice: Choice, gains: bool) -> Choice:
    """``choice`` without rule L's points (a newest report that an 8-K filed after it answers instead:
    ``query.event_filings``) or, ``gains``, with them as that 8-K's filing takes them."""
    kept = tuple(p for p in choice.points if not p[0].startswith(LATEST_RULE))
    return Choice(choice.tier, kept + (((LATEST_EVENT, LATEST_POINTS),) if gains else ()))


def _unique(values) -> list[str]:
    return list(dict.fromkeys(values))
