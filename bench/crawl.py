"""Crawl benchmark: filings/s and requests/s against the local EDGAR mirror, with the 10/s limit and lifted.

    make bench            # or: python -m bench.crawl [--mirror DIR]

Writes bench/results/crawl.json and prints a table. Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench import save_results
from etl.crawl import CrawlOptions, open_crawler
from kernel.settings import load_settings, shared_dir


def run_once(mirror: Path, rate: float, workers: int) -> dict:
    tickers = sorted({line.split("\t")[0] for line in (mirror / "manifest.tsv").read_text().splitlines()[1:]})
    with tempfile.TemporaryDirectory() as lake_dir:
        s = load_settings(lake_root=lake_dir, edgar_mirror=str(mirror), universe_tickers=",".join(tickers),
                          crawl_workers=workers)
        with open_crawler(s.open_lake(), CrawlOptions.from_settings(s, edgar_rate_limit=rate)) as (crawler, companies, _):
            start = time.perf_counter()
            report = crawler.run(companies)
            wall = time.perf_counter() - start
            http = crawler.http
    return {
        "rate_limit": rate, "workers": workers, "filings": report.fetched, "requests": http.stats.requests,
        "wall_s": round(wall, 2), "filings_per_s": round(report.fetched / wall, 2),
        "requests_per_s": round(http.stats.requests / wall, 2), "MB": round(http.stats.bytes / 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = shared_dir() / "edgar-mirror" if shared_dir() else None
    parser.add_argument("--mirror", type=Path, default=default)
    args = parser.parse_args()
    if not args.mirror or not args.mirror.is_dir():
        raise SystemExit("no mirror: pass --mirror DIR (../shared/edgar-mirror)")
    rows = [run_once(args.mirror, 10.0, 4), run_once(args.mirror, 10_000.0, 4), run_once(args.mirror, 10_000.0, 8)]
    print(f"{'limit/s':>8} {'workers':>7} {'filings':>7} {'requests':>8} {'wall s':>7} {'filings/s':>9} {'req/s':>7}")
    for r in rows:
        limit = "none" if r["rate_limit"] > 1000 else f"{r['rate_limit']:g}"
        print(f"{limit:>8} {r['workers']:>7} {r['filings']:>7} {r['requests']:>8} {r['wall_s']:>7} "
              f"{r['filings_per_s']:>9} {r['requests_per_s']:>7}")
    save_results("crawl", rows)


if __name__ == "__main__":
    main()
