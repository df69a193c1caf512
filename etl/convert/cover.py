"""Cover-page metadata: inline-XBRL ``dei:`` facts first, the cover page's text as the fallback.

Also the document id in the LOFin convention (``TICKER_YYYY_10K``, ``TICKER_YYYYQn_10Q``,
``TICKER_YYYY-MM-DD_8K``) and a deterministic cover summary used for document-level retrieval.
"""

from __future__ import annotations

import datetime as dt
import html as htmllib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from dateutil import parser as dateparser

from domain.companies import reads_as_name
from domain.rules import fiscal_period_of

_DEI_START_RE = re.compile(r"<ix:(nonNumeric|nonFraction)\b([^>]*?\bname=\"dei:(\w+)\"[^>]*)>", re.I)
_IX_TAG_RE = re.compile(r"<(/?)ix:(?:nonNumeric|nonFraction)\b[^>]*>", re.I)
_TAG_RE = re.compile(r"<[^>]+>")
_WS_RE = re.compile(r"\s+")
_FORM_RE = re.compile(r"\bFORM\s+(10-K|10-Q|8-K)(/A)?\b", re.I)
# the date may come a line later: a PDF cover's two columns interleave ("For the quarterly period ended" /
# "Commission file" / "September 30, 2022" / "number 1-5805", JPMorgan's 10-Qs)
_PERIOD_RE = re.compile(
    r"for\s+the\s+(?:fiscal\s+)?(?:year|quarter(?:ly\s+period)?|period)\s+ended:?\s+(?:[^\d\n]{1,40}\n\s*)?"
    r"([A-Z][a-z]+\.?\s+\d{1,2}\s*,?\s*\d{4})", re.I
)
_EVENT_RE = re.compile(r"Date of Report[^:(\n]*(?:\([^)]*\))?\s*:?\s*\b([A-Z][a-z]+\.?\s+\d{1,2}\s*,?\s*\d{4})", re.I)
_REGISTRANT_RE = re.compile(r"\n\s*([^\n]{3,120})\n[^\n]*\(Exact name of registrant", re.I)
_FORM_TAGS = {"10-K": "10K", "10-Q": "10Q", "8-K": "8K"}
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_Q = r"(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal\s+)?quarter"
# "first quarter of fiscal 2024", "fiscal 2024 first quarter", "third quarter 2022", "Q1 FY24", "Q4 2007"
_RELEASE_PERIOD_RES = [
    (re.compile(_Q + r"\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(\d{4})", re.I), "qy"),
    (re.compile(r"fiscal\s+(?:year\s+)?(\d{4})\s+" + _Q, re.I), "yq"),
    (re.compile(r"\bQ([1-4])\s*(?:FY|fiscal\s*)?['\u2019]?(\d{4}|\d{2})\b", re.I), "nq"),
    (re.compile(r"full[\s-]+(?:fiscal[\s-]+)?year\s+(?:of\s+)?(?:fiscal\s+)?(\d{4})", re.I), "fy"),
]


@dataclass
class CoverFacts:
    company: str | None = None
    cik: int | None = None
    form: str | None = None
    period_end: dt.date | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None  # FY, Q1..Q4
    trading_symbols: list[str] = field(default_factory=list)
    exchanges: list[str] = field(default_factory=list)
    shares_outstanding: float | None = None
    filer_category: str | None = None
    amendment: bool = False
    source: str = "none"  # ixbrl | text | none


def _clean(fragment: str) -> str:
    return _WS_RE.sub(" ", htmllib.unescape(_TAG_RE.sub(" ", fragment))).strip()


def _date(text: str | None) -> dt.date | None:
    if not text:
        return None
    try:
        return dateparser.parse(text.replace("\xa0", " "), fuzzy=True, default=dt.datetime(1900, 1, 1)).date()
    except (ValueError, OverflowError):
        return None


def _element_body(raw_html: str, start: int) -> str:
    """Markup of an ix element from the end of its start tag to its matching end tag (ix elements nest:
    a period-end date often wraps the fiscal-year-end fact)."""
    depth = 1
    for tag in _IX_TAG_RE.finditer(raw_html, start):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return raw_html[start:tag.start()]
    return raw_html[start:start + 2000]


def dei_facts(raw_html: str) -> dict[str, list[str]]:
    """Every ``dei:`` fact of an inline-XBRL document, in document order."""
    facts: dict[str, list[str]] = {}
    for m in _DEI_START_RE.finditer(raw_html):
        value = _clean(_element_body(raw_html, m.end()))
        fmt = re.search(r'format="([^"]+)"', m.group(2))
        if fmt and "fixed-false" in fmt.group(1):
            value = "false"
        elif fmt and "fixed-true" in fmt.group(1):
            value = "true"
        facts.setdefault(m.group(3), []).append(value)
    return facts


