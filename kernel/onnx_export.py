"""A local int8 ONNX export of a sentence-transformers model (mean pooling inside the graph), made once.

Exported from the offline model with ``torch.onnx`` and quantized with onnxruntime's dynamic
quantization (int8 weights of the MatMuls, activations quantized per batch at run time). The result lives
in ``SECPLAT_MODEL_CACHE`` (default ``~/.cache/secplat/models``) under a key of the model's files, so a
changed model gets a new export; concurrent processes wait on a file lock instead of exporting twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from pathlib import Path

from kernel.models import ModelError

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXPORT_VERSION = "1"  # bump when the export recipe changes


def cache_root() -> Path:
    return Path(os.environ.get("SECPLAT_MODEL_CACHE") or Path.home() / ".cache" / "secplat" / "models")


def _model_key(model_dir: Path) -> str:
    digest = hashlib.sha256(EXPORT_VERSION.encode())
    for f in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        stat = f.stat()
        digest.update(f"{f.relative_to(model_dir)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return f"{model_dir.name}-{digest.hexdigest()[:12]}"


def quantized_model(model_dir: str) -> str:
    """Path of the int8 ONNX model for a local model directory, exporting it on first use."""
    src = Path(model_dir)
    target = cache_root() / _model_key(src)
    model = target / "model_int8.onnx"
    if model.exists():
        return str(model)
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not model.exists():
            _export(src, target, model)
    return str(model)


def _pooling_mode(model_dir: Path) -> str:
    config = model_dir / "1_Pooling" / "config.json"
    if not config.exists():
        return "mean"
    modes = json.loads(config.read_text())
    for mode in ("pooling_mode_mean_tokens", "pooling_mode_cls_token"):
        if modes.get(mode):
            return mode.split("_")[2]
    raise ModelError(f"{model_dir}: only mean or CLS pooling can be exported to ONNX here")


def _export(src: Path, target: Path, model: Path) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    pooling = _pooling_mode(src)
    encoder = AutoModel.from_pretrained(str(src)).eval()

    class Pooled(torch.nn.Module):
        """Transformer plus the model's pooling: one graph from token ids to the sentence vector."""

        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            if pooling == "cls":
                return hidden[:, 0]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    sample = torch.ones((2, 8), dtype=torch.long)
    with tempfile.TemporaryDirectory(dir=target) as tmp:
        fp32 = Path(tmp) / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(Pooled(), (sample, sample, torch.zeros_like(sample)), str(fp32),
                              input_names=list(INPUTS), output_names=["sentence_embedding"],
                              dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in INPUTS},
                                            "sentence_embedding": {0: "batch"}},
                              opset_version=17, dynamo=False)
        int8 = Path(tmp) / "model_int8.onnx"
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        os.replace(int8, model)
