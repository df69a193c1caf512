"""The publish stage's options."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kernel.settings import Settings


@dataclass
class PublishOptions:
    """How to publish: upsert into the live versions, or ``rebuild`` new ones; ``keep_versions`` previous
    versions stay for rollback (where: the backend passed to :func:`run`)."""

    rebuild: bool = False
    keep_versions: int = 2
    progress: Callable[[Iterable, str, int], Iterable] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, rebuild: bool = False, progress=None) -> PublishOptions:
        return cls(rebuild, settings.search_keep_versions, progress)