def _number(text: str) -> float | None:
    digits = re.sub(r"[^\d.]", "", text)
    try:
        return float(digits) if digits else None
    except ValueError:
        return None


def facts_from_ixbrl(raw_html: str) -> CoverFacts | None:
    facts = dei_facts(raw_html)
    if "DocumentType" not in facts:
        return None

    def first(name: str) -> str | None:
        values = [v for v in facts.get(name, []) if v]
        return values[0] if values else None

    cover = CoverFacts(source="ixbrl")
    cover.company = first("EntityRegistrantName")
    cik = first("EntityCentralIndexKey")
    cover.cik = int(re.sub(r"\D", "", cik)) if cik and re.sub(r"\D", "", cik) else None
    form = (first("DocumentType") or "").upper()
    cover.form = form.removesuffix("/A") or None
    cover.amendment = form.endswith("/A") or (first("AmendmentFlag") or "").lower() == "true"
    cover.period_end = _date(first("DocumentPeriodEndDate"))
    year = first("DocumentFiscalYearFocus")
    cover.fiscal_year = int(year) if year and year.isdigit() else None
    cover.fiscal_period = (first("DocumentFiscalPeriodFocus") or "").upper() or None
    cover.trading_symbols = list(dict.fromkeys(v.upper() for v in facts.get("TradingSymbol", []) if v))
    cover.exchanges = list(dict.fromkeys(v for v in facts.get("SecurityExchangeName", []) if v))
    shares = first("EntityCommonStockSharesOutstanding")
    cover.shares_outstanding = _number(shares) if shares else None
    cover.filer_category = first("EntityFilerCategory")
    return cover


def facts_from_text(page_texts: list[str]) -> CoverFacts:
    """Fallback for filings without iXBRL and for PDFs: page 0, or page 1 when page 0 is nearly empty. The
    company is the line above "(Exact name of registrant ...)" when it reads as a name: a cover whose name is a
    logo has its file number there, and the file name's company is then the better guess."""
    text = page_texts[0] if page_texts else ""
    if len(text.strip()) < 200 and len(page_texts) > 1:
        text = page_texts[1] + "\n" + text
    cover = CoverFacts(source="text")
    m = _FORM_RE.search(text)
    if m:
        cover.form = m.group(1).upper()
        cover.amendment = bool(m.group(2))
    m = _PERIOD_RE.search(text) or _EVENT_RE.search(text)
    if m:
        cover.period_end = _date(m.group(1))
    m = _REGISTRANT_RE.search(text)
    if m and reads_as_name(m.group(1)):
        cover.company = m.group(1).strip()
    if cover.form in ("10-K", "10-Q") and cover.period_end:
        cover.fiscal_year, cover.fiscal_period = fiscal_period_of(cover.period_end, cover.form, None)
    return cover


def release_period(text: str, filed: dt.date | None = None,
                   fiscal_year_end: str | None = None) -> tuple[int | None, str | None]:
    """The fiscal year and quarter an earnings release reports, from its own words (its first pages):
    "first quarter of fiscal 2024", "fiscal 2024 first quarter", "Q3 2022", "full-year 2006" (its fourth
    quarter). A release also names the periods it compares with and the ones its outlook is for, so the
    period reported is the latest one named that had ended when the release was filed (the company's fiscal
    year end decides when a quarter ends); (None, None) when it names none."""
    found = set()
    for pattern, kind in _RELEASE_PERIOD_RES:
        for m in pattern.finditer(text):
            if kind == "qy":
                quarter, year = _ORDINAL[m.group(1).lower()], int(m.group(2))
            elif kind == "yq":
                year, quarter = int(m.group(1)), _ORDINAL[m.group(2).lower()]
            elif kind == "fy":
                year, quarter = int(m.group(1)), 4
            else:
                quarter, year = int(m.group(1)), int(m.group(2))
                year += 2000 if year < 100 else 0
            if 1990 <= year <= 2100:
                found.add((year, quarter))
    ended = [p for p in found if filed is None or _quarter_end(*p, fiscal_year_end) < filed]
    if not ended:
        return None, None
    year, quarter = max(ended)
    return year, f"Q{quarter}"


def earnings_period(text: str, filed: dt.date | None, fiscal_year_end: str | None,
                    report_date: dt.date | None) -> tuple[int | None, str | None]:
    """An earnings release's fiscal year and quarter: the ones its words name (:func:`release_period`),
    else the quarter before its 8-K's event date, by the company's fiscal year."""
    year, period = release_period(text, filed, fiscal_year_end)
    if year is None and report_date:
        year, period = fiscal_period_of(report_date - dt.timedelta(days=30), "10-Q", fiscal_year_end)
    return year, period


