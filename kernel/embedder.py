"""Text embeddings with sentence-transformers: an :class:`Embedder` owns its loaded model, offline, batched.

The query side is handed one ``Embedder`` (built in ``kernel.resources``), which loads its model on first
use and keeps it for its lifetime. The Spark jobs embed inside ``mapInPandas`` through
:func:`worker_embedder`: with ``spark.python.worker.reuse`` a Python worker keeps one ``Embedder`` per
spec across tasks, so each worker loads the model once. Both embed through ``Embedder.embed``, so
passages and questions are embedded alike. Backends: ``torch`` (fp32) or ``onnx-int8`` (the model
exported to ONNX and dynamically quantized to int8 on first use, cached under ``SECPLAT_MODEL_CACHE``).
"""

from __future__ import annotations

import functools
import os
import threading

import numpy as np

from kernel.models import DEFAULT_EMBEDDING_BACKEND, EmbeddingSpec, ModelError, offline, resolve_model


def load_model(name_or_path: str | None, backend: str = DEFAULT_EMBEDDING_BACKEND, threads: int | None = None):
    """The model for a configured name and backend, loaded now (an :class:`Embedder` keeps it). onnx-int8
    loads no torch (a first CLI query would spend seconds importing it): torch is imported only to export
    the model once."""
    offline()
    path = resolve_model(name_or_path)
    if backend == "onnx-int8":
        return _onnx_int8(path, threads)
    if backend != "torch":
        raise ValueError(f"unknown embedding backend {backend!r} (torch or onnx-int8)")
    import torch
    from sentence_transformers import SentenceTransformer

    if threads:
        torch.set_num_threads(threads)
    return SentenceTransformer(path, device="cpu")


def _onnx_int8(path: str, threads: int | None):
    """The model exported to ONNX and dynamically quantized to int8, from a per-model cache directory.

    sentence-transformers' own ONNX backend needs ``optimum-onnx``, which pins transformers below 5 and so
    cannot sit beside sentence-transformers 6 (see the README); the export here is the same recipe done
    with torch and onnxruntime directly: the transformer plus mean pooling as one graph, weights of every
    MatMul quantized to int8 per channel. The export runs once per model (file-locked, so concurrent Spark
    workers do not race) and is written to a temporary name, then renamed.
    """
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        raise ModelError("EMBEDDING_BACKEND=onnx-int8 needs the onnxruntime package (make install)") from None
    from kernel.onnx_export import quantized_model

    return OnnxEmbedder(path, quantized_model(path), threads)


class OnnxEmbedder:
    """The slice of SentenceTransformer's interface the jobs use, over an onnxruntime session."""

    def __init__(self, model_dir: str, onnx_path: str, threads: int | None):
        import onnxruntime as ort

        from kernel.models import token_counter

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or 0
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._max_len = token_counter(model_dir).max_seq_length
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self._tok.enable_truncation(self._max_len)
        self._dim = int(self._session.get_outputs()[0].shape[-1])

    def get_sentence_embedding_dimension(self) -> int:
        return self._dim

    def encode(self, texts: list[str], batch_size: int = 32, normalize_embeddings: bool = True,
               **_ignored) -> np.ndarray:
        """One model call per text, unpadded. Dynamic int8 quantization scales a call's activations by the
        whole input tensor, so a text embedded beside others would get a vector that depends on them (by
        ~0.01 cosine); alone, its vector depends on its text only, whatever the batch, partitioning or
        worker count, and no compute goes to padding. ``batch_size`` only bounds how many texts are
        tokenized at once."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for start in range(0, len(texts), max(1, batch_size)):
            for offset, e in enumerate(self._tok.encode_batch(texts[start:start + batch_size])):
                feed = {"input_ids": [e.ids], "attention_mask": [e.attention_mask], "token_type_ids": [e.type_ids]}
                out[start + offset] = self._session.run(
                    None, {k: np.asarray(v, dtype=np.int64) for k, v in feed.items() if k in self._inputs})[0][0]
        if normalize_embeddings:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


class Embedder:
    """One embedding model on one backend, as configured (``Settings.embedding()``): loads its model on first
    use and keeps it. What the query side is handed, so a question is embedded exactly like the passages it
    is compared with."""

    def __init__(self, spec: EmbeddingSpec, threads: int | None = None):
        self.spec, self.threads = spec, threads
        self._model = None
        self._lock = threading.Lock()  # the HTTP server's threads share one Embedder: one load

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                self._model = load_model(self.spec.model, self.spec.backend, self.threads)
            return self._model

    def dimension(self) -> int:
        return self.model.get_sentence_embedding_dimension()

    def embed(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        model = self.model
        if not texts:
            return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
        vectors = model.encode(texts, batch_size=batch_size or self.spec.batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
        return vectors.astype(np.float32, copy=False)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


_WORKER_EMBEDDERS: dict[tuple[EmbeddingSpec, int | None], Embedder] = {}
_WORKER_LOCK = threading.Lock()


def worker_embedder(spec: EmbeddingSpec, threads: int | None = None) -> Embedder:
    """This Python process's Embedder for a spec: a reused Spark worker runs many tasks, and each must not
    load the model again (a task's closure is unpickled anew, so it cannot hold the model itself)."""
    with _WORKER_LOCK:
        return _WORKER_EMBEDDERS.setdefault((spec, threads), Embedder(spec, threads))


def embed_texts(texts: list[str], name_or_path: str | None, backend: str = DEFAULT_EMBEDDING_BACKEND,
                batch_size: int = 32, threads: int | None = None) -> np.ndarray:
    """Unit-length float32 vectors, one row per text, from this process's worker Embedder (Spark jobs,
    benchmarks)."""
    spec = EmbeddingSpec(name_or_path or EmbeddingSpec().model, backend, batch_size)
    return worker_embedder(spec, threads).embed(texts)


@functools.lru_cache(maxsize=2)
def cross_encoder(name_or_path: str):
    """A cross-encoder with one relevance logit (an optional reranker; none ships with weights on PyPI)."""
    offline()
    from sentence_transformers import CrossEncoder

    return CrossEncoder(resolve_model(name_or_path), device="cpu", num_labels=1)
