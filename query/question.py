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
    """What every stage reads: the text searched, its plan, its vectors, the caller's filters and options,
    and the release snapshot every engine call of this query reads.

    Two vectors: ``vector`` (the question's, which chooses documents: its company and form count there) and
    ``page_vector`` (its lexical text's, ``plan.lexical``: no company name, form or unit word), which searches
    the pages of the chosen documents. Inside them the name and the form only pull the pages printing them
    near (the exhibit list, MD&A's opening, the cover), and the dense model cannot weigh what the question
    is about when it is a name it does not know ("reliance on TSMC")."""

    text: str
    plan: QueryPlan
    vector: np.ndarray
    filters: Filters | None
    opts: RetrievalOptions
    snap: Snapshot
    page_vector: np.ndarray
