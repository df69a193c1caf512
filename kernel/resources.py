"""The clients one process uses, built once by the composition root and passed in.

The shell (the CLI, the HTTP app factory, the Airflow task functions) makes one ``Resources`` per process
from the settings; stages and the query side receive it and never open a client themselves. Each client is
made on first use, so a command that only lists index versions loads no model, and a test hands in the one
client it has (``Resources(lake=lake)``). The kernel's factories behind it (``Settings.open_lake``,
``open_backend``, ``Embedder``, ``llm.from_settings``) are the only other places a client is constructed
(``tests/unit/test_layers.py`` checks).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported on first use: parsing a DAG or starting the CLI loads no client library
    from kernel.embedder import Embedder
    from kernel.llm import TextModel
    from kernel.search import SearchBackend
    from kernel.settings import Settings
    from kernel.storage import Lake


class Resources:
    """Lake, search backend, embedder and LLM client of one process (each built on first use)."""

    def __init__(self, settings: Settings | None = None, *, lake: Lake | None = None,
                 backend: SearchBackend | None = None, embedder: Embedder | None = None,
                 text_model: TextModel | None = None):
        self._settings = settings
        given = {"lake": lake, "backend": backend, "embedder": embedder, "llm": text_model}
        self.__dict__.update({k: v for k, v in given.items() if v is not None})  # cached_property reads these

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            raise RuntimeError("these resources were built without settings: pass the client this needs")
        return self._settings

    @cached_property
    def lake(self) -> Lake:
        return self.settings.open_lake()

    @cached_property
    def backend(self) -> SearchBackend:
        from kernel.search import open_backend

        return open_backend(self.settings)

    @cached_property
    def timed_backend(self) -> SearchBackend:
        """The same backend behind a wrapper that books its read calls to the open query clock
        (``kernel.timing``): what the query side searches through."""
        from kernel.timing import TimedBackend

        return TimedBackend(self.backend)  # type: ignore[return-value]

    @cached_property
    def embedder(self) -> Embedder:
        from kernel.embedder import Embedder

        return Embedder(self.settings.embedding())

    @cached_property
    def llm(self) -> TextModel | None:
        """The configured LLM endpoint's client, or None without one (every stage has a path without it)."""
        from kernel import llm

        return llm.from_settings(self._settings) if self._settings is not None else None
