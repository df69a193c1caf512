"""Fact pins: over iXBRL filings, the pages printing the facts a metric question names, and the page that
prints their amount again off the tagged ones (MD&A's summary, a segment note's total), placed above the
statements' pins. Documents without facts (PDFs, filings before iXBRL) pin nothing here."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import NamedTuple

from domain.rules import concept_words
from domain.sec_items import STATEMENT_ITEMS
from domain.text import FUNCTION_WORDS, words
from kernel.search import Hit
from query.catalog import DocInfo
from query.facts import (
    consolidated_facts,
    describe,
    fact_pages,
    of_a_part,
    question_facts,
    says_a_row,
    synonym_concepts,
)
from query.margins import (
    RATE_WORDS,
    WHOLE,
    asks_gross,
    is_flow,
    margin_concepts,
    margin_percents,
    rate_tagged,
    says_margin,
    says_tax_rate,
    tax_rate_concepts,
    tax_rate_percents,
)
from query.part_pins import asked_parts
from query.pin_policy import PinReader, fact_page_limit
from query.question import Question
from query.stated import said_amount_page
from query.statements import echo_page, percent_page

ECHO_SEARCH = 30  # passages of the document searched for the facts' figures printed again


class FactPinned(NamedTuple):
    """The facts' pins, and the documents whose facts found were a part's (a segment's, a region's: members'
    rows, not the consolidated figure: ``facts.of_a_part``), whose statements then print no figure asked; and
    those whose facts found were the whole's alone (no member's), below a part's own pins where one was asked."""

    pins: list[Hit]
    parts: frozenset[str] = frozenset()
    wholes: frozenset[str] = frozenset()


