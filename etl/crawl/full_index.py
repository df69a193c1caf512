"""EDGAR's quarterly full index (``full-index/<year>/QTR<q>/form.idx``): every filing of a quarter in one
file, so a historical window finds the companies that filed in it with one request per quarter instead of
one submissions request per company (per day, for a backfill run day by day).

The file's layout is EDGAR's, fixed-width under a header (parsed by the header's column offsets, since
form types hold spaces: ``SC 13G/A``)::

    Description:           Master Index of EDGAR Dissemination Feed by Form Type
    Last Data Received:    April 30, 2016
    Comments:              webmaster@sec.gov
    Anonymous FTP:         ftp://ftp.sec.gov/edgar/
    (four lines holding one space)
    Form Type   Company Name                                                  CIK         Date Filed  File Name
    ------------------------------------------------------------------------------------- (141 dashes)
    10-K        APPLE INC                                                     320193      2024-11-01  edgar/data/320193/0000320193-24-000123.txt

A finished quarter never changes: its final file (``is_final``) is kept in the lake
(``kernel.layout.full_index_key``) and read from there afterwards. Which windows use it is run policy (``kernel.run_policy.historical_window``); the
companies it names are then crawled through their submissions JSON as usual (primary documents and
report dates come from there).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass

from domain.rules import form_selected, in_window
from etl.crawl.edgar_http import EdgarHttp, FetchError, HostUnreachable
from kernel.layout import full_index_key
from kernel.storage import Lake

log = logging.getLogger(__name__)

HEADER = ("Form Type", "Company Name", "CIK", "Date Filed", "File Name")
WIDTHS = (12, 62, 12, 12)  # the first four columns; the file name is padded to 52
DASHES = 141
_FILE_RE = re.compile(r"^edgar/data/(\d+)/(\d{10}-\d{2}-\d{6})\.txt$")


class FullIndexError(RuntimeError):
    """A quarter's index could not be read or parsed; the message names the quarter."""


@dataclass(frozen=True)
class IndexEntry:
    form: str
    company: str
    cik: int
    filed: dt.date
    accession: str


def quarters(start: dt.date, end: dt.date) -> list[tuple[int, int]]:
    """(year, quarter) of every quarter the window touches, oldest first."""
    out, year, q = [], start.year, (start.month - 1) // 3 + 1
    while (year, q) <= (end.year, (end.month - 1) // 3 + 1):
        out.append((year, q))
        year, q = (year + 1, 1) if q == 4 else (year, q + 1)
    return out


def quarter_end(year: int, q: int) -> dt.date:
    return dt.date(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1) - dt.timedelta(days=1)


def index_url(www_url: str, year: int, q: int) -> str:
    return f"{www_url}/Archives/edgar/full-index/{year}/QTR{q}/form.idx"


def render(entries: list[IndexEntry], last_received: dt.date) -> str:
    """A quarter's ``form.idx`` in EDGAR's layout (the mirror serves it)."""
    lines = ["Description:           Master Index of EDGAR Dissemination Feed by Form Type",
             f"Last Data Received:    {last_received.strftime('%B')} {last_received.day}, {last_received.year}",
             "Comments:              webmaster@sec.gov",
             "Anonymous FTP:         ftp://ftp.sec.gov/edgar/", " ", " ", " ", " ",
             "".join(h.ljust(w) for h, w in zip(HEADER, WIDTHS, strict=False)) + HEADER[-1], "-" * DASHES]
    for e in sorted(entries, key=lambda e: (e.form, e.company, e.filed, e.accession)):
        cells = (e.form, e.company[:WIDTHS[1] - 1], str(e.cik), e.filed.isoformat())
        name = f"edgar/data/{e.cik}/{e.accession}.txt"
        lines.append("".join(c.ljust(w) for c, w in zip(cells, WIDTHS, strict=True)) + name.ljust(52))
    return "\n".join(lines) + "\n"


def parse(text: str, where: str) -> list[IndexEntry]:
    """Entries of a ``form.idx``; FullIndexError without its header, a malformed row is skipped with a
    warning (a count in the log, never silently)."""
    lines = text.splitlines()
    at = next((n for n, line in enumerate(lines) if line.startswith(HEADER[0]) and HEADER[-1] in line), None)
    if at is None or at + 1 >= len(lines) or not lines[at + 1].startswith("-----"):
        raise FullIndexError(f"{where}: no form index header")
    header = lines[at]
    starts = [header.index(h) for h in HEADER]
    out, bad = [], 0
    for line in lines[at + 2:]:
        if not line.strip():
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        m = _FILE_RE.match(cells[4])
        try:
            filed = dt.date.fromisoformat(cells[3])
            cik = int(cells[2])
        except ValueError:
            m = None
        if not m or not cells[0] or int(m.group(1)) != cik:
            bad += 1
            continue
        out.append(IndexEntry(cells[0], cells[1], cik, filed, m.group(2)))
    if bad:
        log.warning("%s: %d malformed row(s) skipped", where, bad)
    return out


def last_received(text: str) -> dt.date | None:
    """The file's ``Last Data Received`` date (None when absent or unreadable)."""
    m = re.search(r"^Last Data Received:\s+([A-Za-z]+ \d{1,2}, \d{4})\s*$", text, re.M)
    try:
        return dt.datetime.strptime(m.group(1), "%B %d, %Y").date() if m else None
    except ValueError:
        return None


def is_final(text: str, year: int, q: int) -> bool:
    """Whether a quarter's file is complete: no business day lies between its last data and the quarter's
    end (EDGAR disseminates nothing on weekends; a quarter ending on a Sunday closes on the Friday). A file
    cut earlier, such as a mirror's "as of" view or the current quarter, is never kept."""
    last = last_received(text)
    if last is None:
        return False
    day, end = last + dt.timedelta(days=1), quarter_end(year, q)
    while day <= end:
        if day.weekday() < 5:
            return False
        day += dt.timedelta(days=1)
    return True


def _quarter(lake: Lake, http: EdgarHttp, www_url: str, year: int, q: int) -> list[IndexEntry]:
    """One quarter's entries: from the lake when its final file was read before, else from EDGAR (a final
    file is then kept: a finished quarter never changes)."""
    key = full_index_key(year, q)
    where = f"full index {year} QTR{q}"
    if lake.exists(key):
        return parse(lake.read_bytes(key).decode("utf-8", "replace"), where)
    try:
        body = http.get(index_url(www_url, year, q), validate=lambda b: parse(b.decode("latin-1"), where)).content
    except HostUnreachable:
        raise
    except FetchError as exc:
        raise FullIndexError(f"{where}: cannot read ({exc.reason})") from exc
    text = body.decode("latin-1")  # EDGAR's indexes are plain ASCII with the odd Latin-1 company name
    entries = parse(text, where)
    if is_final(text, year, q):
        lake.write_bytes(key, text.encode("utf-8"))
    return entries


def filers(lake: Lake, http: EdgarHttp, www_url: str, ciks: set[int], forms: list[str], include_amendments: bool,
           filed_from: dt.date, filed_to: dt.date) -> dict[int, list[IndexEntry]]:
    """cik -> its filings of the selected forms in the window, for the given companies."""
    out: dict[int, list[IndexEntry]] = {}
    for year, q in quarters(filed_from, filed_to):
        for e in _quarter(lake, http, www_url, year, q):
            if e.cik in ciks and form_selected(e.form, forms, include_amendments) and \
                    in_window(e.filed, filed_from, filed_to):
                out.setdefault(e.cik, []).append(e)
    return out
