"""A margin asked: the share of revenue the facts found compute, as filings print it ("Operating margin |
10.0%"). No fact is tagged with a margin in most filings (MD&A computes it), so the page printing it is found
by its value: the facts of the measure and of revenue, of one period and one part, divided."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from domain.text import words
from query.facts import synonyms

_MARGIN = frozenset(words("margin margins"))
_PLACES = (1, 2)  # decimals a margin is printed to: "10.0%" most often, a retailer's "33.39%"
_REVENUE_TERM = "revenue"  # the reviewed synonym whose concepts are revenue's: a margin's denominator


def says_margin(question: str) -> bool:
    """Whether the question asks a margin (any: gross, operating, segment, "profit margin")."""
    return bool(_MARGIN & set(words(question)))


def margin_percents(facts: Iterable[dict], periods: Collection[tuple[int | None, str | None]]) -> set[str]:
    """The percents, to one or two decimals ("10.0", "33.39", a loss's "0.5" unsigned), that each fact not of
    revenue makes of a revenue fact of the same period, part and unit, for the (fiscal year, fiscal period)
    ``periods`` asked: the margins the facts found compute. Facts of other parts or periods are never divided
    (a segment's profit by the consolidated revenue is no margin anyone prints)."""
    revenue = set(synonyms()[_REVENUE_TERM])
    groups: dict[tuple, list[dict]] = {}
    for f in facts:
        if f.get("value") is not None and (f.get("fiscal_year"), f.get("fiscal_period")) in periods:
            key = (f.get("fiscal_year"), f.get("fiscal_period"), f.get("unit"), tuple(sorted(f.get("dimensions") or ())))
            groups.setdefault(key, []).append(f)
    percents = set()
    for group in groups.values():
        revenues = {f["value"] for f in group if f["concept"] in revenue and f["value"] > 0}
        measures = {f["value"] for f in group if f["concept"] not in revenue}
        shares = [abs(100 * m / r) for m in measures for r in revenues]
        percents |= {f"{s:.{places}f}" for s in shares for places in _PLACES}
    return percents
