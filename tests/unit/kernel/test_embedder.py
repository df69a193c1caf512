"""The embedding backends: fp32 torch and the locally exported int8 ONNX model agree on real filing text."""

from __future__ import annotations

import numpy as np

from kernel.embedder import Embedder
from kernel.models import EmbeddingSpec, resolve_model
from kernel.onnx_export import cache_root, quantized_model

TEXTS = [
    "Net operating revenues grew 6% in 2023, driven by favorable pricing initiatives.",
    "Item 1A. Risk Factors. Changes in consumer preferences could adversely affect our business.",
    "Cash and cash equivalents | 9,366 | 9,519 / Short-term investments | 2,997 | 1,043",
    "",
    "The Company is party to various legal proceedings " * 40,  # longer than the model's 256 tokens
]


def embedder(backend: str, batch_size: int = 32, threads: int | None = None) -> Embedder:
    """A fresh Embedder: it loads its own model (into the cache the test set)."""
    return Embedder(EmbeddingSpec(backend=backend, batch_size=batch_size), threads)


def test_onnx_int8_matches_fp32(tmp_path, monkeypatch):
    monkeypatch.setenv("SECPLAT_MODEL_CACHE", str(tmp_path / "models"))
    torch32, onnx8 = embedder("torch", 2, 1), embedder("onnx-int8", 2, 1)
    fp32, int8 = torch32.embed(TEXTS), onnx8.embed(TEXTS)
    assert int8.shape == fp32.shape == (len(TEXTS), 384) and int8.dtype == np.float32
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    cosine = (fp32 * int8).sum(axis=1)
    assert cosine.min() > 0.97, cosine
    # the same ranking for a question over these passages
    q32, q8 = torch32.embed(["How much did revenues grow?"]), onnx8.embed(["How much did revenues grow?"])
    assert np.argmax(fp32 @ q32[0]) == np.argmax(int8 @ q8[0]) == 0
    # exported once, into the configured cache, under a key of the model's files
    path = quantized_model(resolve_model(None))
    assert path.startswith(str(cache_root())) and len(list(cache_root().glob("*/model_int8.onnx"))) == 1


def test_a_vector_depends_on_its_text_only():
    """The default backend's vector of a text is the same bit for bit alone, inside any batch, at any batch
    size and position (int8's dynamic quantization would otherwise scale it by its batch-mates)."""
    two, one = embedder("onnx-int8", threads=2), embedder("onnx-int8", threads=1)
    texts = TEXTS + [f"Segment {i}: operating income rose {i}% on higher volume and pricing." for i in range(9)]
    alone = np.stack([two.embed_one(t) for t in texts])
    for batch_size in (3, 32):
        together = two.embed(texts, batch_size)
        assert np.array_equal(together, alone), np.abs(together - alone).max()
    reversed_order = one.embed(texts[::-1], 4)[::-1]
    assert np.array_equal(reversed_order, alone), np.abs(reversed_order - alone).max()  # one thread, too
