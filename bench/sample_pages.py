"""Pages drawn at random from a lake, to write held-out questions over: one page per company, from its 10-K,
10-Q and release (EX-99) pages of at least ``MIN_CHARS`` characters, from the fourth page to 85% of the
document (past the cover and contents, before the exhibit index), skipping pages already used as gold by the
sets given with ``--exclude``. A question is then written per page after reading it; the page is its gold.

    python -m bench.sample_pages --lake <lake> --seed 20261128 --exclude bench/data/edgar_sealed.jsonl

Prints each drawn page's name and text (to read), never a question: those are written by hand.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict

import pyarrow.dataset as ds

from domain.rules import PERIODIC
from kernel.settings import load_settings
from shell.client import open_retriever

MIN_CHARS = 1200
FIRST_PAGE = 3  # 0-based: the fourth page
LAST_SHARE = 0.85


def _used(paths: list[str]) -> set[tuple[str, int]]:
    out = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in filter(str.strip, fh):
                for ev in json.loads(line).get("evidences") or []:
                    out.add((ev["doc_name"], int(ev["page_num"])))
    return out


def _drawn_from(doc) -> bool:
    """A 10-K, a 10-Q, or a release filed as an 8-K's EX-99 exhibit (an earnings release or another)."""
    return doc.form in PERIODIC or (doc.exhibit_type or "").upper().startswith("EX-99")


def draw(lake: str, seed: int, exclude: list[str]) -> list[tuple[str, int, str]]:
    """(doc_name, page, text) of one random page per company, in ticker order."""
    docs = open_retriever(load_settings(lake_root=lake)).snapshot().catalog.docs
    used = _used(exclude)
    pages = ds.dataset(f"{lake}/datasets/pages", format="parquet", partitioning="hive")
    by_company: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for row in pages.to_table(columns=["doc_id", "page", "text", "char_count"]).to_pylist():
        doc = docs.get(row["doc_id"])
        if doc is None or not _drawn_from(doc) or row["char_count"] < MIN_CHARS:
            continue
        name = doc.doc_name or doc.doc_id
        if FIRST_PAGE <= row["page"] <= LAST_SHARE * doc.page_count and (name, row["page"]) not in used:
            by_company[doc.ticker or name].append((name, row["page"], row["text"]))
    rng = random.Random(seed)
    return [rng.choice(sorted(by_company[t], key=lambda p: p[:2])) for t in sorted(by_company)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--chars", type=int, default=2500, help="how much of each page to print")
    args = ap.parse_args()
    for name, page, text in draw(args.lake, args.seed, args.exclude):
        print(f"##### {name} p{page}\n{' | '.join(text[:args.chars].splitlines())}")


if __name__ == "__main__":
    main()
