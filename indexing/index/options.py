"""The index stage's options: the embedding model and where Spark runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kernel.models import EmbeddingSpec
from kernel.settings import Settings


@dataclass(frozen=True)
class IndexOptions:
    """What the index jobs need: the embedding model and where Spark runs."""

    embedding: EmbeddingSpec = field(default_factory=EmbeddingSpec)
    spark_master: str = "local[*]"
    driver_memory: str = "4g"
    shuffle_partitions: int = 4
    progress: Callable[[Iterable, str, int], Iterable] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, progress=None) -> IndexOptions:
        return cls(settings.embedding(), settings.spark_master, settings.spark_driver_memory,
                   settings.spark_shuffle_partitions, progress)
