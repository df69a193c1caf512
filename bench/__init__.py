"""Benchmarks (`make bench`): numbers for the closing notes and the README, never timed tests."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def save_results(name: str, data) -> Path:
    """bench/results/<name>.json"""
    out = RESULTS / f"{name}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(data, indent=2))
    return out
