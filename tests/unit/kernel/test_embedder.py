"""The embedding backends: fp32 torch and the locally exported int8 ONNX model agree on real filing text."""

from __future__ import annotations

import numpy as np

from kernel.embedder import embed_texts, load_model
from kernel.models import resolve_model
from kernel.onnx_export import cache_root, quantized_model

TEXTS = [
    "Net operating revenues grew 6% in 2023, driven by favorable pricing initiatives.",
    "Item 1A. Risk Factors. Changes in consumer preferences could adversely affect our business.",
    "Cash and cash equivalents | 9,366 | 9,519 / Short-term investments | 2,997 | 1,043",
    "",
    "The Company is party to various legal proceedings " * 40,  # longer than the model's 256 tokens
]


def test_onnx_int8_matches_fp32(tmp_path, monkeypatch):
    monkeypatch.setenv("SECPLAT_MODEL_CACHE", str(tmp_path / "models"))
    load_model.cache_clear()
    fp32 = embed_texts(TEXTS, None, "torch", 2, 1)
    int8 = embed_texts(TEXTS, None, "onnx-int8", 2, 1)
    assert int8.shape == fp32.shape == (len(TEXTS), 384) and int8.dtype == np.float32
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    cosine = (fp32 * int8).sum(axis=1)
    assert cosine.min() > 0.97, cosine
    # the same ranking for a question over these passages
    q32, q8 = embed_texts(["How much did revenues grow?"], None, "torch"), embed_texts(
        ["How much did revenues grow?"], None, "onnx-int8")
    assert np.argmax(fp32 @ q32[0]) == np.argmax(int8 @ q8[0]) == 0
    # exported once, into the configured cache, under a key of the model's files
    path = quantized_model(resolve_model(None))
    assert path.startswith(str(cache_root())) and len(list(cache_root().glob("*/model_int8.onnx"))) == 1
    load_model.cache_clear()


def test_a_vector_depends_on_its_text_only():
    """The default backend's vector of a text is the same bit for bit alone, inside any batch, at any batch
    size and position (int8's dynamic quantization would otherwise scale it by its batch-mates)."""
    load_model.cache_clear()
    texts = TEXTS + [f"Segment {i}: operating income rose {i}% on higher volume and pricing." for i in range(9)]
    alone = np.stack([embed_texts([t], None, "onnx-int8", 32, 2)[0] for t in texts])
    for batch_size in (3, 32):
        together = embed_texts(texts, None, "onnx-int8", batch_size, 2)
        assert np.array_equal(together, alone), np.abs(together - alone).max()
    reversed_order = embed_texts(texts[::-1], None, "onnx-int8", 4, 1)[::-1]
    assert np.array_equal(reversed_order, alone), np.abs(reversed_order - alone).max()  # one thread, too
