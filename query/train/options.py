"""The train stage's options."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kernel.settings import Settings


@dataclass(frozen=True)
class TrainOptions:
    """``ranker``: the configured page ranker (nothing to train with the rules); ``limit``: most training
    questions; ``force``: train even when the live release has a model."""

    ranker: str = "learned"
    limit: int | None = None
    force: bool = False
    progress: Callable[[Iterable, str, int], Iterable] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, limit: int | None = None, force: bool = False,
                      progress=None) -> TrainOptions:
        return cls(settings.page_ranker, limit or settings.ranker_train_questions, force, progress)
