"""A margin or an effective tax rate asked: the percent the facts compute, as filings print it ("Operating
margin | 10.0%", "effective tax rates of (10%) and 14%"). No filing tags a margin and many tag no rate (MD&A
computes them), so the page printing one is found by its value: the measure over revenue, the tax over pre-tax
income, of one period and one part, divided."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from domain.text import has_phrase, phrase_text, words
from query.facts import synonyms

_MARGIN = frozenset(words("margin margins"))
_PLACES = (1, 2)  # decimals a margin is printed to: "10.0%" most often, a retailer's "33.39%"
WHOLE = (0,)  # a margin printed as a whole percent (Alphabet's "28 %"), read where none prints it to a decimal
_REVENUE_TERM = "revenue"  # the reviewed synonym whose concepts are revenue's: a margin's denominator
_COST_TERM = "cost of sales"  # the reviewed synonym of the cost of sales' concepts: revenue less it, gross profit
_GROSS = frozenset(words("gross"))
_PROFIT_RATE = words("profit rate")
# the reviewed synonyms of a tax rate's terms: the rate where a filer tags it, the tax over pre-tax income
_RATE_TERM, _TAX_TERM, _PRETAX_TERM = "effective tax rate", "income taxes", "pretax income"
_RATE_PLACES = (0, 1)  # decimals a tax rate is printed to: Visa's "17 %", Texas Instruments' "12.2%"
RATE_WORDS = frozenset(words("effective tax rate"))  # a rate's row or sentence says one of them
_TAX_RATE = words("tax rate")  # the phrase a question asks a tax rate by


def says_margin(question: str) -> bool:
    """Whether the question asks a margin (any: gross, operating, segment, "profit margin"), or a profit's rate,
    as retailers call their gross margin (Walmart's and Nike's "gross profit rate")."""
    said = words(question)
    return bool(_MARGIN & set(said)) or has_phrase(phrase_text(said), _PROFIT_RATE)


def asks_gross(question: str) -> bool:
    """Whether the question asks a gross margin ("gross margin", "gross profit margin", "gross profit rate")."""
    return bool(_GROSS & set(words(question)))


def margin_concepts() -> list[str]:
    """The concepts every margin's percent is read with, whichever the question names: revenue's, which it
    divides by, and the cost of sales', which revenue less gives a gross profit many filers tag no fact of
    (Procter & Gamble's "Cost of products sold", reviewed synonyms)."""
    vocabulary = synonyms()
    return list(dict.fromkeys(c for t in (_REVENUE_TERM, _COST_TERM) for c in vocabulary[t]))


def margin_percents(facts: Iterable[dict], periods: Collection[tuple[int | None, str | None]],
                    gross: bool = False, places: tuple[int, ...] = _PLACES) -> set[str]:
    """The percents, to one or two decimals ("10.0", "33.39", a loss's "0.5" unsigned), that each fact not of
    revenue or the cost of sales makes of a revenue fact of the same period, part and unit, for the (fiscal
    year, fiscal period) ``periods`` asked: the margins the facts found compute (of flows only: :func:`is_flow`);
    with ``gross``, revenue less each cost of sales too (a gross profit untagged); to ``places`` decimals
    (:data:`WHOLE`: a whole percent). Facts of other parts or periods are never divided (a segment's profit by
    the consolidated revenue is no margin anyone prints)."""
    vocabulary = synonyms()
    revenue, cost = set(vocabulary[_REVENUE_TERM]), set(vocabulary[_COST_TERM])
    percents = set()
    for group in _groups(facts, periods, by_unit=True):
        revenues = {f["value"] for f in group if f["concept"] in revenue and f["value"] > 0}
        measures = {f["value"] for f in group if f["concept"] not in revenue | cost and is_flow(f)}
        if gross:
            measures |= {r - f["value"] for f in group if f["concept"] in cost for r in revenues}
        shares = [abs(100 * m / r) for m in measures for r in revenues]
        percents |= {f"{s:.{n}f}" for s in shares for n in places}
    return percents


def is_flow(fact: dict) -> bool:
    """Whether a fact is of a period, not of an instant: a margin divides a flow (a profit, an income) by the
    revenue of its period, never a balance (a segment's goodwill, which a question's words may find too)."""
    return "period_start" not in fact or fact["period_start"] is not None


def says_tax_rate(question: str) -> bool:
    """Whether the question asks a tax rate ("effective tax rate", "effective income tax rate", "tax rates")."""
    return has_phrase(phrase_text(words(question)), _TAX_RATE)


def tax_rate_concepts() -> list[str]:
    """The concepts a tax rate is read from: the rate's own, the tax's and pre-tax income's (reviewed)."""
    return list(dict.fromkeys(c for t in (_RATE_TERM, _TAX_TERM, _PRETAX_TERM) for c in synonyms()[t]))


def rate_tagged(facts: Iterable[dict]) -> bool:
    """Whether the facts hold a tagged tax rate: their page prints the rate itself, not only its terms."""
    rate = set(synonyms()[_RATE_TERM])
    return any(f["concept"] in rate for f in facts)


def tax_rate_percents(facts: Iterable[dict], periods: Collection[tuple[int | None, str | None]]) -> set[str]:
    """The tax rates, as percents to whole or one decimal ("17", "17.4"; a benefit's "10" unsigned), of the
    (fiscal year, fiscal period) ``periods`` asked: each tagged rate as it is tagged, and each tax fact over a
    pre-tax income fact of the same period and part (many filers tag no rate; Visa's "17 %", AMD's "(10%)")."""
    vocabulary = synonyms()
    rate, tax, pretax = (set(vocabulary[t]) for t in (_RATE_TERM, _TAX_TERM, _PRETAX_TERM))
    percents = set()
    for group in _groups(facts, periods, by_unit=False):  # a rate is a pure number, its terms money
        tagged = {round(abs(100 * f["value"]), 1) for f in group if f["concept"] in rate}  # tagged to 0.1
        percents |= {f"{r:.0f}" if r == int(r) else f"{r:.1f}" for r in tagged} | {f"{r:.1f}" for r in tagged}
        incomes = {f["value"] for f in group if f["concept"] in pretax and f["value"]}
        shares = [abs(100 * f["value"] / i) for f in group if f["concept"] in tax for i in incomes]
        percents |= {f"{s:.{places}f}" for s in shares for places in _RATE_PLACES}
    return percents


def _groups(facts: Iterable[dict], periods: Collection[tuple[int | None, str | None]],
            by_unit: bool) -> list[list[dict]]:
    """The facts with a value of the ``periods`` asked, grouped by period and part (and unit, ``by_unit``):
    the facts one ratio may divide."""
    groups: dict[tuple, list[dict]] = {}
    for f in facts:
        if f.get("value") is not None and (f.get("fiscal_year"), f.get("fiscal_period")) in periods:
            unit = f.get("unit") if by_unit else None
            key = (f.get("fiscal_year"), f.get("fiscal_period"), unit, tuple(sorted(f.get("dimensions") or ())))
            groups.setdefault(key, []).append(f)
    return list(groups.values())
