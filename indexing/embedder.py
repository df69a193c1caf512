"""Text embeddings with sentence-transformers: one loaded model per process, offline, batched.

The Spark jobs call :func:`embed_texts` inside ``mapInPandas``; with ``spark.python.worker.reuse`` each
Python worker loads the model once and keeps it. The query side uses the same function for questions, so
passages and questions are embedded alike. Backends: ``torch`` (fp32) or ``onnx-int8`` (the model
exported to ONNX and dynamically quantized to int8 on first use, cached beside the lake's models dir).
"""

from __future__ import annotations

import functools
import os
import threading

import numpy as np

from secplat.models import ModelError, offline, resolve_model

_lock = threading.Lock()


@functools.lru_cache(maxsize=2)
def load_model(name_or_path: str | None, backend: str = "torch", threads: int | None = None):
    """The SentenceTransformer for a configured model (cached per process)."""
    offline()
    import torch
    from sentence_transformers import SentenceTransformer

    if threads:
        torch.set_num_threads(threads)
    path = resolve_model(name_or_path)
    if backend == "torch":
        return SentenceTransformer(path, device="cpu")
    if backend == "onnx-int8":
        return _onnx_int8(path)
    raise ValueError(f"unknown embedding backend {backend!r} (torch or onnx-int8)")


def _onnx_int8(path: str):
    """The model as dynamically quantized int8 ONNX, exported once into a cache directory."""
    try:
        import onnxruntime  # noqa: F401
        import optimum  # noqa: F401
    except ImportError:
        raise ModelError("EMBEDDING_BACKEND=onnx-int8 needs the onnxruntime and optimum packages") from None
    from sentence_transformers import SentenceTransformer, export_dynamic_quantized_onnx_model

    cache = os.path.join(os.environ.get("SECPLAT_MODEL_CACHE", os.path.expanduser("~/.cache/secplat/models")),
                         os.path.basename(path.rstrip("/")) + "-onnx")
    quantized = os.path.join(cache, "onnx", "model_qint8_avx2.onnx")
    with _lock:
        if not os.path.exists(quantized):
            import shutil

            shutil.copytree(path, cache, dirs_exist_ok=True)
            model = SentenceTransformer(cache, device="cpu", backend="onnx")
            model.save(cache)  # writes onnx/model.onnx
            export_dynamic_quantized_onnx_model(model, "avx2", cache)
    return SentenceTransformer(cache, device="cpu", backend="onnx",
                               model_kwargs={"file_name": "onnx/model_qint8_avx2.onnx"})


def embed_texts(texts: list[str], name_or_path: str | None, backend: str = "torch", batch_size: int = 32,
                threads: int | None = None) -> np.ndarray:
    """Unit-length float32 vectors, one row per text."""
    model = load_model(name_or_path, backend, threads)
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                           show_progress_bar=False)
    return vectors.astype(np.float32, copy=False)


def dimension(name_or_path: str | None, backend: str = "torch") -> int:
    return load_model(name_or_path, backend).get_sentence_embedding_dimension()
