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
    ``page_vector`` (:func:`page_vector`: the question's with its lexical text's, ``plan.lexical``,
    which has no company name, form or unit word), which searches the pages of the chosen documents."""

    text: str
    plan: QueryPlan
    vector: np.ndarray
    filters: Filters | None
    opts: RetrievalOptions
    snap: Snapshot
    page_vector: np.ndarray


def page_vector(vectors: np.ndarray) -> np.ndarray:
    """The vector pages are searched by: the mean of the question's (``vectors[0]``) and its lexical text's
    (``vectors[-1]``; the same row when the two texts are one), at unit length. Inside the chosen documents
    the company's name and the form's only pull near the pages that print them (the exhibit list, MD&A's
    opening, the cover), and the dense model cannot weigh what the question is about when it is a name it
    does not know ("reliance on TSMC"); the lexical text alone loses what the question's wording says of the
    answer (measured: each alone lost pages the mean keeps)."""
    mean = vectors[0].astype(np.float32) + vectors[-1].astype(np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else vectors[0]
