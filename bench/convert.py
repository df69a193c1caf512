"""Conversion benchmark: seconds per filing (render, extract), pages/s and peak RSS over the mirror.

    make bench            # or: python -m bench.convert [--mirror DIR] [--workers N] [--pdf-dir DIR]

The mirror is crawled into a temporary lake first (not timed). Each run happens in a fresh process so
peak RSS is the run's own: ``self`` is the Python process (PyMuPDF paging), ``children`` the largest
wkhtmltopdf. The iXBRL facts column is the fact extraction's time and its share of the rest of conversion
(with 2 workers its threads also wait on each other's GIL, so the 1-worker share is the cost per filing). Writes bench/results/convert.json and prints a table. Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import save_results
from etl import convert, crawl
from etl.convert import ConvertOptions
from kernel.settings import load_settings, shared_dir
from kernel.storage import open_lake


def crawl_into(mirror: Path, lake_dir: str) -> int:
    tickers = sorted({line.split("\t")[0] for line in (mirror / "manifest.tsv").read_text().splitlines()[1:]})
    s = load_settings(lake_root=lake_dir, edgar_mirror=str(mirror), universe_tickers=",".join(tickers))
    return crawl.run(s.open_lake(), crawl.CrawlOptions.from_settings(s, edgar_rate_limit=10_000.0)).fetched


def measure(lake_dir: str, workers: int, pdf_dir: str | None) -> dict:
    """One conversion run (called in a child process)."""
    lake = open_lake(lake_dir)
    start = time.perf_counter()
    report = convert.run(lake, ConvertOptions(workers=workers, pdf_dirs=(Path(pdf_dir),) if pdf_dir else ()))
    wall = time.perf_counter() - start
    return {"workers": workers, "source": "pdf" if pdf_dir else "html", "converted": report.converted,
            "quarantined": report.quarantined, "wall_s": round(wall, 1),
            "docs_per_s": round(report.converted / wall, 2), **report.stats(),
            "peak_rss_mb_self": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "peak_rss_mb_children": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)}


def in_child(lake_dir: str, workers: int, pdf_dir: str | None = None) -> dict:
    args = [sys.executable, "-m", "bench.convert", "--child", lake_dir, "--workers", str(workers)]
    if pdf_dir:
        args += ["--pdf-dir", pdf_dir]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    shared = shared_dir()
    parser.add_argument("--mirror", type=Path, default=shared / "edgar-mirror" if shared else None)
    parser.add_argument("--pdf-dir", default=str(shared / "eval/financebench/pdfs") if shared else None)
    parser.add_argument("--workers", type=int, default=0, help="one run with N workers (default: 1 and 2)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.workers or 1, args.pdf_dir if args.pdf_dir != "-" else None)))
        return
    if not args.mirror or not args.mirror.is_dir():
        raise SystemExit("no mirror: pass --mirror DIR (../shared/edgar-mirror)")
    rows = []
    for workers in [args.workers] if args.workers else [1, 2]:
        with tempfile.TemporaryDirectory() as lake_dir:
            crawl_into(args.mirror, lake_dir)
            rows.append(in_child(lake_dir, workers, "-"))
    if args.pdf_dir and Path(args.pdf_dir).is_dir():
        with tempfile.TemporaryDirectory() as lake_dir:
            rows.append(in_child(lake_dir, 2, args.pdf_dir))
    print(f"{'source':>6} {'workers':>7} {'docs':>5} {'pages':>6} {'wall s':>7} {'render med/p95 s':>17} "
          f"{'extract med/p95 s':>18} {'pages/s render':>14} {'pages/s extract':>15} {'RSS MB self/child':>17} "
          f"{'iXBRL facts s (share)':>21}")
    for r in rows:
        rs, ex, fx = r.get("render_s", {}), r.get("extract_s", {}), r.get("facts_s", {})
        print(f"{r['source']:>6} {r['workers']:>7} {r['converted']:>5} {r.get('pages', 0):>6} {r['wall_s']:>7} "
              f"{rs.get('median', 0):>8}/{rs.get('p95', 0):<8} {ex.get('median', 0):>9}/{ex.get('p95', 0):<8} "
              f"{r.get('pages_per_s_render') or '-':>14} {r.get('pages_per_s_extract') or '-':>15} "
              f"{r['peak_rss_mb_self']:>8}/{r['peak_rss_mb_children']:<8} "
              f"{fx.get('total', 0):>12} ({fx.get('share') or 0:.1%})")
    save_results("convert", rows)


if __name__ == "__main__":
    main()
