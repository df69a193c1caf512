"""The segmentation stage's options, from the settings: the model's token counter and the chunk sizes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from etl.segment.chunking import ChunkConfigError, ChunkOptions
from kernel.models import ModelError, TokenCounter, token_counter
from kernel.run_policy import check_batch
from kernel.settings import ConfigError, Settings

STAGE = "segment"


SEGMENTER_VERSION = "7"  # 2: Items over page ranges, 10-Q title headings; 3: each page chunked once;
# 4: an annual report (EX-13) as the 10-K Items its sections hold; 5: an index naming one page per Item gives
# where each starts (McDonald's); 6: a "Part I, Item 1A, ..." reference is no 10-Q's PART I heading (JPMorgan);
# 7: a 10-Q whose contents put MD&A first gets Part I's Items 1 and 2 from the contents' page numbers (JPMorgan)


@dataclass
class SegmentOptions:
    """How documents are chunked: sizes in the embedding model's own tokens (``counter``, from ``model``)."""

    counter: TokenCounter
    chunk: ChunkOptions
    model: str  # the tokenizer's model: part of every chunk fingerprint
    workers: int = 1
    progress: Callable[[Iterable, str, int], Iterable] | None = None
    batch: tuple[int, int] | None = None  # (index, count): only the companies of that batch (domain.rules)

    @classmethod
    def from_settings(cls, settings: Settings, progress=None, batch: tuple[int, int] | None = None) -> SegmentOptions:
        """Refuses (ConfigError) a model without a tokenizer or chunk sizes beyond the model's limit."""
        try:
            model = settings.embedding().model
            counter = token_counter(model)
            chunk = ChunkOptions(tokens=settings.chunk_tokens, overlap=settings.chunk_overlap)
            chunk.check(counter)
        except (ModelError, ChunkConfigError) as exc:
            raise ConfigError(str(exc)) from None
        return cls(counter, chunk, model, settings.segment_workers, progress, check_batch(batch))
