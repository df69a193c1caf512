"""Which page order answers a question: the release's learned ranker or the rules, by the kind of question,
as data (``query/page_order.yaml``).

The learned ranker is trained on the corpus's own questions (row labels, statement and note titles, what
drove a change); on kinds of question it was not trained for it may lose to the rules, and a default must
not lose. The kind comes from the plan alone, so the choice is the same for every caller; the table is
chosen on the dev sets (docs/retrieval-quality.md), never on a held-out question.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from query.plan import QueryPlan

KINDS = ("companies", "narrative", "no_period", "quarter", "years", "figure", "other")
ORDERS = ("learned", "rules")
TABLE = Path(__file__).with_name("page_order.yaml")


class PageOrderError(ValueError):
    """A page order table that does not read (one line naming the file and the key)."""


def question_kind(plan: QueryPlan) -> str:
    """The first that applies: several companies named; what drove a change; no period named; a quarter;
    several fiscal years; a figure asked for; anything else."""
    a = plan.analysis
    if len(a.entities) > 1:
        return "companies"
    if plan.narrative:
        return "narrative"
    if plan.target_year is None and not a.quarters:
        return "no_period"
    if a.quarters:
        return "quarter"
    if len(a.years) > 1:
        return "years"
    return "figure" if plan.figure else "other"


def parse_table(data: object, source: str = TABLE.name) -> dict[str, str]:
    if not isinstance(data, dict):
        raise PageOrderError(f"{source}: a mapping of question kinds to page orders is expected")
    unknown = sorted(set(map(str, data)) - set(KINDS))
    missing = [k for k in KINDS if k not in data]
    if unknown or missing:
        raise PageOrderError(f"{source}: kinds must be exactly {', '.join(KINDS)}"
                             + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                             + (f"; missing: {', '.join(missing)}" if missing else ""))
    bad = [k for k, v in data.items() if v not in ORDERS]
    if bad:
        raise PageOrderError(f"{source}: {bad[0]}: {data[bad[0]]!r} is not one of {', '.join(ORDERS)}")
    return {str(k): str(v) for k, v in data.items()}


@functools.lru_cache(maxsize=1)
def page_orders() -> dict[str, str]:
    return parse_table(yaml.safe_load(TABLE.read_text(encoding="utf-8")))


def page_order(plan: QueryPlan, ranker: str) -> str:
    """"learned" or "rules" for this question under the ``ranker`` option (``query.api.RANKERS``)."""
    if ranker == "rules":
        return "rules"
    if ranker == "learned-all":
        return "learned"
    return page_orders()[question_kind(plan)]
