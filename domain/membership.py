"""S&P 500 membership by date: the periods a ticker was in the index, and which filings belong to the index
as it was.

A period is ``[start, end)``: ``start`` is the day the ticker joined, ``end`` the day it left (the day its
successor joined: FB ``2013-12-23..2022-06-09`` and META from ``2022-06-09`` never overlap), ``None`` while
it is still a member. A ticker may have several periods (PCG left on 2019-01-18 and came back on
2022-10-03), and one ticker may name different companies in different periods (AAL 1996-1997 and
2015-2024): periods are matched by date first, then to a CIK.

**The rule** (:func:`belongs`): a filing belongs to the index as it was when its company was a member on
the end date of the period it reports (``report_date``: a 10-K's fiscal year end, a 10-Q's quarter end, an
8-K's event date), else on its filing date where it reports none. A company that joined mid-year has its
10-K for that year in the corpus when the year ended after it joined; one that left mid-quarter keeps the
filings of the periods that ended before it left.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass

from domain.rules import normalize_ticker

COLUMNS = ("ticker", "start_date", "end_date")


class MembershipError(ValueError):
    """A membership file that cannot be read as periods: one line naming the row and what is wrong."""


@dataclass(frozen=True, order=True)
class MemberPeriod:
    ticker: str
    start: dt.date
    end: dt.date | None = None  # the day it left (not a member that day); None: still a member

    def holds(self, day: dt.date) -> bool:
        return self.start <= day and (self.end is None or day < self.end)

    def overlaps(self, first: dt.date | None, last: dt.date | None) -> bool:
        """Whether the ticker was a member on some day of ``[first, last]`` (either end open)."""
        return (last is None or self.start <= last) and (first is None or self.end is None or first < self.end)


def parse_membership(text: str, source: str) -> list[MemberPeriod]:
    """Periods from ``ticker,start_date,end_date`` rows (ISO dates; an empty end: still a member). A row with
    a malformed date, an end before its start, or a file with another column is refused (MembershipError,
    naming the row): nothing is crawled from a file read halfway."""
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    if set(header) != set(COLUMNS):
        unknown = sorted(set(header) - set(COLUMNS))
        missing = sorted(set(COLUMNS) - set(header))
        what = (f"unknown column(s) {', '.join(unknown)}" if unknown else "") + \
            ("; " if unknown and missing else "") + (f"missing column(s) {', '.join(missing)}" if missing else "")
        raise MembershipError(f"membership file {source}: {what} (expected {','.join(COLUMNS)})")
    periods = []
    for line, row in enumerate(reader, start=2):
        where = f"membership file {source}, row {line}"
        ticker = normalize_ticker(row.get("ticker") or "")
        if not ticker:
            raise MembershipError(f"{where}: no ticker")
        start = _date(row.get("start_date"), where, "start_date")
        end = _date(row.get("end_date"), where, "end_date")
        if start is None:
            raise MembershipError(f"{where}: no start_date")
        if end is not None and end <= start:
            raise MembershipError(f"{where}: {ticker} ends ({end}) before or when it starts ({start})")
        periods.append(MemberPeriod(ticker, start, end))
    if not periods:
        raise MembershipError(f"membership file {source}: no rows")
    return sorted(periods)


def _date(value: str | None, where: str, column: str) -> dt.date | None:
    value = (value or "").strip()
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise MembershipError(f"{where}: {column} {value!r} is not a date (YYYY-MM-DD)") from None


def by_ticker(periods: Iterable[MemberPeriod]) -> dict[str, list[MemberPeriod]]:
    out: dict[str, list[MemberPeriod]] = {}
    for p in sorted(periods):
        out.setdefault(p.ticker, []).append(p)
    return out


def members_in_window(periods: Iterable[MemberPeriod], first: dt.date | None,
                      last: dt.date | None) -> dict[str, list[MemberPeriod]]:
    """Every ticker that was a member on some day of the window, with its periods that overlap it."""
    out: dict[str, list[MemberPeriod]] = {}
    for p in sorted(periods):
        if p.overlaps(first, last):
            out.setdefault(p.ticker, []).append(p)
    return out


def member_on(periods: Iterable[MemberPeriod], day: dt.date) -> bool:
    return any(p.holds(day) for p in periods)


def belongs(periods: Iterable[MemberPeriod], report_date: dt.date | None, filing_date: dt.date) -> bool:
    """The rule (module docstring): member on the reported period's end date, else on the filing date."""
    return member_on(periods, report_date or filing_date)


@dataclass(frozen=True)
class Filer:
    """A reviewed line of ``vocabulary/former_tickers.yaml``: the filer of a ticker's membership dates in
    ``[start, end)`` (``None``: open)."""

    ticker: str
    cik: int
    name: str
    start: dt.date | None = None
    end: dt.date | None = None


def reviewed_filers() -> dict[str, list[Filer]]:
    """The reviewed map, by ticker (VocabularyError naming the line when one does not read)."""
    from domain.vocabulary import VocabularyError, load

    out: dict[str, list[Filer]] = {}
    for n, line in enumerate(load("former_tickers").get("filers") or [], start=1):
        try:
            filer = Filer(normalize_ticker(str(line["ticker"])), int(line["cik"]), str(line["name"]),
                          _day(line.get("from")), _day(line.get("to")))
        except (KeyError, TypeError, ValueError) as exc:
            raise VocabularyError(f"former_tickers.yaml: filer {n} does not read ({exc})") from None
        out.setdefault(filer.ticker, []).append(filer)
    return out


def _day(value) -> dt.date | None:
    return value if isinstance(value, dt.date) or value is None else dt.date.fromisoformat(str(value))


def assign(period: MemberPeriod, first: dt.date | None, last: dt.date | None,
           filers: Iterable[Filer]) -> tuple[list[Filer], bool]:
    """Who filed for ``period`` within the window ``[first, last]``: the reviewed filers covering some of
    its days, and whether days remain that only today's ticker map can resolve."""
    start = max(d for d in (period.start, first) if d is not None)
    ends = [d for d in (period.end, last + dt.timedelta(days=1) if last else None) if d is not None]
    left = [(start, min(ends) if ends else None)]
    used = []
    for filer in filers:
        rest = []
        for a, b in left:
            lo = a if filer.start is None else max(a, filer.start)
            hi = filer.end if b is None else (b if filer.end is None else min(b, filer.end))
            if hi is not None and lo >= hi:
                rest.append((a, b))
                continue
            used.append(filer)
            if lo > a:
                rest.append((a, lo))
            if hi is not None and (b is None or hi < b):
                rest.append((hi, b))
        left = rest
    return list(dict.fromkeys(used)), bool([(a, b) for a, b in left if b is None or a < b])


def member_flag(periods: Iterable[MemberPeriod] | None, report_date: dt.date | None,
                filing_date: dt.date | None) -> bool | None:
    """A document's ``sp500_member``: the rule on its company's periods; None when no membership is known
    (``periods`` None) or the document has no date."""
    day = report_date or filing_date
    if periods is None or day is None:
        return None
    return member_on(periods, day)
