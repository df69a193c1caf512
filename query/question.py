"""A question as every retrieval stage reads it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernel.search import Filters
from query.api import RetrievalOptions
from query.plan import QueryPlan
from query.snapshot import Snapshot


@dataclass(frozen=True)
class Question:
    """What every stage reads: the text searched, its plan, its vector, the caller's filters and options,
    and the release snapshot every engine call of this query reads."""

    text: str
    plan: QueryPlan
    vector: np.ndarray
    filters: Filters | None
    opts: RetrievalOptions
    snap: Snapshot
