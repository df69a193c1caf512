"""The crawl universe: S&P 500 constituents joined with SEC's ticker-to-CIK map.

The constituents CSV (``Symbol, Security, GICS Sector, ..., CIK``) says who is in the index; SEC's
``company_tickers.json`` says which CIK files for a ticker. Share classes of one company (GOOGL and GOOG)
collapse into one company, dotted tickers (BRK.B) are matched in SEC's dashed spelling (BRK-B), and a
constituent whose CIK SEC no longer lists (XOM's new holding-company CIK) is matched by symbol instead.
A ticker that cannot be resolved becomes a :class:`UniverseProblem`, never an exception for the run.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from domain.membership import MemberPeriod
from domain.rules import normalize_ticker
from kernel.settings import ConfigError


@dataclass(frozen=True)
class Company:
    cik: int
    ticker: str  # the CIK's first ticker in SEC's map (GOOGL for Alphabet)
    name: str
    sector: str | None = None
    tickers: tuple[str, ...] = field(default=())  # every universe ticker of this CIK
    sec_title: str | None = None  # company_tickers.json's title ("FORD MOTOR CO")
    # the S&P 500 periods of the tickers that resolve to this CIK (domain.membership); empty: no membership known
    member_periods: tuple[MemberPeriod, ...] = field(default=())


@dataclass(frozen=True)
class UniverseProblem:
    ticker: str
    reason: str


@dataclass
class SecTickerMap:
    """SEC's company_tickers.json, indexed both ways (order kept: the first ticker of a CIK is its main one)."""

    by_ticker: dict[str, tuple[int, str]]
    tickers_by_cik: dict[int, list[str]]
    title_by_cik: dict[int, str]

    @classmethod
    def from_json(cls, data: object) -> SecTickerMap:
        if not isinstance(data, dict):
            raise ValueError("company_tickers.json: expected an object of {index: {cik_str, ticker, title}}")
        by_ticker: dict[str, tuple[int, str]] = {}
        by_cik: dict[int, list[str]] = {}
        titles: dict[int, str] = {}
        for entry in data.values():
            try:
                cik, ticker, title = int(entry["cik_str"]), normalize_ticker(entry["ticker"]), str(entry["title"])
            except (KeyError, TypeError, ValueError):
                continue
            by_ticker.setdefault(ticker, (cik, title))
            by_cik.setdefault(cik, []).append(ticker)
            titles.setdefault(cik, title)
        return cls(by_ticker, by_cik, titles)


def read_constituents(source: str) -> list[dict[str, str]]:
    """Rows of the constituents CSV from a path or an http(s) URL."""
    if source.startswith(("http://", "https://")):
        import requests

        resp = requests.get(source, timeout=30)
        resp.raise_for_status()
        text = resp.text
    else:
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"universe CSV {source} does not exist")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise ConfigError(f"universe CSV {source} is not UTF-8 text") from None
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        raise ConfigError(f"universe CSV {source} is not a CSV file: {exc}") from None
    if not rows or "Symbol" not in rows[0]:
        raise ConfigError(f"universe CSV {source}: expected a header with at least a 'Symbol' column and one row")
    return rows


def row_cik(row: dict[str, str], symbol: str, sec: SecTickerMap) -> int | None:
    """A constituent's CIK: the CSV's where SEC still lists it, else SEC's for the symbol, else the CSV's
    (not in SEC's map at all: discovery will tell)."""
    csv_cik = (row.get("CIK") or "").strip()
    if csv_cik.isdigit() and int(csv_cik) in sec.tickers_by_cik:
        return int(csv_cik)
    if symbol in sec.by_ticker:
        return sec.by_ticker[symbol][0]
    return int(csv_cik) if csv_cik.isdigit() else None


def build_universe(
    rows: list[dict[str, str]], sec: SecTickerMap, only: list[str] | None = None
) -> tuple[list[Company], list[UniverseProblem]]:
    """Resolve constituents to companies; ``only`` restricts to those tickers (unknown ones are problems)."""
    problems: list[UniverseProblem] = []
    wanted = {normalize_ticker(t) for t in only} if only else None
    seen_rows: set[str] = set()
    grouped: dict[int, dict] = {}
    for row in rows:
        symbol = normalize_ticker(row.get("Symbol", ""))
        if not symbol or (wanted is not None and symbol not in wanted):
            continue
        seen_rows.add(symbol)
        cik = row_cik(row, symbol, sec)
        if cik is None:
            problems.append(UniverseProblem(symbol, "no CIK: not in the CSV and unknown to SEC's company_tickers.json"))
            continue
        entry = grouped.setdefault(
            cik,
            {"name": row.get("Security") or sec.title_by_cik.get(cik, symbol), "sector": row.get("GICS Sector"), "tickers": []},
        )
        entry["tickers"].append(symbol)
    if wanted is not None:
        for ticker in sorted(wanted - seen_rows):
            reason = "not an S&P 500 constituent in the universe CSV"
            if ticker not in sec.by_ticker:
                reason = "unknown ticker (neither in the universe CSV nor in SEC's company_tickers.json)"
            problems.append(UniverseProblem(ticker, reason))
    companies = []
    for cik, entry in grouped.items():
        sec_tickers = sec.tickers_by_cik.get(cik, [])
        primary = next((t for t in sec_tickers if t in entry["tickers"]), None) or entry["tickers"][0]
        companies.append(Company(cik, primary, entry["name"], entry["sector"] or None, tuple(entry["tickers"]),
                                 sec.title_by_cik.get(cik)))
    companies.sort(key=lambda c: c.ticker)
    return companies, problems