class FactPins(PinReader):
    """``FactPins(backend)(question, best documents, top score, pages taken)``: the facts' pages, then the
    amount printed again."""

    def __call__(self, q: Question, best: list[DocInfo], top: float,
                 taken: AbstractSet[tuple[str, int]] = frozenset()) -> FactPinned:
        """Metric questions over iXBRL filings: in each best document, the pages that print the facts the
        question names (:func:`fact_page_limit` of them), with the facts as the reason (the companies' names
        are no concept words). Documents without facts (PDFs, filings before iXBRL) pin nothing: the
        statements' pages and the search stand. ``taken``: (document, page) pinned already, which a
        figure printed again does not pin twice."""
        plan = q.plan
        figure_kind = not (plan.narrative or plan.described or plan.defines) and plan.forecast is None
        metric = figure_kind and (plan.figure or bool(synonym_concepts(plan.core)))
        if not figure_kind or not q.snap.has_facts:
            return FactPinned([])
        # who the question names, as it writes them ("GE's Aerospace segment": GE, whose name is GE Aerospace
        # today, and its Aerospace segment), else the companies' own names
        written = plan.analysis.written
        names = written + [d.ticker for d in best] if written else \
            [e.name for e in plan.analysis.entities] + [n for d in best for n in (d.company, d.ticker)]
        pins: list[Hit] = []
        parts: set[str] = set()
        wholes: set[str] = set()
        fact_limit = fact_page_limit(len(best))
        margin = says_margin(plan.core)
        for d in self._pinned(q, best):
            if not metric and not says_a_row(self.backend, q.snap.targets, plan.core, names, d.doc_id):
                continue  # no figure asked: no concept named, no row's label said whole
            # the company as a whole: its own names as written, not a brand or business written for a part of
            # it ("Pratt & Whitney", "Hill's Pet Nutrition": a segment's member carries their words)
            company = " ".join(plan.analysis.names) if plan.analysis.names else d.company
            found = question_facts(self.backend, q.snap.targets, plan.core, names, d.doc_id, company)
            if margin:  # a margin's terms are flows: a segment's goodwill its words found is none
                found = [f for f in found if is_flow(f)]
            pages = fact_pages(found, plan.target_year or d.fiscal_year, fact_limit, plan.analysis.spans)
            if pages and any(of_a_part(f) for f in found):
                parts.add(d.doc_id)
            if pages and not any(f.get("dimensions") for _, facts in pages for f in facts):
                wholes.add(d.doc_id)
            start = len(pins)  # this document's first pin
            for page, facts in pages:
                scope = {**(q.filters or {}), "doc_id": d.doc_id, "page_start": [page - 1, page]}
                hits = [h for h in self._bm25(q, plan.lexical, scope, 20)
                        if int(h.source["page_start"]) <= page <= int(h.source["page_end"])]
                if hits:
                    pins.append(Hit(hits[0].id, top * (1.05 - 0.01 * len(pins)),
                                    {**hits[0].source, "_page": page, "_basis": "fact",
                                     "_reason": f"reports {describe(facts)}"}))
            if says_tax_rate(plan.core):  # the rate printed: before its terms' pages, after a page of it tagged
                tagged = rate_tagged(f for _, facts in pages for f in facts)
                self._echo(q, d, pages, self._tax_rates(q, d), pins, top, taken, start,
                           ratio="tax rate", labels=RATE_WORDS, before=not tagged)
            elif pages:
                # a margin: the measure and revenue found for the periods pinned, wherever they are tagged
                percents, whole = self._margins(q, d, found, pages) if margin else (set(), set())
                self._echo(q, d, pages, percents, pins, top, taken, start, rounded=whole)
        return FactPinned(pins, frozenset(parts), frozenset(wholes))

    def _margins(self, q: Question, d: DocInfo, found: list[dict],
                 pages: list[tuple[int, list[dict]]]) -> tuple[set[str], set[str]]:
        """The margins the facts found give for the periods their pages print (:func:`query.margins.margin_percents`),
        with the document's consolidated revenue and cost of sales read too (:func:`query.margins.margin_concepts`):
        the question's search finds the measure it names (Colgate-Palmolive's gross profit, Caterpillar's operating
        profit) without the revenue it is a percent of. A part's facts found: its own revenue only, as found.
        To one and two decimals, then to a whole percent (:data:`query.margins.WHOLE`)."""
        terms = [] if any(f.get("dimensions") for f in found) else \
            consolidated_facts(self.backend, q.snap.targets, d.doc_id, margin_concepts())
        facts, periods, gross = [*found, *terms], _periods(pages), asks_gross(q.plan.core)
        return margin_percents(facts, periods, gross), margin_percents(facts, periods, gross, WHOLE)

    def _tax_rates(self, q: Question, d: DocInfo) -> set[str]:
        """The tax rates the document's facts give for the period asked (the one its best page of the rate's
        terms prints: :func:`query.facts.fact_pages`), tagged or computed (:func:`query.margins.tax_rate_percents`)."""
        facts = consolidated_facts(self.backend, q.snap.targets, d.doc_id, tax_rate_concepts())
        chosen = fact_pages(facts, q.plan.target_year or d.fiscal_year, 1, q.plan.analysis.spans)
        return tax_rate_percents(facts, _periods(chosen))

    def _echo(self, q: Question, d: DocInfo, pages: list[tuple[int, list[dict]]], percents: set[str],
              pins: list[Hit], top: float, taken: AbstractSet[tuple[str, int]], start: int,
              ratio: str = "margin", labels: frozenset[str] | None = None, before: bool = True,
              rounded: set[str] | None = None) -> None:
        """The amount asked, printed again off the pages its facts are tagged on: MD&A's summary table or a
        segment note's total (untagged in most filings), which answer as well as the statement and are where
        many readers look: the document's first other page printing one of the facts' figures as a cell
        (:func:`query.statements.echo_page`), outside the statements' Item first (a 10-Q's other statements
        print net income again before its MD&A does). A margin asked (or a tax rate, the ``ratio``): the page
        printing one of ``percents``, the margins the facts compute (:func:`query.margins.margin_percents`), even
        one another pin took lower, comes ``before`` the document's fact pages (from ``start``): they print the
        margin's terms, it the margin (a tax rate tagged: its own page prints it, and comes first). ``labels``:
        the words a row or sentence printing the ratio says one of (the question's own by default). ``rounded``:
        the ratio to a whole percent, searched for only where no page prints it to a decimal: a whole percent
        matches many rows (a segment's "Operating margins | 5%"), a decimal few."""
        facts = [f for _, found in pages for f in found]
        if asked_parts(q, d) and not any(f.get("dimensions") for f in facts):
            return  # a part asked, the whole's figures found: their reprint is not the part's
        displays = {str(f.get("display") or "") for f in facts}
        own = {p for p, _ in pages}
        tagged = own | {p for doc, p in taken if doc == d.doc_id}
        scope = {**(q.filters or {}), "doc_id": d.doc_id}
        hits = self._bm25(q, f"{q.plan.lexical} {' '.join(sorted(displays | percents))}", scope, ECHO_SEARCH)
        asked = frozenset(words(q.plan.core))
        # the margin printed goes above the statements' pins of its page too: it is what was asked
        named = labels or asked  # the words a row or sentence printing the ratio says one of
        echoes = _ratio_echoes(hits, percents, named, own, ratio)
        if not echoes and rounded:
            whole = self._bm25(q, f"{q.plan.lexical} {' '.join(sorted(rounded))}", scope, ECHO_SEARCH)
            echoes = _ratio_echoes(whole, rounded, named, own, ratio, signed=True)
        ratio_printed = bool(echoes)
        if not ratio_printed:
            tables = [(page, h) for h in hits if (page := echo_page(displays, asked, h.source)) is not None
                      and page not in own]
            echoes = [(page, h, "the facts' amount, off their tagged pages") for page, h in tables
                      if page not in tagged]
            if not tables:  # no table prints it again (one another pin took would do): a sentence that says it
                amounts = said_amounts(facts, asked)
                echoes = [(page, h, "the facts' amount in words, off their tagged pages") for h in hits
                          if (page := said_amount_page(h.source, amounts)) is not None and page not in tagged]
        if echoes:
            page, h, what = min(echoes, key=lambda t: (t[1].source.get("item") in STATEMENT_ITEMS, t[0]))
            echo = Hit(h.id, 0.0, {**h.source, "_page": page, "_basis": "fact",
                                   "_reason": f"prints the figure asked again ({what})"})
            place_echo(pins, echo, start if ratio_printed and before else len(pins), top)


