"""One check for "the same index dataset" across runs on different engines or storage (Spark standalone
against local, S3 against local disk, Celery against `secplat run`)."""

from __future__ import annotations

import numpy as np


def assert_same_rows(ours, theirs, name: str, atol: float = 0.0) -> None:
    """Both Arrow tables (sorted alike) hold rows, as many, every column equal but the vectors, and those
    equal bit for bit (the default int8 backend embeds each text alone: a vector depends on its text only),
    or within ``atol`` (fp32 through sentence-transformers pads a batch: ~1e-7)."""
    assert ours.num_rows > 0 and ours.num_rows == theirs.num_rows, name
    columns = [c for c in theirs.column_names if c != "vector"]
    assert ours.select(columns).to_pylist() == theirs.select(columns).to_pylist(), name
    if "vector" in theirs.column_names:
        a = np.stack(ours.column("vector").to_numpy(zero_copy_only=False))
        b = np.stack(theirs.column("vector").to_numpy(zero_copy_only=False))
        same = np.array_equal(a, b) if atol == 0 else np.allclose(a, b, rtol=0, atol=atol)
        assert same, f"{name}: vectors differ by {np.abs(a - b).max()}"
