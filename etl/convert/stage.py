"""The conversion run: every crawled filing with an ``ok`` record (its primary document and exhibits) and
every PDF of ``pdf_dirs``, as jobs converted in parallel; the unchanged skipped, the failed quarantined."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from etl.convert.exhibit import convert_exhibit
from etl.convert.filing import convert_filing
from etl.convert.html_prepare import HtmlError
from etl.convert.options import STAGE, ConvertOptions
from etl.convert.pdf_file import convert_pdf_file, name_collisions, pdf_files
from etl.convert.pdf_pages import PdfError
from etl.convert.pdf_render import RenderError
from etl.convert.records import (
    Converted,
    converted_documents,
    membership,
    reflag,
    settle_identity,
    unsettled,
    with_membership,
    write_outputs,
)
from etl.convert.report import ConvertReport
from kernel import faults
from kernel.filing_records import read_records
from kernel.layout import (
    exhibit_part,
    external_part,
    filing_part,
    finished_conversions,
    part_name,
)
from kernel.llm import TextModel
from kernel.quarantine import quarantine
from kernel.run_policy import in_batch
from kernel.storage import Lake
from schemas.documents import DocumentRecord


@dataclass(frozen=True)
class Job:
    """One document to convert: its storage key, how it is named in problems, the source's sha256 (the same
    as the converted part's: unchanged, skipped) and the work that converts it."""

    key: str
    document: str
    sha256: str
    convert: Callable[[], Converted]


def run(lake: Lake, options: ConvertOptions, llm: TextModel | None = None) -> ConvertReport:
    """Convert every crawled filing with an ``ok`` record, plus every PDF under ``options.pdf_dirs``; with
    ``options.llm_summary`` the ``llm`` client adds to each cover summary."""
    progress = options.progress or (lambda it, desc, total: it)
    summarizer = llm if options.llm_summary else None
    report = ConvertReport()
    jobs: list[Job] = []
    for rec in read_records(lake):
        if rec.status != "ok" or not rec.primary_key or not in_batch(rec.cik, rec.ticker or "", options.batch):
            continue
        key = filing_part(rec.cik, rec.accession)
        jobs.append(Job(key, rec.accession, rec.sha256 or "",
                        lambda rec=rec: convert_filing(lake, rec, options, summarizer)))
        for ex in (e for e in rec.exhibits if e.status == "ok" and e.key):
            jobs.append(Job(exhibit_part(rec.cik, rec.accession, ex.name), f"{rec.accession} {ex.name}",
                            ex.sha256 or "", lambda rec=rec, ex=ex: convert_exhibit(lake, rec, ex, options, summarizer)))
    before = converted_documents(lake)
    paths = [p for folder in options.pdf_dirs for p in pdf_files(Path(folder)) if in_batch(None, p.stem, options.batch)]
    refused = name_collisions(paths, before)
    for path, why in refused.items():
        quarantine(lake, STAGE, path.name, external_part(path.stem) + "-collision-"
                   + hashlib.sha256(path.name.encode()).hexdigest()[:8], why, str(path))
        report.quarantined += 1
        report.problems.append(f"{path.name}: quarantined: {why}")
    for path in (p for p in paths if p not in refused):
        with path.open("rb") as fh:  # streamed: a folder of PDFs is never held in memory at once
            sha = hashlib.file_digest(fh, "sha256").hexdigest()
        jobs.append(Job(external_part(path.stem), path.stem, sha,
                        lambda path=path, sha=sha: convert_pdf_file(path, path.read_bytes(), sha, options, summarizer)))

    finished = finished_conversions(lake)  # one a kill interrupted (or converted before facts existed) is redone
    todo = []
    for job in jobs:
        if getattr(before.get(part_name(job.key)), "sha256", None) == job.sha256 and part_name(job.key) in finished \
                and not options.redo:
            report.skipped += 1
        else:
            todo.append(job)
    converted: dict[str, DocumentRecord] = {}
    revised: list[str] = []  # appended by the workers (list.append is atomic)
    members = membership(lake)  # each company's S&P 500 periods (the directory): every document's sp500_member

    def one(job: Job) -> tuple[DocumentRecord, int, str | None, float]:
        """Convert and write one document; what the report needs is all that is kept (not its PDF or facts:
        a run over thousands of filings must not hold them)."""
        done = job.convert()
        held = before.get(part_name(job.key))
        done.doc = write_outputs(lake, job.key, done.paged, with_membership(done.doc, members), done.facts, held)
        if held and done.doc.revision != (held.row.get("revision") or 0):
            revised.append(f"{done.doc.doc_id}: converted again with a changed record, page text or facts (revision "
                           f"{done.doc.revision}): segment, index and publish redo it")
        missing = [f for f in done.facts if f.kind == "numeric" and f.value is None and not f.nil]
        problem = (f"{done.doc.doc_id}: {len(missing)} numeric fact(s) without a value (first: {missing[0].problem})"
                   if missing else None)
        return done.doc, len(done.facts), problem, done.facts_seconds

    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        futures = {pool.submit(one, job): job for job in todo}
        for fut in progress(as_completed(futures), "convert", len(futures)):
            job = futures.pop(fut)
            key, document = job.key, job.document
            try:
                doc, facts, fact_problem, facts_seconds = fut.result()
            except (HtmlError, RenderError, PdfError, OSError, ValueError) as exc:
                quarantine(lake, STAGE, document, key, f"{type(exc).__name__}: {exc}", key)
                report.quarantined += 1
                report.problems.append(f"{document}: quarantined: {exc}")
                continue
            converted[part_name(key)] = doc
            report.converted += 1
            report.warnings += bool(doc.warnings)
            report.content_warnings += [f"{doc.doc_id}: {w}" for w in doc.warnings if w.startswith("content ")]
            report.timings.append((doc.doc_id, doc.page_count, doc.render_seconds, doc.extract_seconds, facts_seconds))
            report.facts += facts
            report.fact_problems += [fact_problem] if fact_problem else []
    report.revised = sorted(revised)
    faults.point("convert:documents written")
    own = {p: h for p, h in before.items()  # a batch settles and re-flags its own documents (tasks in
           if in_batch(h.row.get("cik"), h.row["doc_id"], options.batch)}  # parallel share none)
    report.shared_names = settle_identity(lake, {p: h.identity for p, h in before.items()}, converted,
                                          unsettled(lake, own))
    mine = {p: h for p, h in own.items() if p not in converted}
    report.reflagged = reflag(lake, mine, members)
    return report
