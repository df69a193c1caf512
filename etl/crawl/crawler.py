"""The EDGAR crawler: discover filings per company and download each one into the raw lake exactly once.

Keys (``kernel.layout``; deterministic, so reruns upsert instead of duplicating)::

    raw/edgar/<cik>/<accession-no-dashes>/<primary document>   the primary document, decoded bytes
    raw/edgar/<cik>/<accession-no-dashes>/<exhibit>            each exhibit EXHIBIT_TYPES names, as served
    raw/edgar/<cik>/<accession-no-dashes>/index.json           EDGAR's filing index
    raw/edgar/<cik>/<accession-no-dashes>/filing.json          the FilingRecord, written last
    manifests/filings.parquet                                  every FilingRecord, rebuilt after a run

``filing.json`` is the commit marker: it is written only after the documents, so a filing with an ``ok``
record is complete, and a run killed at any point resumes by fetching whatever has no ``ok`` record.

Exhibits (``EXHIBIT_TYPES``, e.g. ``EX-99*``): where the filing's ``index.json`` lists files besides the
primary document, its documents are listed from its own EDGAR index page, or from its full submission's
header where it has no index page (``etl.crawl.filing_index`` says why);
each chosen document is fetched under the same limiter and retries and recorded in the filing record
(``exhibits``: ok, skipped by rule, missing or failed, with the reason); one that fails is a record, the
filing stays ``ok``. A record made with other ``EXHIBIT_TYPES`` gets its exhibits (only) fetched again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed

from domain.rules import GRAPHIC, base_form, exhibit_patterns, exhibit_selected
from etl.crawl import full_index
from etl.crawl.client_state import ClientState
from etl.crawl.discovery import DiscoveryError, FilingRef, discover_filings
from etl.crawl.edgar_http import EdgarHttp, FetchError, HostUnreachable, NotFound, json_body
from etl.crawl.filing_files import FilingFiles, Resumed, clear_finished
from etl.crawl.filing_index import (
    FilingDocument,
    complete_index_page,
    complete_submission,
    has_other_documents,
    listed_sizes,
    parse_index_page,
    parse_submission,
    submission_document_name,
    submission_documents,
)
from etl.crawl.membership import applies as membership_applies
from etl.crawl.membership import kept_by_membership
from etl.crawl.options import CrawlOptions
from etl.crawl.ratelimit import RateLimiter
from etl.crawl.report import CrawlReport
from etl.crawl.universe import Company
from kernel.clock import utc_now
from kernel.filing_records import load_record, read_records, write_manifest, write_record
from kernel.layout import (
    RAW_PREFIX,
    filing_index_key,
    index_page_name,
    primary_document_key,
)
from kernel.run_policy import historical_window
from kernel.storage import Lake, StorageError
from schemas.filings import ExhibitFile, FilingRecord

log = logging.getLogger(__name__)
INDEX_PAGE = "index page"  # the exhibit source of documents listed from the filing's EDGAR index page


def build_http(options: CrawlOptions, limiter: RateLimiter | None = None) -> EdgarHttp:
    """The one HTTP client of a crawl (``limiter``: share one across crawlers, as benchmarks do). With
    ``options.edgar_state_dir`` (the settings always give one) SEC's block is the client's: read from and
    recorded where every crawl of this machine and identity sees it (:mod:`etl.crawl.client_state`)."""
    state = ClientState(options.edgar_state_dir, options.user_agent, options.edgar_www_url) \
        if options.edgar_state_dir else None
    return EdgarHttp(
        options.user_agent,
        limiter or RateLimiter(options.edgar_rate_limit),
        timeout=options.http_timeout,
        max_retries=options.http_max_retries,
        backoff_base=options.http_backoff_base,
        backoff_max=options.http_backoff_max,
        board=state.board() if state else None,
    )


def complete_record(lake: Lake, ref: FilingRef) -> FilingRecord | None:
    """The filing's ``ok`` record when the lake holds it complete (then a crawl skips it), else None."""
    existing = load_record(lake, ref.cik, ref.accession)
    return existing if existing is not None and existing.status == "ok" else None


