"""Discovery: which filings a company has, from EDGAR's submissions JSON (recent block plus older pages)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import re
from dataclasses import dataclass

from domain.rules import form_selected, in_window, is_amendment
from etl.crawl.edgar_http import EdgarHttp, FetchError, HostUnreachable

log = logging.getLogger(__name__)

REQUIRED_ARRAYS = ("accessionNumber", "filingDate", "form", "primaryDocument")


class DiscoveryError(RuntimeError):
    """A company's submissions could not be read; the message names the CIK and the problem."""


@dataclass(frozen=True)
class FilingRef:
    accession: str
    cik: int
    form: str
    filing_date: dt.date
    report_date: dt.date | None
    primary_document: str  # empty for a filing from before 2001: its documents exist only in the full submission
    size: int | None = None
    fiscal_year_end: str | None = None  # the company's fiscal year end, MMDD, from the submissions JSON
    items: tuple[str, ...] = ()  # an 8-K's Items as its filer listed them (submissions ``items``)

    @property
    def is_amendment(self) -> bool:
        return is_amendment(self.form)

    @property
    def accession_nodash(self) -> str:
        return self.accession.replace("-", "")


def _date(value: object) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def parse_filings_block(block: object, cik: int, where: str) -> list[FilingRef]:
    """Filings from one block of EDGAR's parallel arrays (``filings.recent`` or an older page)."""
    if not isinstance(block, dict):
        raise DiscoveryError(f"{where}: filings block is not an object")
    missing = [k for k in REQUIRED_ARRAYS if not isinstance(block.get(k), list)]
    if missing:
        raise DiscoveryError(f"{where}: missing or non-list array(s) {missing}")
    n = len(block["accessionNumber"])
    uneven = [k for k in REQUIRED_ARRAYS if len(block[k]) != n]
    if uneven:
        raise DiscoveryError(f"{where}: arrays of different lengths ({', '.join(uneven)} vs accessionNumber)")

    def col(name: str) -> list:
        values = block.get(name)
        return values if isinstance(values, list) and len(values) == n else [None] * n

    refs = []
    for acc, fdate, rdate, form, doc, size, items in zip(
        block["accessionNumber"], block["filingDate"], col("reportDate"), block["form"], block["primaryDocument"],
        col("size"), col("items"), strict=True,
    ):
        filing_date = _date(fdate)
        if not acc or not form or filing_date is None:
            log.warning("%s: skipping an entry with missing fields (accession=%r)", where, acc)
            continue
        refs.append(
            FilingRef(
                accession=str(acc), cik=cik, form=str(form).upper(), filing_date=filing_date,
                report_date=_date(rdate), primary_document=str(doc or ""),
                size=int(size) if isinstance(size, int | float) else None,
                items=tuple(i.strip() for i in items.split(",") if i.strip()) if isinstance(items, str) else (),
            )
        )
    return refs


def _submissions_json(http: EdgarHttp, url: str, what: str) -> object:
    """A submissions JSON; a failed fetch is this company's :class:`DiscoveryError`, except an unreachable
    host, which is not about the company: it propagates, the caller's run stops and its task is retried."""
    try:
        return http.get_json(url)
    except HostUnreachable:
        raise
    except FetchError as exc:
        raise DiscoveryError(f"{what} ({exc.reason})") from exc


def filer_names(data: dict) -> dict:
    """What the submissions JSON says the filer is called: its conformed ``name``, ``formerNames`` (with
    their dates) and ``tickers``; what is malformed is left out."""
    former = [{"name": f["name"], "since": _date(f.get("from")), "until": _date(f.get("to"))}
              for f in data.get("formerNames") or [] if isinstance(f, dict) and isinstance(f.get("name"), str)]
    tickers = [t for t in data.get("tickers") or [] if isinstance(t, str) and t]
    name = data.get("name")
    return {"edgar_name": name if isinstance(name, str) and name else None, "former_names": former,
            "tickers": tickers}


def discover_filings(
    http: EdgarHttp,
    data_url: str,
    cik: int,
    *,
    forms: list[str],
    include_amendments: bool = True,
    filed_from: dt.date | None = None,
    filed_to: dt.date | None = None,
    names: dict[int, dict] | None = None,
) -> list[FilingRef]:
    """Every filing of ``cik`` that matches the forms and the filing-date window, oldest first; the filer's
    names (:func:`filer_names`) into ``names[cik]`` when given."""
    data = _submissions_json(http, f"{data_url}/submissions/CIK{cik:010d}.json", f"CIK {cik}: cannot read submissions")
    if not isinstance(data, dict) or not isinstance(data.get("filings"), dict):
        raise DiscoveryError(f"CIK {cik}: submissions JSON has no 'filings' object")
    if names is not None:
        names[cik] = filer_names(data)
    filings = data["filings"]
    refs = parse_filings_block(filings.get("recent"), cik, f"CIK {cik} recent")
    for page in filings.get("files") or []:
        if not isinstance(page, dict) or not page.get("name"):
            raise DiscoveryError(f"CIK {cik}: malformed entry in filings.files: {page!r}")
        page_from, page_to = _date(page.get("filingFrom")), _date(page.get("filingTo"))
        if (filed_from and page_to and page_to < filed_from) or (filed_to and page_from and page_from > filed_to):
            continue  # the whole page lies outside the window
        page_data = _submissions_json(http, f"{data_url}/submissions/{page['name']}",
                                      f"CIK {cik}: cannot read older submissions page {page['name']}")
        refs.extend(parse_filings_block(page_data, cik, f"CIK {cik} {page['name']}"))
    fye = data.get("fiscalYearEnd")
    fye = fye if isinstance(fye, str) and re.fullmatch(r"(0[1-9]|1[0-2])[0-3]\d", fye) else None
    selected: dict[str, FilingRef] = {}
    for ref in refs:
        if form_selected(ref.form, forms, include_amendments) and in_window(ref.filing_date, filed_from, filed_to):
            selected.setdefault(ref.accession, dataclasses.replace(ref, fiscal_year_end=fye))
    return sorted(selected.values(), key=lambda r: (r.filing_date, r.accession))
