"""The universe of a backfill: every company that was an S&P 500 member at some time in the window, each
filing kept when its company was a member on its period (``domain.membership``: the periods and the rule).

A window that starts before ``kernel.run_policy.HISTORY_LAG`` is a backfill (:func:`backfill`): with a
membership file (``MEMBERSHIP_CSV``), ``ALL`` is the index as it was in the window, and named tickers are
kept to the companies that were members in it. A shorter, recent window (the nightly) crawls today's
constituents; their membership periods are still attached, for the company directory.

A member's ticker is resolved to its filer by date: the reviewed map (``domain/vocabulary/
former_tickers.yaml``) for the dates it covers, else the universe CSV and SEC's ``company_tickers.json`` (today's
filer of the ticker). Tickers of one company (FB, META) become one company with all their periods. A period
no source resolves is a problem with its dates, never dropped silently; so is a company that filed nothing
while a member in the window (a reused ticker or an older CIK the map does not name yet).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from domain.membership import (
    Filer,
    MemberPeriod,
    MembershipError,
    assign,
    belongs,
    by_ticker,
    members_in_window,
    parse_membership,
    reviewed_filers,
)
from domain.rules import normalize_ticker
from etl.crawl.discovery import FilingRef
from etl.crawl.universe import (
    Company,
    SecTickerMap,
    UniverseProblem,
    build_universe,
    read_constituents,
    row_cik,
)
from kernel.clock import utc_now
from kernel.run_policy import HISTORY_LAG
from kernel.settings import NO_UNIVERSE, ConfigError


def backfill(filed_from: dt.date | None, today: dt.date) -> bool:
    """Whether a window reaches into history (it starts before the nightly's lag): then membership by date
    decides the universe."""
    return filed_from is not None and filed_from < today - HISTORY_LAG


def applies(options, today: dt.date) -> bool:
    """Whether membership by date decides a crawl's universe and filings (``CrawlOptions``): a backfill window
    with a membership file, unless the crawl is a new member's history (today's list over the window)."""
    return bool(options.membership_source) and not options.history and backfill(options.filed_from, today)


def joined_in(periods: list[MemberPeriod], first: dt.date | None, last: dt.date | None) -> list[str]:
    """The tickers whose membership started within ``[first, last]``: the nightly of those days notices
    them (a new member's history is crawled); a leaver needs nothing (its documents stay, and keep their
    flag: the periods before it left do not change)."""
    return sorted({p.ticker for p in periods if first and p.start >= first and (last is None or p.start <= last)})


def universe_symbols(universe_source: str, membership_source: str | None, filed_from: dt.date | None,
                     filed_to: dt.date | None, today: dt.date) -> list[str]:
    """What ``ALL`` names for a run's plan: for a backfill window with a membership file, every ticker that
    was a member in it (each period's universe); else today's constituents."""
    if membership_source and backfill(filed_from, today):
        return sorted(members_in_window(read_membership(membership_source), filed_from, filed_to))
    return [row["Symbol"] for row in read_constituents(universe_source) if row.get("Symbol")]


def read_membership(source: str) -> list[MemberPeriod]:
    """The membership file's periods; a file that does not read is a ConfigError naming it (or its row)."""
    try:
        text = Path(source).expanduser().read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"membership file {source} cannot be read: {exc}") from None
    try:
        return parse_membership(text, source)
    except MembershipError as exc:
        raise ConfigError(str(exc)) from None


def span(period: MemberPeriod) -> str:
    return f"{period.ticker} {period.start}..{period.end or 'now'}"


def window_universe(rows: list[dict[str, str]], sec: SecTickerMap, periods: list[MemberPeriod],
                    first: dt.date | None, last: dt.date | None, only: Iterable[str] | None = None,
                    filers: dict[str, list[Filer]] | None = None) -> tuple[list[Company], list[UniverseProblem]]:
    """The companies that were members in ``[first, last]`` (``only``: those a named ticker belongs to),
    each with the periods of its tickers; the periods no source resolves as problems."""
    filers = reviewed_filers() if filers is None else filers
    listed = {normalize_ticker(r.get("Symbol", "")): r for r in rows}
    groups: dict[int, dict] = {}
    problems: list[UniverseProblem] = []
    for ticker, overlapping in members_in_window(periods, first, last).items():
        for period in overlapping:
            mapped, rest = assign(period, first, last, filers.get(ticker, []))
            found = [(f.cik, f.name, None) for f in mapped]
            if rest:
                row = listed.get(ticker)
                cik = row_cik(row, ticker, sec) if row else sec.by_ticker.get(ticker, (None, ""))[0]
                if cik is None:
                    problems.append(UniverseProblem(ticker, f"S&P 500 member {span(period)}: no filer known for "
                                    "it (not in SEC's company_tickers.json, the universe CSV or domain/vocabulary/"
                                    "former_tickers.yaml): not crawled"))
                else:
                    found.append((cik, (row or {}).get("Security") or sec.title_by_cik.get(cik, ticker),
                                  (row or {}).get("GICS Sector") or None))
            for cik, name, sector in found:
                group = groups.setdefault(cik, {"name": name, "sector": sector, "tickers": [], "periods": []})
                group["sector"] = group["sector"] or sector
                group["tickers"] = list(dict.fromkeys([*group["tickers"], ticker]))
                group["periods"].append(period)
    companies = [_company(cik, g, sec) for cik, g in groups.items()]
    if only is not None:
        companies, problems = _named(companies, problems, only, periods, sec, first, last)
    return sorted(companies, key=lambda c: c.ticker), problems


