"""One check for "the same index dataset" across runs on different engines or storage (Spark standalone
against local, S3 against local disk, Celery against `secplat run`)."""

from __future__ import annotations

import numpy as np


def assert_same_rows(ours, theirs, name: str, atol: float) -> None:
    """Both Arrow tables (sorted alike) hold rows, as many, every column equal but the vectors, and those
    within ``atol`` (fp32 vectors agree to that across batchings; int8 ones would not)."""
    assert ours.num_rows > 0 and ours.num_rows == theirs.num_rows, name
    columns = [c for c in theirs.column_names if c != "vector"]
    assert ours.select(columns).to_pylist() == theirs.select(columns).to_pylist(), name
    if "vector" in theirs.column_names:
        a = np.stack(ours.column("vector").to_numpy(zero_copy_only=False))
        b = np.stack(theirs.column("vector").to_numpy(zero_copy_only=False))
        assert np.allclose(a, b, atol=atol), f"{name}: vectors differ by {np.abs(a - b).max()}"
