"""``secplat``: the one command-line entry point. Each stage adds a subcommand.

Errors print as one line (``error: ...``) with a non-zero exit code: 2 for configuration or usage,
3 for the environment (unreachable host, unwritable lake), 1 when a run finished with problems.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from kernel.run_policy import check_batch
from kernel.settings import ConfigError, Settings, load_settings, settings_help
from shell.runner import run_nightly, run_stage

EXIT_PROBLEMS, EXIT_CONFIG, EXIT_ENV = 1, 2, 3
EXIT_PIPE = 128 + 13  # SIGPIPE's: the reader of our output went away


def progress(iterable: Iterable, desc: str, total: int) -> Iterable:
    """A progress bar on stderr when a person is watching (or SECPLAT_PROGRESS=1)."""
    enabled = sys.stderr.isatty() or os.environ.get("SECPLAT_PROGRESS") == "1"
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, unit="item", file=sys.stderr, dynamic_ncols=True)


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="settings file (TOML/YAML/JSON); default: $SECPLAT_CONFIG")
    p.add_argument("--lake", dest="lake_root", help="lake root: local path or s3://bucket/prefix")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")


def _add_crawl_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tickers", dest="universe_tickers", help="comma-separated tickers, or ALL")
    p.add_argument("--forms", help="comma-separated forms (10-K,10-Q,8-K)")
    p.add_argument("--from", dest="filed_from", type=_date, help="first filing date (inclusive)")
    p.add_argument("--to", dest="filed_to", type=_date, help="last filing date (inclusive)")
    p.add_argument("--mirror", dest="edgar_mirror", help="serve this SEC-layout directory locally and crawl it")
    p.add_argument("--as-of", type=_date, help="with --mirror: serve only filings filed on or before this date")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="secplat",
        description="SEC filings platform: crawl EDGAR into a lake and build searchable indexes.",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("config", help="print the validated settings as JSON", epilog=settings_help(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_common(p)

    p = sub.add_parser("crawl", help="crawl EDGAR filings of the universe into the raw lake")
    _add_common(p)
    _add_crawl_args(p)

    p = sub.add_parser("convert", help="render crawled filings to paged PDFs; extract pages and cover metadata")
    _add_common(p)
    p.add_argument("--pdf-dir", action="append", default=[], help="also ingest the PDFs in this folder (repeatable)")
    p.add_argument("--redo", action="store_true",
                   help="convert every document again, unchanged sources too (after a converter fix); those whose "
                        "record or page text changed are redone by segment, index and publish, the others not")
    _add_batch(p)

    p = sub.add_parser("segment", help="split converted documents into SEC Items and token-sized chunks")
    _add_common(p)
    _add_batch(p)

    p = sub.add_parser("index", help="Spark jobs: embeddings, Item trees, the financial lexicon (FLAM), iXBRL facts")
    _add_common(p)

    p = sub.add_parser("publish", help="quality gate, then publish the indexes (embedded engine or Elasticsearch)")
    _add_common(p)
    p.add_argument("--rebuild", action="store_true", help="build new index versions (not upserts) for the release")

    p = sub.add_parser("rollback", help="make the previous release live again (every index, upserts included)")
    _add_common(p)

    p = sub.add_parser("list-versions", help="releases (the live one marked) and the index versions they read")
    _add_common(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("runs", help="what the stages did since a time (one line each), the live release, questions "
                       "to try")
    _add_common(p)
    p.add_argument("--since", default="", metavar="STAMP",
                   help="a UTC time as run reports are stamped, or its start (20261127T043207); default: all")

    p = sub.add_parser("query", help="hierarchical retrieval over the published indexes")
    _add_common(p)
    p.add_argument("question")
    p.add_argument("-k", type=_bounded(1, 10), default=5, help="evidence items, 1 to 10 (as the HTTP API)")
    p.add_argument("--mode", default="hierarchical", help="hierarchical (default), hybrid, dense or bm25")
    p.add_argument("--filter", action="append", default=[], metavar="FIELD=VALUE",
                   help="exact filter, repeatable (ticker=KO, fiscal_year=2023, form=10-K)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--explain", action="store_true", help="also show documents, filters, curation rounds and ms per stage")

    p = sub.add_parser("facts", help="reported iXBRL figures with their pages: company, concept or words, period")
    _add_common(p)
    p.add_argument("--concept", required=True, help='QName (us-gaap:GrossProfit) or words ("gross profit", "capex")')
    p.add_argument("--ticker")
    p.add_argument("--fiscal-year", type=int)
    p.add_argument("--fiscal-period", help="FY, Q1..Q4, H1, 9M")
    p.add_argument("--form", help="10-K or 10-Q: only figures reported in that form")
    p.add_argument("--dimension", action="append", default=None, metavar="AXIS=MEMBER",
                   help="repeatable; without it only consolidated figures")
    p.add_argument("--limit", type=_bounded(1, 200), default=20)
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("eval", help="retrieval metrics over a QA jsonl (FinanceBench or LOFin format)")
    _add_common(p)
    p.add_argument("qa", help="QA jsonl with gold (document, 0-based page) evidence")
    p.add_argument("--mode", action="append", default=[], help="repeatable; default: all four modes")
    p.add_argument("-k", type=_bounded(1, 10), default=5)
    p.add_argument("--out", help="write one line per question: id and ranked evidence (first mode)")
    p.add_argument("--report", help="write the metrics as JSON")
    p.add_argument("--flam", action="store_true", help="hierarchical mode with FLAM Item weights (off by default)")
    p.add_argument("--trees", action="store_true", help="hierarchical mode with tree-node boosts (off by default)")
    p.add_argument("--ranker", choices=("rules", "learned", "learned-all"), default=None,
                   help="hierarchical mode's page order: the release's learned ranker for the kinds of question "
                        "query/page_order.yaml gives it (PAGE_RANKER, default: learned; the rules for the others "
                        "and where the release has none), the model for every kind (learned-all), or the rules")

    p = sub.add_parser("train-ranker", help="train the learned page ranker for the live release again (`run` "
                                            "trains it after publish)")
    _add_common(p)
    p.add_argument("--limit", type=_bounded(1, 1_000_000), default=None,
                   help="at most this many of the corpus's training questions (evenly spaced)")

    p = sub.add_parser("serve", help="the HTTP API (FastAPI; OpenAPI at /docs)")
    _add_common(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_bounded(1, 65535), default=8080)
    p.add_argument("--workers", type=_bounded(1, 64), default=1, help="worker processes (each loads the model: ~300 MB)")

    p = sub.add_parser("run", help="the nightly main job: every stage, on the configured (or embedded) defaults")
    _add_common(p)
    _add_crawl_args(p)

    p = sub.add_parser("mirror", help="serve a directory in SEC's URL layout on 127.0.0.1 (tests, offline runs)")
    p.add_argument("root", help="directory holding www.sec.gov/ and data.sec.gov/")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_bounded(1, 65535), default=8765)
    p.add_argument("--as-of", type=_date, help="serve only filings filed on or before this date")
    p.add_argument("--fault-rate", type=float, default=0.0, help="share of requests answered with a fault")
    p.add_argument("--block-after", type=_bounded(0, 10_000_000), default=None, metavar="N",
                   help="answer like SEC's block (HTTP 403, its block page) every request after the first N ...")
    p.add_argument("--block-seconds", type=_bounded(1, 86_400), default=600, metavar="S",
                   help="... for S seconds (SEC: about 600)")
    p.add_argument("-v", "--verbose", action="store_true")
    return parser


def _bounded(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high`` (else a usage error naming the range, exit 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low} to {high})")
        return value

    return parse


def _settings(args: argparse.Namespace) -> Settings:
    keys = ("lake_root", "universe_tickers", "forms", "filed_from", "filed_to", "edgar_mirror")
    overrides = {k: getattr(args, k, None) for k in keys}
    return load_settings(getattr(args, "config", None), **overrides)


def _resources(args: argparse.Namespace):
    """The composition root of a CLI process: its clients, built from the settings on first use."""
    from kernel.resources import Resources

    return Resources(_settings(args))


def cmd_config(args: argparse.Namespace) -> int:
    print(json.dumps(_settings(args).redacted(), indent=2, default=str))
    return 0


def _finish(report) -> int:
    """Problems to stderr, the summary to stdout; exit 1 when anything needs a look."""
    for problem in report.problems:
        print(f"problem: {problem}", file=sys.stderr)
    print(report.summary())
    return EXIT_PROBLEMS if report.problems else 0


def _batch(text: str) -> tuple[int, int]:
    """``I/N``: batch I (0-based) of N."""
    try:
        index, count = (int(v) for v in text.split("/"))
        return check_batch((index, count))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a batch I/N with 0 <= I < N ({exc})") from None


def _add_batch(p: argparse.ArgumentParser) -> None:
    p.add_argument("--batch", type=_batch, help="only the companies of batch I/N (I from 0): batches run at once on "
                   "any machines sharing the lake, every company's documents in one batch")


def cmd_crawl(args: argparse.Namespace) -> int:
    return _finish(run_stage("crawl", _resources(args), as_of=getattr(args, "as_of", None), progress=progress))


def cmd_convert(args: argparse.Namespace) -> int:
    return _finish(run_stage("convert", _resources(args), pdf_dirs=args.pdf_dir, progress=progress, batch=args.batch,
                             redo=args.redo))


def cmd_segment(args: argparse.Namespace) -> int:
    return _finish(run_stage("segment", _resources(args), progress=progress, batch=args.batch))


def cmd_index(args: argparse.Namespace) -> int:
    return _finish(run_stage("index", _resources(args), progress=progress))


def cmd_publish(args: argparse.Namespace) -> int:
    return _finish(run_stage("publish", _resources(args), rebuild=args.rebuild, progress=progress))


def cmd_rollback(args: argparse.Namespace) -> int:
    from indexing.publish import rollback

    left, live = rollback(_resources(args).backend)
    print(f"rolled back release {left.id}: release {live.id} (created {live.created[:19]}) is live")
    for index, target in sorted(live.targets.items()):
        print(f"  {index}: {target}")
    return 0


def cmd_list_versions(args: argparse.Namespace) -> int:
    from indexing.publish.listing import listing, render

    found = listing(_resources(args).backend)
    print(json.dumps(found.as_json(), indent=1) if args.json else "\n".join(render(found)))
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    from shell.run_summary import release_lines, stage_lines

    resources = _resources(args)
    lines = stage_lines(resources.lake, args.since)
    print("\n".join(lines or [f"no stage left a run report in {resources.lake.uri('runs/')} since {args.since or 'ever'}"]))
    print("\n".join(release_lines(resources.backend)))
    return 0


def _filters(items: list[str]) -> dict:
    out: dict = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"--filter wants FIELD=VALUE, got {item!r}")
        out.setdefault(name, []).append(value)  # typed by the index schema (kernel.search.base.check_filters)
    return {k: v[0] if len(v) == 1 else v for k, v in out.items()}


def cmd_query(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from domain.text import clean_question
    from query import MODES, Retriever

    if args.mode not in MODES:
        raise ConfigError(f"--mode must be one of {', '.join(MODES)}")
    if not clean_question(args.question):
        raise ConfigError("the question has no words")
    retriever = Retriever(_resources(args))
    result = retriever.search(args.question, args.k, _filters(args.filter), replace(retriever.options, mode=args.mode))
    for company in result.unindexed:
        print(f"note: no indexed filing of {company}: the evidence below is from other companies' filings",
              file=sys.stderr)
    for note in result.inferred_companies + result.ambiguous_names + result.missing_periods + result.period_taken:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        body = result.as_dict() if args.explain else {  # the HTTP API's response, field for field
            "question": result.question, "release": result.release, "page_order": result.page_order,
            "unindexed_companies": result.unindexed, "ambiguous_names": result.ambiguous_names,
            "missing_periods": result.missing_periods, "period_taken": result.period_taken,
            "inferred_companies": result.inferred_companies, "evidence": [e.as_dict() for e in result.evidence]}
        print(json.dumps(body, indent=1, default=str))
        return 0
    if args.explain:
        print(f"release: {result.release}  pages ordered by: {result.page_order or args.mode}")
        print(f"plan: {json.dumps(result.plan)}")
        for d in result.documents:
            print(f"document: {d['doc_id']}  score {d['score']}  ({d['reason']})")
        for line in result.company_pages:
            print(f"company: {line}")
        for it in result.iterations:
            print(f"curation round {it['iteration']}: {json.dumps({k: v for k, v in it.items() if k != 'iteration'})}")
        print("timings (ms): " + ", ".join(f"{k} {v}" for k, v in result.timings.items()))
    if not result.evidence:
        print("no evidence found")
    for n, e in enumerate(result.evidence, start=1):
        period = " ".join(str(x) for x in (e.fiscal_year, e.fiscal_period) if x)
        print(f"{n:>2}. {e.doc_id}  page {e.page}  {e.item_label or 'no Item'}  {e.ticker or e.company or ''} "
              f"{e.form or ''} {period}  score {e.score:.3f}" + (f"\n    {e.document}" if e.document else ""))
        print("    " + " ".join(e.text.split())[:240])
        print(f"    why ({e.label}): {e.reason}")
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    from query import Retriever
    from query.facts import facts_request

    request = facts_request(concept=args.concept, ticker=args.ticker, fiscal_year=args.fiscal_year,
                            fiscal_period=args.fiscal_period, form=args.form, dimensions=args.dimension,
                            limit=args.limit)
    found = Retriever(_resources(args)).facts(request)
    if args.json:
        print(json.dumps([f.model_dump() for f in found], indent=1, default=str))
        return 0
    if not found:
        print("no facts found")
    for f in found:
        period = f"{f.fiscal_period or ''}{f.fiscal_year or ''}"
        span = f"{f.period_start}..{f.period_end}" if f.period_start else f"at {f.period_end}"
        scale = f" (x10^{f.scale})" if f.scale else ""
        value = f"{f.value:,.{0 if f.value is not None and f.value == int(f.value) else 2}f}" if f.value is not None \
            else "-"
        dims = f"  [{', '.join(f.dimensions)}]" if f.dimensions else ""
        print(f"{f.concept}  {period} ({span})  {f.display}{scale} {f.unit or ''} = {value}{dims}")
        where = f.item_label or "no Item"
        print(f"    {f.doc_id}  page {f.page}  {where}  row: {f.row_label or '-'}  column: {f.column_header or '-'}"
              f"  ({f.reason})")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from query import MODES, Retriever
    from query.evaluate import evaluate, read_qa, table

    modes = args.mode or ["bm25", "dense", "hybrid", "hierarchical"]
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ConfigError(f"unknown mode(s) {bad}; modes: {', '.join(MODES)}")
    retriever = Retriever(_resources(args))
    qas = read_qa(args.qa)
    runs = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:
        for i, mode in enumerate(modes):
            runs.append(evaluate(retriever, qas, mode, args.k, out if i == 0 else None, progress,
                                 flam=args.flam, trees=args.trees,
                                 ranker=args.ranker or retriever.resources.settings.page_ranker))
    finally:
        if out:
            out.close()
    print(table(runs))
    if args.report:
        Path(args.report).write_text(json.dumps([{k: v for k, v in vars(r).items() if k != "per_question"}
                                                 for r in runs], indent=1))
    return 0


def cmd_train_ranker(args: argparse.Namespace) -> int:
    """The train stage on demand: trains even when the release has a model (``secplat run`` does not)."""
    report = run_stage("train", _resources(args), limit=args.limit, force=True, progress=progress)
    if report.outcome == "failed":
        print(f"error: {'; '.join(report.problems)}", file=sys.stderr)
        return EXIT_ENV
    print(report.summary())
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from kernel.resources import Resources
    from query import Retriever
    from shell.http import check_exposure, create_app

    settings = _settings(args)  # validated here, before any worker starts
    check_exposure(args.host, settings.api_key_list())
    if args.workers == 1:
        uvicorn.run(create_app(Retriever(Resources(settings)), settings.api_key_list()), host=args.host, port=args.port,
                    log_level="info")
        return 0
    # Worker processes build their own app from the environment: hand them this command's overrides.
    for flag, variable in (("lake_root", "LAKE_ROOT"), ("config", "SECPLAT_CONFIG")):
        if getattr(args, flag, None):
            os.environ[variable] = str(getattr(args, flag))
    uvicorn.run("shell.http:app_from_environment", factory=True, workers=args.workers, host=args.host,
                port=args.port, log_level="info")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    return _finish(run_nightly(_resources(args), as_of=getattr(args, "as_of", None), progress=progress))


def cmd_mirror(args: argparse.Namespace) -> int:
    from etl.crawl.edgar_mirror import FaultPlan, MirrorServer

    server = MirrorServer(args.root, host=args.host, port=args.port, as_of=args.as_of,
                          faults=FaultPlan(rate=args.fault_rate, block_after=args.block_after,
                                           block_seconds=args.block_seconds))
    print(f"serving {args.root} at {server.www_url} and {server.data_url} (Ctrl-C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


COMMANDS = {"train-ranker": cmd_train_ranker, "config": cmd_config, "crawl": cmd_crawl, "convert": cmd_convert, "segment": cmd_segment,
            "index": cmd_index, "publish": cmd_publish, "rollback": cmd_rollback,
            "list-versions": cmd_list_versions, "runs": cmd_runs, "query": cmd_query, "facts": cmd_facts, "eval": cmd_eval, "serve": cmd_serve,
            "run": cmd_run, "mirror": cmd_mirror}


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            return _main(argv)
        finally:  # here, not at exit (--help's SystemExit too): a reader gone (``| head``) is met where handled
            sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from etl.crawl.edgar_http import FetchError
    from indexing.publish import PublishError
    from kernel.models import ModelError
    from kernel.search.base import BackendError, FilterError
    from kernel.storage import StorageError
    from query.evaluate import QaFileError
    from query.facts import FactsError
    from query.ranker import TrainingError

    try:
        return COMMANDS[args.command](args)
    except (ConfigError, ModelError, FactsError, FilterError, QaFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except (StorageError, FetchError, FileNotFoundError, PermissionError, BackendError, PublishError,
            TrainingError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ENV
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


def _reader_gone() -> int:
    """The reader of our output closed it (``secplat list-versions | head``): stop quietly, as a Unix tool
    killed by SIGPIPE would (exit 141), with stdout pointed at /dev/null so that exit's flush cannot raise."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE


if __name__ == "__main__":
    sys.exit(main())