def _company(cik: int, group: dict, sec: SecTickerMap) -> Company:
    current = [t for t in sec.tickers_by_cik.get(cik, []) if t in group["tickers"]]
    latest = max(group["periods"], key=lambda p: p.start).ticker
    return Company(cik, current[0] if current else latest, group["name"], group["sector"], tuple(group["tickers"]),
                   sec.title_by_cik.get(cik), tuple(sorted(set(group["periods"]))))


def _named(companies: list[Company], problems: list[UniverseProblem], only: Iterable[str],
           periods: list[MemberPeriod], sec: SecTickerMap, first: dt.date | None,
           last: dt.date | None) -> tuple[list[Company], list[UniverseProblem]]:
    """The companies a named ticker belongs to (by its member tickers or SEC's tickers of its CIK)."""
    named = {normalize_ticker(t) for t in only}
    kept = [c for c in companies if named & {*c.tickers, *sec.tickers_by_cik.get(c.cik, [])}]
    matched = {t for c in kept for t in (*c.tickers, *sec.tickers_by_cik.get(c.cik, []))}
    known = by_ticker(periods)
    out = [p for p in problems if p.ticker in named or p.ticker in matched]
    for ticker in sorted(named - matched):
        spans = ", ".join(span(p) for p in known.get(ticker, []))
        window = f"{first or 'the start'}..{last or 'now'}"
        out.append(UniverseProblem(ticker, f"not an S&P 500 member in {window} (member {spans}): not crawled; "
                                   "MEMBERSHIP_CSV=none crawls it anyway" if spans else
                                   "never an S&P 500 member in the membership file: not crawled; "
                                   "MEMBERSHIP_CSV=none crawls it anyway"))
    return kept, out


def with_periods(companies: list[Company], periods: list[MemberPeriod],
                 filers: dict[str, list[Filer]] | None = None) -> list[Company]:
    """Today's companies with their tickers' membership periods (for the directory; nothing is filtered):
    a period the reviewed map gives wholly to another filer is not theirs."""
    filers = reviewed_filers() if filers is None else filers
    known = by_ticker(periods)
    out = []
    for company in companies:
        own = []
        for ticker in company.tickers:
            for period in known.get(ticker, []):
                mapped, rest = assign(period, None, None, filers.get(ticker, []))
                if rest or any(f.cik == company.cik for f in mapped):
                    own.append(period)
        out.append(replace(company, member_periods=tuple(sorted(set(own)))))
    return out


def kept_by_membership(pairs: list[tuple[Company, FilingRef]], companies: list[Company], forms: Iterable[str],
                       first: dt.date | None, last: dt.date | None) -> tuple[list[tuple[Company, FilingRef]], int,
                                                                            list[str]]:
    """The filings of the index as it was (the rule), how many were left out, and a problem for each company
    that was a member for a year or more of the window and filed no periodic report while a member (a
    reused ticker or an older CIK: its filer is another)."""
    kept = [(c, r) for c, r in pairs if not c.member_periods or belongs(c.member_periods, r.report_date,
                                                                          r.filing_date)]
    filed = {c.cik for c, _ in kept}
    periodic = [f for f in forms if f.split("/")[0] in ("10-K", "10-Q")]
    problems = [f"{c.ticker}: S&P 500 member ({', '.join(span(p) for p in c.member_periods)}) but CIK {c.cik} "
                f"({c.name}) filed no {'/'.join(periodic)} while a member in the window: a reused ticker or an "
                "older CIK? (domain/vocabulary/former_tickers.yaml names a period's filer)"
                for c in companies if periodic and c.cik not in filed
                and _member_days(c.member_periods, first, last) >= 366]
    return kept, len(pairs) - len(kept), problems


def _member_days(periods: Iterable[MemberPeriod], first: dt.date | None, last: dt.date | None) -> int:
    today = utc_now().date()
    lo_w, hi_w = first or dt.date.min, (last or today) + dt.timedelta(days=1)
    return sum(max(0, ((min(p.end or hi_w, hi_w)) - max(p.start, lo_w)).days) for p in periods)


def resolve_universe(options, http) -> tuple[list[Company], list[UniverseProblem]]:
    """The configured universe (``CrawlOptions``), joined with company_tickers.json fetched from the
    configured www host: with a membership file, the index as it was for a backfill window
    (``etl.crawl.membership``), else today's constituents (with their membership periods where known)."""
    if options.universe_source is None:
        raise ConfigError(NO_UNIVERSE)
    rows = read_constituents(options.universe_source)
    periods = read_membership(options.membership_source) if options.membership_source else None
    sec = SecTickerMap.from_json(http.get_json(f"{options.edgar_www_url}/files/company_tickers.json"))
    tickers = list(options.universe_tickers) if options.universe_tickers is not None else None
    if periods is not None and applies(options, utc_now().date()):
        return window_universe(rows, sec, periods, options.filed_from, options.filed_to, tickers)
    companies, problems = build_universe(rows, sec, tickers)
    return (with_periods(companies, periods) if periods is not None else companies), problems
