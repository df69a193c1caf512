"""Discovery cost of a historical window over the whole universe: requests to EDGAR with the quarterly
full index (the default for a window at least a week old) and with one submissions JSON per company (what
daily windows use), against the local mirror.

    python -m bench.discovery [--mirror DIR] [--from 2024-01-01] [--to 2024-12-31]

Both paths must find the same filings. Writes bench/results/discovery.json. Not a test.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
import time
from pathlib import Path

from bench import save_results
from etl.crawl import CrawlOptions, open_crawler
from etl.crawl.report import CrawlReport
from kernel.settings import load_settings, shared_dir


def discover(mirror: Path, universe_csv: str, start: dt.date, end: dt.date, full_index: bool) -> dict:
    """One dry-run discovery of the window; ``full_index=False`` pretends the window is today's."""
    with tempfile.TemporaryDirectory() as lake_dir:
        s = load_settings(lake_root=lake_dir, edgar_mirror=str(mirror), universe_csv=universe_csv,
                          universe_tickers="ALL", filed_from=start, filed_to=end)
        options = CrawlOptions.from_settings(s, edgar_rate_limit=1000.0, as_of=end)
        with open_crawler(s.open_lake(), options) as (crawler, companies, _):
            if not full_index:
                crawler.today = end  # the window is not history yet: submissions for every company
            before = crawler.http.stats.requests
            started = time.perf_counter()
            report = CrawlReport(companies=len(companies), dry_run=True)
            found = crawler.discover(companies, report)
            requests = crawler.http.stats.requests - before
    return {"path": "full index" if full_index else "submissions per company", "companies": len(companies),
            "requests": requests, "filings": len(found), "seconds_at_10_per_s": round(requests / 10, 1),
            "wall_s": round(time.perf_counter() - started, 1),
            "found": sorted(r.accession for _, r in found)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    shared = shared_dir()
    parser.add_argument("--mirror", type=Path, default=shared / "edgar-mirror" if shared else None)
    parser.add_argument("--universe", default=str(shared / "universe/sp500_constituents.csv") if shared else None)
    parser.add_argument("--from", dest="start", type=dt.date.fromisoformat, default=dt.date(2024, 1, 1))
    parser.add_argument("--to", dest="end", type=dt.date.fromisoformat, default=dt.date(2024, 12, 31))
    args = parser.parse_args()
    if args.mirror is None:
        raise SystemExit("error: no mirror (set SECPLAT_SHARED or pass --mirror)")
    rows = [discover(args.mirror, args.universe, args.start, args.end, full) for full in (False, True)]
    if rows[0]["found"] != rows[1]["found"]:
        raise SystemExit("error: the two discovery paths found different filings")
    for row in rows:
        row.pop("found")
    print(json.dumps(rows, indent=1))
    save_results("discovery", rows)


if __name__ == "__main__":
    main()