def _ratio_echoes(hits: list[Hit], percents: set[str], named: frozenset[str], own: set[int],
                  ratio: str, signed: bool = False) -> list[tuple[int, Hit, str]]:
    """(page, hit, why) of each of ``hits`` printing one of ``percents`` on a row or in a sentence saying one of
    ``named`` (:func:`query.statements.percent_page`; ``signed``: with its sign), off the facts' ``own`` pages."""
    return [(page, h, f"the {ratio} asked, as the facts compute it, off their tagged pages") for h in hits
            if percents and (page := percent_page(percents, named, h.source, signed)) is not None and page not in own]


def _periods(pages: list[tuple[int, list[dict]]]) -> set[tuple[int | None, str | None]]:
    """The (fiscal year, fiscal period) of the facts on pages :func:`query.facts.fact_pages` chose."""
    return {(f.get("fiscal_year"), f.get("fiscal_period")) for _, facts in pages for f in facts}


def place_echo(pins: list[Hit], echo: Hit, at: int, top: float) -> None:
    """Put ``echo`` at ``at`` among the facts' ``pins`` (a margin printed: before its document's fact pages;
    an amount printed again: last), and score the pins from there in their new order, each just below the
    one before (``top``: the best passage's score)."""
    pins.insert(at, echo)
    for i, pinned in enumerate(pins[at:], start=at):
        pinned.score = top * (1.05 - 0.01 * i)


def said_amounts(facts: list[dict], asked: frozenset[str]) -> list[tuple[float, frozenset[str]]]:
    """The facts' amounts of money a sentence may say in words (a million or more), each with the words of its
    concept the question says too (``asked``: its stems; joining words aside): "dividends" of
    us-gaap:PaymentsOfDividends for "How much did Verizon pay in dividends"."""
    amounts = []
    for f in facts:
        value, named = f.get("value"), frozenset(words(concept_words(f["concept"]))) & asked - FUNCTION_WORDS
        if value is not None and abs(value) >= 1e6 and str(f.get("unit") or "").upper() == "USD" and named:
            amounts.append((float(value), named))
    return amounts