class Crawler:
    """Crawls a universe into a lake; one :class:`EdgarHttp` (and so one rate limiter) for all workers."""

    def __init__(
        self,
        options: CrawlOptions,
        lake: Lake,
        http: EdgarHttp | None = None,
        progress: Callable[[Iterable, str, int], Iterable] | None = None,
    ):
        self.options = options
        self.lake = lake
        self.http = http or build_http(options)
        self._progress = progress or (lambda it, desc, total: it)
        self._lock = threading.Lock()
        self.today = utc_now().date()  # the full index is history only a week after the fact
        self.filers: dict[int, dict] = {}  # CIK -> the names its submissions gave (discovery.filer_names)
        self.resumed = Resumed()  # files of interrupted filings read back from the lake, not asked again

    # -- discovery ---------------------------------------------------------------------------
    def discover(self, companies: list[Company], report: CrawlReport) -> list[tuple[Company, FilingRef]]:
        """Every company's filings in the window, from its submissions JSON; for a historical window only
        the companies EDGAR's quarterly full index says filed in it are asked."""
        s = self.options
        members = companies
        if historical_window(s.filed_from, s.filed_to, self.today):
            companies = self._filers(companies, report)
        found: list[tuple[Company, FilingRef]] = []

        def one(company: Company) -> list[FilingRef]:
            return discover_filings(
                self.http, s.edgar_data_url, company.cik, forms=s.forms,
                include_amendments=s.include_amendments, filed_from=s.filed_from, filed_to=s.filed_to,
                names=self.filers,
            )

        with ThreadPoolExecutor(max_workers=s.crawl_workers) as pool:
            futures = {pool.submit(one, c): c for c in companies}
            for fut in self._progress(as_completed(futures), "discover", len(futures)):
                company = futures[fut]
                try:
                    found.extend((company, ref) for ref in fut.result())
                except HostUnreachable:
                    raise
                except DiscoveryError as exc:
                    report.problems.append(f"{company.ticker}: {exc}")
                    report.undiscovered.append(company.ticker)
                    log.error("%s: %s", company.ticker, exc)
        if not exhibit_patterns(s.exhibit_types):
            legacy = [ref.accession for _, ref in found if not ref.primary_document]
            if legacy:
                log.info("%d filing(s) without a primary document skipped (from before 2001: their documents "
                         "exist only in the full submission, which the exhibits crawl splits)", len(legacy))
            found = [(c, ref) for c, ref in found if ref.primary_document]
        if membership_applies(s, self.today):  # the index as it was
            found, report.outside_membership, problems = kept_by_membership(found, members, s.forms, s.filed_from,
                                                                            s.filed_to)
            report.problems.extend(problems)
            if report.outside_membership:
                log.info("%d filing(s) of the window left out: their company was not an S&P 500 member on their "
                         "period's end", report.outside_membership)
        found.sort(key=lambda pair: (pair[0].ticker, pair[1].filing_date, pair[1].accession))
        return found

    def _filers(self, companies: list[Company], report: CrawlReport) -> list[Company]:
        """The companies with filings of the selected forms in the window, by the full index (one request
        per quarter, finished quarters kept in the lake); all of them when the index cannot be read."""
        s = self.options
        try:
            found = full_index.filers(self.lake, self.http, s.edgar_www_url, {c.cik for c in companies}, s.forms,
                                      s.include_amendments, s.filed_from, s.filed_to)
        except full_index.FullIndexError as exc:
            report.problems.append(f"{exc}: every company's submissions are read instead")
            log.error("%s: every company's submissions are read instead", exc)
            return companies
        report.index_filings = sum(len(v) for v in found.values())
        log.info("full index: %d of %d companies filed %d filing(s) in the window", len(found), len(companies),
                 report.index_filings)
        return [c for c in companies if c.cik in found]

    # -- download ------------------------------------------------------------------------------
    def fetch(self, company: Company, ref: FilingRef) -> tuple[str, FilingRecord]:
        """Download one filing unless an ``ok`` record says it is complete; returns (outcome, record)."""
        www = self.options.edgar_www_url
        base_url = f"{www}/Archives/edgar/data/{ref.cik}/{ref.accession_nodash}"
        existing = complete_record(self.lake, ref)
        if existing is not None:
            if existing.exhibit_types == self.options.exhibit_types:
                return "skipped", existing
            files = FilingFiles(self.lake, self.http, ref.cik, ref.accession, base_url, self.resumed)
            rec = existing.model_copy(update=self._exhibits(files, ref, self._stored_listing(existing)))
            write_record(self.lake, rec)
            files.finish()
            return "skipped", rec
        record = dict(
            accession=ref.accession, cik=ref.cik, ticker=company.ticker, company=company.name, form=ref.form,
            is_amendment=ref.is_amendment, filing_date=ref.filing_date, report_date=ref.report_date,
            primary_document=ref.primary_document, fiscal_year_end=ref.fiscal_year_end, items=list(ref.items),
        )
        if not ref.primary_document:
            rec, outcome = self._from_submission(base_url, ref, record)
            write_record(self.lake, rec)
            return outcome, rec
        files = FilingFiles(self.lake, self.http, ref.cik, ref.accession, base_url, self.resumed)
        index_key = None
        expected = None
        index = None
        try:
            try:
                index = json.loads(files.get("index.json", validate=json_body))
                expected = listed_sizes(index).get(ref.primary_document)  # our truncation check
                index_key = filing_index_key(ref.cik, ref.accession)
            except NotFound:
                log.warning("%s: no filing index (404); downloading the primary document alone", ref.accession)
            body = files.get(ref.primary_document, expected_size=expected)
            rec = FilingRecord(
                **record, primary_key=files.key(ref.primary_document), index_key=index_key, bytes=len(body),
                sha256=hashlib.sha256(body).hexdigest(), fetched_at=utc_now(), status="ok",
                **self._exhibits(files, ref, index),
            )
            outcome = "fetched"
        except NotFound as exc:
            rec = FilingRecord(**record, fetched_at=utc_now(), status="missing", error=str(exc))
            outcome = "missing"
        except HostUnreachable:
            raise
        except FetchError as exc:
            rec = FilingRecord(**record, fetched_at=utc_now(), status="failed", error=str(exc))
            outcome = "failed"
        write_record(self.lake, rec)
        if rec.status == "ok":  # a failed or missing filing is asked again: what it finished stays noted
            files.finish()
        return outcome, rec

    def _from_submission(self, base_url: str, ref: FilingRef, record: dict) -> tuple[FilingRecord, str]:
        """A filing without a primary document (before 2001: EDGAR has no URL for its documents): its full
        submission, split into its documents as EDGAR would serve each (``<DOCUMENT>`` block); the one of the
        filing's form is the primary document, the chosen others its exhibits, each under a name of the
        accession and its sequence (``<accession>-d2.txt``)."""
        try:
            full = self.http.get(f"{base_url}/{ref.accession}.txt", validate=complete_submission).content
        except NotFound as exc:
            return FilingRecord(**record, fetched_at=utc_now(), status="missing", error=str(exc)), "missing"
        except HostUnreachable:
            raise
        except FetchError as exc:
            return FilingRecord(**record, fetched_at=utc_now(), status="failed", error=str(exc)), "failed"
        pairs = submission_documents(full)
        documents, blocks = [d for d, _ in pairs], {d.sequence: block for d, block in pairs}
        primary = next((d for d in documents if base_form(d.type) == base_form(ref.form)), None)
        if primary is None or primary.sequence not in blocks:
            return FilingRecord(**record, fetched_at=utc_now(), status="failed",
                                error=f"the full submission holds no {ref.form} document"), "failed"
        name = submission_document_name(ref.accession, primary.sequence)
        stored = self._store(ref, name, blocks[primary.sequence])
        patterns = exhibit_patterns(self.options.exhibit_types)
        exhibits = [self._exhibit(None, ref, d, patterns, blocks) for d in documents if d is not primary]
        return FilingRecord(
            **{**record, "primary_document": name}, primary_key=stored["key"], bytes=stored["bytes"],
            sha256=stored["sha256"], fetched_at=utc_now(), status="ok",
            exhibit_types=self.options.exhibit_types, exhibit_source="full submission (documents without files)",
            exhibits=[e for e in exhibits if e is not None]), "fetched"

    def _stored_listing(self, record: FilingRecord) -> object:
        """The ``index.json`` kept with a filing, for choosing its exhibits anew; None when it is gone or
        unreadable (then the index page decides)."""
        try:
            return json.loads(self.lake.read_bytes(record.index_key)) if record.index_key else None
        except (FileNotFoundError, ValueError):
            return None

    def _exhibits(self, files: FilingFiles, ref: FilingRef, listing: object = None) -> dict:
        """The filing's exhibits that ``EXHIBIT_TYPES`` names, fetched: the record's exhibit fields. A failed
        listing or exhibit is recorded with its reason; it never fails the filing (HostUnreachable aside).
        ``listing`` (the filing's ``index.json``) holding only the primary document means no exhibit."""
        setting = self.options.exhibit_types
        patterns = exhibit_patterns(setting)
        if not patterns:
            return {"exhibit_types": setting, "exhibit_source": None, "exhibits": []}
        if has_other_documents(listing, ref.accession, ref.primary_document) is False:
            return {"exhibit_types": setting, "exhibit_source": "directory listing (the primary document only)",
                    "exhibits": []}
        try:
            documents, source = self._documents(files, ref)
        except HostUnreachable:
            raise
        except FetchError as exc:
            failed = ExhibitFile(name="", type="", status="failed", error=f"no document list: {exc}")
            return {"exhibit_types": setting, "exhibit_source": None, "exhibits": [failed]}
        sizes = listed_sizes(listing)
        out = [self._exhibit(files, ref, d, patterns, sizes=sizes) for d in documents
               if d.name != ref.primary_document]
        page = files.key(index_page_name(ref.accession)) if source == INDEX_PAGE else None
        return {"exhibit_types": setting, "exhibit_source": source, "index_page_key": page,
                "exhibits": [e for e in out if e is not None]}

    def _documents(self, files: FilingFiles, ref: FilingRef) -> tuple[list[FilingDocument], str]:
        """The filing's documents from its index page (a few KB, with each document's type; kept in the
        lake), else from its full submission's SGML headers (the whole submission, not kept: only where no
        index page exists)."""
        try:
            page = files.get(index_page_name(ref.accession), validate=complete_index_page)
            return parse_index_page(page), INDEX_PAGE
        except NotFound:
            full = self.http.get(f"{files.base_url}/{ref.accession}.txt", validate=complete_submission)
            return parse_submission(full.content), "full submission header"

    def _exhibit(self, files: FilingFiles | None, ref: FilingRef, doc: FilingDocument, patterns: tuple[str, ...],
                 blocks: dict[str, bytes] | None = None, sizes: dict[str, int] | None = None) -> ExhibitFile | None:
        """One listed document: fetched when chosen (whole: the size ``index.json`` lists, where it does),
        or, without a file of its own, cut from the full submission's ``blocks``; recorded as skipped when
        a graphic (by rule: the text is what is indexed), left out otherwise."""
        info = {"name": doc.name, "type": doc.type, "sequence": doc.sequence, "description": doc.description}
        if doc.type == GRAPHIC:
            return ExhibitFile(**info, status="skipped", error="graphic: not fetched (an exhibit's text is indexed)")
        if not exhibit_selected(doc.type, patterns):
            return None
        if not doc.name and blocks and doc.sequence in blocks:
            name = submission_document_name(ref.accession, doc.sequence)
            return ExhibitFile(**{**info, "name": name}, **self._store(ref, name, blocks[doc.sequence]), status="ok",
                               from_submission=True)
        if not doc.name or files is None:
            return ExhibitFile(**info, status="skipped",
                               error="no file of its own: the document exists only inside the full submission")
        try:
            body = files.get(doc.name, expected_size=(sizes or {}).get(doc.name))
        except NotFound as exc:
            return ExhibitFile(**info, status="missing", error=str(exc))
        except HostUnreachable:
            raise
        except FetchError as exc:
            return ExhibitFile(**info, status="failed", error=str(exc))
        return ExhibitFile(**info, key=files.key(doc.name), bytes=len(body),
                           sha256=hashlib.sha256(body).hexdigest(), status="ok")

    def _store(self, ref: FilingRef, name: str, body: bytes) -> dict:
        """A document of the filing written under its name: its key, size and sha256 for the record."""
        key = primary_document_key(ref.cik, ref.accession, name)
        self.lake.write_bytes(key, body)
        return {"key": key, "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}

    def run(self, companies: list[Company]) -> CrawlReport:
        """Discover and download; stopped by an unreachable host or SEC's block, the error carries the run's
        report so far (``partial``: what its failed run report says it did)."""
        report = CrawlReport(companies=len(companies))
        try:
            return self._run(companies, report)
        except HostUnreachable as exc:
            report.resumed = self.resumed.count
            exc.partial = report  # the failed run's report says what it did (shell.runner.record_failure)
            raise

    def _run(self, companies: list[Company], report: CrawlReport) -> CrawlReport:
        self.lake.check_writable()
        pairs = self.discover(companies, report)
        report.discovered = len(pairs)
        with ThreadPoolExecutor(max_workers=self.options.crawl_workers) as pool:
            futures = {pool.submit(self.fetch, c, ref): (c, ref) for c, ref in pairs}
            try:
                for fut in self._progress(as_completed(futures), "download", len(futures)):
                    company, ref = futures[fut]
                    try:
                        outcome, rec = fut.result()
                    except StorageError as exc:
                        report.failed += 1
                        report.problems.append(f"{company.ticker} {ref.accession}: {exc}")
                        continue
                    setattr(report, outcome, getattr(report, outcome) + 1)
                    report.records.append(rec)
                    if outcome in ("missing", "failed"):
                        report.problems.append(f"{company.ticker} {ref.accession}: {outcome}: {rec.error}")
            except HostUnreachable:  # SEC's block too: every worker's next request raises it, none is sent
                for f in futures:
                    f.cancel()
                self._list_filings()  # what was fetched before is kept, and listed
                raise
        report.records.sort(key=lambda r: (r.ticker, r.filing_date, r.accession))
        report.resumed = self.resumed.count
        self._list_filings()
        return report

    def _list_filings(self) -> None:
        """The manifest of every filing record, from one listing of the raw filings that also finds the
        progress records a killed run left beside finished filings (they go)."""
        keys = list(self.lake.list(RAW_PREFIX))
        records = read_records(self.lake, keys)
        clear_finished(self.lake, keys, records)
        write_manifest(self.lake, records)