def exhibit_period(own: str, release_text: Callable[[], str | None], filed: dt.date | None,
                   fiscal_year_end: str | None, report_date: dt.date | None) -> tuple[int | None, str | None, str]:
    """Any other 8-K exhibit's fiscal year, period, and where they come from: the period its own words name
    ("text"); else, in an 8-K with an earnings release (``release_text()``: its text, read only then), the
    release's ("release": a results 8-K's tables, highlights and statistics report the release's period,
    not the filing date's year); else the filing date's year ("filing date")."""
    year, period = release_period(own, filed, fiscal_year_end)
    if year is not None:
        return year, period, "text"
    release = release_text()
    if release is not None:
        year, period = earnings_period(release, filed, fiscal_year_end, report_date)
        if year is not None:
            return year, period, "release"
    return (filed.year if filed else None), None, "filing date"


def _quarter_end(year: int, quarter: int, fiscal_year_end: str | None) -> dt.date:
    """Roughly when fiscal quarter ``quarter`` of fiscal ``year`` ends (its month's first day), for a fiscal
    year ending in the month of ``fiscal_year_end`` (MMDD; calendar years without one)."""
    end_month = int(fiscal_year_end[:2]) if fiscal_year_end else 12
    months_before_year_end = 3 * (4 - quarter)
    month_index = year * 12 + (end_month - 1) - months_before_year_end
    return dt.date(month_index // 12, month_index % 12 + 1, 1)


def exhibit_id(cover_id: str, exhibit_type: str) -> str:
    """A press release's id: its 8-K's, then the exhibit type (``AAPL_2019-11-15_8K_EX99-1``)."""
    return f"{cover_id}_{re.sub(r'[^A-Z0-9]+', '-', exhibit_type.upper()).replace('EX-', 'EX', 1)}"


def document_id(ticker: str, form: str, fiscal_year: int | None, fiscal_period: str | None,
                period_end: dt.date | None, filing_date: dt.date | None, amendment: bool = False) -> str:
    """``TICKER_YYYY_10K``, ``TICKER_YYYYQn_10Q``, ``TICKER_YYYY-MM-DD_8K`` (LOFin); amendments end in A."""
    tag = _FORM_TAGS.get(form, re.sub(r"[^A-Z0-9]", "", form.upper())) + ("A" if amendment else "")
    ticker = ticker.upper().replace(".", "-")
    if form == "8-K":
        day = period_end or filing_date
        return f"{ticker}_{day.isoformat() if day else 'unknown'}_{tag}"
    year = fiscal_year or (period_end.year if period_end else None) or (filing_date.year if filing_date else 0)
    if form in ("10-Q", "EARNINGS"):
        quarter = fiscal_period if fiscal_period and re.fullmatch(r"Q[1-4]", fiscal_period) else None
        if quarter is None and period_end:
            quarter = f"Q{(period_end.month - 1) // 3 + 1}"
        return f"{ticker}_{year}{quarter or 'Q0'}_{tag}"
    return f"{ticker}_{year}_{tag}"


def cover_summary(company: str, ticker: str, form: str, fiscal_year: int | None, fiscal_period: str | None,
                  period_end: dt.date | None, cover: CoverFacts, first_page: str, max_chars: int = 1200) -> str:
    """A short, deterministic description of the document for document-level retrieval."""
    kind = {"10-K": "annual report", "10-Q": "quarterly report", "8-K": "current report"}.get(form, "filing")
    period = f"fiscal {fiscal_period or ''} {fiscal_year or ''}".replace("  ", " ").strip()
    parts = [f"{company} ({ticker}) {form} {kind}"]
    if fiscal_year:
        parts.append(f"for {period}")
    if period_end:
        parts.append(f"period ended {period_end.strftime('%B %-d, %Y')}")
    text = " ".join(parts) + "."
    facts = []
    if cover.exchanges:
        facts.append(f"Listed on {', '.join(cover.exchanges[:2])}.")
    if cover.filer_category:
        facts.append(f"Filer category: {cover.filer_category}.")
    if cover.shares_outstanding:
        facts.append(f"Shares outstanding: {cover.shares_outstanding:,.0f}.")
    body = _WS_RE.sub(" ", first_page).strip()
    summary = " ".join([text, *facts, body])
    return summary[:max_chars].rsplit(" ", 1)[0] if len(summary) > max_chars else summary
