"""The domain rules every layer shares: which forms exist, what a filing-date window is, how a ticker is
spelled, which fiscal period a date falls in. The settings model validates with them, the Airflow run plan
and DAG params are derived from them, and discovery filters with them, so a value the settings accept is one every run accepts.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable

ANNUAL, QUARTERLY, CURRENT = "10-K", "10-Q", "8-K"  # the forms crawled, as EDGAR names them
SUPPORTED_FORMS = (ANNUAL, QUARTERLY, CURRENT)
PERIODIC = (ANNUAL, QUARTERLY)  # the reports that cover a fiscal period
AMENDMENT_SUFFIX = "/A"
# Every form a run may name: the base forms and their amendments (10-K/A: only the amendments of 10-Ks).
FORM_CHOICES = tuple(f for base in SUPPORTED_FORMS for f in (base, base + AMENDMENT_SUFFIX))

ALL_TICKERS = "ALL"  # the whole universe CSV
TICKER_PATTERN = r"^[A-Za-z][A-Za-z.\-/]{0,9}$"  # as typed; SEC's spelling is normalize_ticker's
_TICKER_RE = re.compile(TICKER_PATTERN)


def base_form(form: str) -> str:
    """``10-K/A`` -> ``10-K``: the form an amendment amends (its Items and periods are that form's)."""
    return form.upper().removesuffix(AMENDMENT_SUFFIX)


def is_amendment(form: str) -> bool:
    return form.upper().endswith(AMENDMENT_SUFFIX)


def normalize_forms(forms: Iterable[str]) -> list[str]:
    """Upper-cased, de-duplicated, in order; raises ValueError naming what is not a supported form."""
    out = list(dict.fromkeys(f.strip().upper() for f in forms if f.strip()))
    unknown = [f for f in out if f not in FORM_CHOICES]
    if unknown:
        raise ValueError(f"unsupported form(s) {unknown}; supported: {', '.join(FORM_CHOICES)}")
    if not out:
        raise ValueError(f"no forms given; supported: {', '.join(FORM_CHOICES)}")
    return out


def form_selected(form: str, forms: list[str], include_amendments: bool) -> bool:
    """Whether a filing of ``form`` is crawled: named itself, or an amendment of a named base form."""
    if form in forms:
        return True
    return include_amendments and is_amendment(form) and base_form(form) in forms


EXHIBIT_TYPE_RE = re.compile(r"^[A-Z0-9*][A-Z0-9.\-*]*$")
GRAPHIC = "GRAPHIC"


def exhibit_patterns(setting: str) -> tuple[str, ...]:
    """EXHIBIT_TYPES as patterns (``EX-99*``; ``none`` or empty: no exhibits); ValueError for a bad one."""
    if setting.strip().lower() in ("", "none"):
        return ()
    patterns = tuple(p.strip().upper() for p in setting.split(",") if p.strip())
    bad = [p for p in patterns if not EXHIBIT_TYPE_RE.match(p)]
    if bad:
        raise ValueError(f"EXHIBIT_TYPES: {bad[0]!r} is not a document type pattern (EX-99*, EX-99.1, none)")
    return patterns


def exhibit_selected(doc_type: str, patterns: tuple[str, ...]) -> bool:
    """Whether a filing's document of this SGML type is crawled as an exhibit (graphics never are: what is
    indexed is an exhibit's text)."""
    import fnmatch

    kind = doc_type.strip().upper()
    return kind != GRAPHIC and any(fnmatch.fnmatchcase(kind, p) for p in patterns)


EARNINGS = "EARNINGS"  # the form of an earnings release (FinanceBench's ``*_EARNINGS`` documents)
RESULTS_ITEMS = frozenset({"2.02", "12"})  # 8-K Results of Operations: Item 2.02; Item 12 before August 2004
_FIRST_EX99 = re.compile(r"^EX-99(\.0?1)?$")


ANNUAL_REPORT_EXHIBIT = "EX-13"  # a 10-K's Annual Report to Stockholders, where Items may be incorporated from


def exhibit_form(exhibit_type: str, items: Iterable[str], filing_form: str = CURRENT) -> str:
    """What an exhibit is as a document: the first EX-99 of an 8-K reporting its results of operations
    (Item 2.02, Item 12 before August 2004) is its earnings release (``EARNINGS``); a 10-K's Exhibit 13 is
    its annual report, a 10-K document of the filing (``ANNUAL``); any other exhibit is a press release of
    the 8-K (``8-K``)."""
    if base_form(filing_form) == ANNUAL and exhibit_type.upper().startswith(ANNUAL_REPORT_EXHIBIT):
        return ANNUAL
    return EARNINGS if _FIRST_EX99.match(exhibit_type.upper()) and RESULTS_ITEMS & set(items) else "8-K"


def exhibit_label(exhibit_type: str | None, form: str | None, accession: str | None) -> str:
    """How a reader is told what an exhibit is: ``EX-99.1 (earnings release) of 8-K 0000320193-24-000005``;
    empty for a document that is not an exhibit."""
    if not exhibit_type:
        return ""
    if form == ANNUAL:
        return f"{exhibit_type} (annual report to stockholders) of 10-K {accession or ''}".rstrip()
    kind = "earnings release" if form == EARNINGS else "press release"
    return f"{exhibit_type} ({kind}) of 8-K {accession or ''}".rstrip()


def check_window(filed_from: dt.date | None, filed_to: dt.date | None) -> None:
    """A filing-date window is inclusive on both ends; either end may be open."""
    if filed_from and filed_to and filed_from > filed_to:
        raise ValueError(f"filed_from {filed_from} is after filed_to {filed_to}")


def in_window(day: dt.date, filed_from: dt.date | None, filed_to: dt.date | None) -> bool:
    return (filed_from is None or day >= filed_from) and (filed_to is None or day <= filed_to)


def normalize_ticker(ticker: str) -> str:
    """SEC's spelling: upper case, class separator as a dash (BRK.B -> BRK-B)."""
    return ticker.strip().upper().replace(".", "-").replace("/", "-")


def normalize_tickers(tickers: Iterable[str]) -> list[str] | None:
    """Upper case, de-duplicated in order (the universe matches them in SEC's spelling); ``None`` for ``ALL``
    (every constituent of the universe CSV); raises ValueError naming what is not a ticker."""
    raw = [t.strip() for t in tickers if t.strip()]
    if [t.upper() for t in raw] == [ALL_TICKERS]:
        return None
    bad = [t for t in raw if not _TICKER_RE.match(t)]
    if bad:
        raise ValueError(f"not a ticker: {', '.join(bad)}")
    return list(dict.fromkeys(t.upper() for t in raw))


# --- fiscal periods -------------------------------------------------------------------------------------
def fiscal_period_of(period_end: dt.date, form: str, fiscal_year_end: str | None) -> tuple[int, str]:
    """(fiscal year, FY or Qn) of a period from the company's fiscal year end (MMDD), for filings whose
    cover does not say (no iXBRL). The fiscal year is the calendar year its fiscal year ends in, as most
    filers number theirs (``dei:DocumentFiscalYearFocus``; not all: ``filer_year_shift``); 52/53-week years
    may end up to two weeks off the nominal date, either side of it: Johnson & Johnson's fiscal 2022, whose
    nominal end is December 31, ended on January 1, 2023, so the nominal ends are tried from the year before
    the period's."""
    end = _nominal_end(period_end, fiscal_year_end, period_end.year - 1)
    if form == "10-K":
        return end.year, "FY"
    quarter = 4 - round((end - period_end).days / QUARTER_DAYS)
    return end.year, f"Q{min(4, max(1, quarter))}"


def _nominal_end(day: dt.date, fiscal_year_end: str | None, first_year: int) -> dt.date:
    """The first nominal fiscal year end (MMDD, December 31 when unknown) from ``first_year`` on that is at
    most two weeks before ``day`` (a 52/53-week year's end may fall that far past its nominal one)."""
    month, mday = (int(fiscal_year_end[:2]), int(fiscal_year_end[2:])) if fiscal_year_end else (12, 31)
    year = first_year
    while (end := dt.date(year, month, min(mday, calendar.monthrange(year, month)[1]))) < \
            day - dt.timedelta(days=15):
        year += 1
    return end


def as_date(value: dt.date | str) -> dt.date:
    """A date as a record holds it: a date, or its ISO text (an index's record, a JSON file)."""
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def year_end_of(period_end: dt.date, fiscal_period: str | None) -> str | None:
    """The day (MMDD) a company's fiscal year ends, read off one report: a year's (or its fourth quarter's)
    period ends on it, a quarter's the remaining quarters before it (a month's last day: the year's month's
    last day; a 52/53-week year: about); None for a period that is no quarter nor year."""
    period = (fiscal_period or "").upper()
    left = 0 if period == "FY" else 4 - int(period[1]) if period in QUARTERS else None
    if left is None:
        return None
    months = period_end.month - 1 + 3 * left
    year, month = period_end.year + months // 12, months % 12 + 1
    last = calendar.monthrange(year, month)[1]
    month_end = period_end.day == calendar.monthrange(period_end.year, period_end.month)[1]  # June 30: December 31
    return f"{month:02d}{last if month_end else min(period_end.day, last):02d}"


def event_fiscal_year(day: dt.date, year_end: str, shift: int = 0) -> int:
    """The fiscal year an event's day falls in, for a company whose years end on ``year_end`` (MMDD) and are
    numbered ``shift`` from the calendar year they end in (``filer_year_shift``): NVIDIA's years end in late
    January, so March 2026 is its fiscal 2027. A day is no period's end: the nominal ends are tried from its
    own calendar year, so a calendar-year company's January 5 is of the year it begins, whatever the weeks."""
    return _nominal_end(day, year_end, day.year).year + shift


QUARTERS = ("Q1", "Q2", "Q3", "Q4")  # a quarter's period label; the fourth is the annual report's
ANNUAL_PERIOD = "FY"  # the whole fiscal year's period label
YEAR_TO_DATE = {"Q2": "H1", "Q3": "9M"}  # a 10-Q's year-to-date span beside its quarter: six, nine months
PERIOD_MONTHS = {**{q: 3 for q in QUARTERS}, "H1": 6, "9M": 9, ANNUAL_PERIOD: 12}  # each label's span
QUARTER_DAYS = 91.3  # a quarter's mean length
# Companies that close their periods on a weekday count them in weeks: a quarter of 12 to 17 weeks (PepsiCo's
# 12-week quarters and 16- or 17-week fourth; a 4-4-5 calendar's 13), year to date 24 to 28 and 36 to 40 weeks
# (PepsiCo's 36 weeks to September are eight months and a half): a span of whole weeks this close to whole
# quarters is them.
WEEKS_SLACK = 4


def weeks_quarters(weeks: int) -> int | None:
    """The whole quarters (1 to 4) a span of weeks is, within ``WEEKS_SLACK`` weeks of 13 each: 12 or 16 weeks
    one, 36 three, 52 or 53 four; None for a span between (20 weeks)."""
    quarters = round(weeks / 13)
    return quarters if 1 <= quarters <= 4 and abs(weeks - 13 * quarters) <= WEEKS_SLACK else None


def span_weeks(start: dt.date, end: dt.date) -> int | None:
    """The weeks a dated span is when it is whole weeks, its first and last days counted (XBRL's dates: a
    period runs from its start date's beginning to its end date's end); None for a span of months (January 1
    to April 30) or of odd days."""
    days = (end - start).days + 1
    return days // 7 if days % 7 == 0 else None


def weeks_months(weeks: int) -> int | None:
    """The months a span written in weeks stands for ("the 36 weeks ended September 9": nine, year to date;
    "52 weeks ended": twelve), as the periods questions name in months are counted; None for other lengths."""
    quarters = weeks_quarters(weeks)
    return 3 * quarters if quarters else None


def fact_period(start: dt.date | None, end: dt.date, fiscal_year_end: str | None) -> tuple[int, str]:
    """(fiscal year, period) of an XBRL context: durations of about a year are ``FY``, a quarter ``Q1``..``Q4``,
    six and nine months ``H1`` and ``9M`` (year to date), each counted in whole weeks too (:func:`weeks_quarters`),
    other lengths ``<n>M``; an instant is ``FY`` at the fiscal year's end and ``Q1``..``Q3`` at a quarter's end
    (a balance sheet date). The fiscal year is the one the period ends in (``fiscal_period_of``)."""
    year, quarter = fiscal_period_of(end, "10-Q", fiscal_year_end)
    if start is None:
        return year, "FY" if quarter == "Q4" else quarter
    weeks = span_weeks(start, end)
    months, quarters = round((end - start).days / 30.44), weeks_quarters(weeks) if weeks else None
    if 11 <= months <= 13:
        return year, "FY"
    if months == 3 or quarters == 1:
        return year, quarter
    if quarter in YEAR_TO_DATE and int(quarter[1]) in (months / 3, quarters):
        return year, YEAR_TO_DATE[quarter]  # six or nine months to date, or the weeks that are (36 weeks: 9M)
    return year, f"{months}M"


def asked_period(quarter: int, year_to_date: bool) -> str | None:
    """The period label (:func:`fact_period`'s) of a quarter a question names: its three months (``Q2``), or
    the six or nine months to its end (``H1``, ``9M``: "the first six months of 2023"). None for the second
    half, which no fact is labelled by (the annual report answers it)."""
    label = f"Q{quarter}"
    if not year_to_date or quarter == 1:
        return label
    return YEAR_TO_DATE.get(label)


def ended_periods(months: int) -> tuple[str, ...]:
    """The period labels of a span a question names by its length and last day ("the three months ended June
    30, 2023", "the quarter ended July 1, 2023"): any quarter's three months (which quarter of its fiscal
    year the day ends is the filing's to say), the six or nine months to date; none for a year's."""
    return {3: QUARTERS, 6: (YEAR_TO_DATE["Q2"],), 9: (YEAR_TO_DATE["Q3"],)}.get(months, ())


FISCAL_YEAR_FOCUS = "dei:DocumentFiscalYearFocus"  # the filer's own number for the document's fiscal year
FILER_YEAR_RULE = "filer-year-1"  # names the rule below in the facts index's fingerprint (a change redoes it)


def filer_year_shift(focus: str | None, ruled_year: int | None) -> int:
    """What to add to ``fact_period``'s fiscal years so they number as the filer numbers its own: a retailer
    whose year ends in January may call the year ending January 28, 2024 "fiscal 2023" (Home Depot, Lowe's)
    or "fiscal 2024" (Walmart, NVIDIA), and no calendar rule tells which. ``focus``: the document's
    ``dei:DocumentFiscalYearFocus`` text, ``ruled_year``: the year ``fact_period`` gave that fact. Only a
    shift of one year is taken; anything else (a typo, no focus) leaves the years as ruled."""
    focus = (focus or "").strip()
    if ruled_year is None or not (len(focus) == 4 and focus.isdigit()):
        return 0
    shift = int(focus) - ruled_year
    return shift if shift in (-1, 1) else 0


# --- XBRL concept names ------------------------------------------------------------------------------------
def split_concept(name: str) -> str:
    """``OperatingIncomeLoss`` -> "Operating Income Loss", ``EBITDAMargin`` -> "EBITDA Margin" (a local name)."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name))


def concept_words(concept: str) -> str:
    """``us-gaap:GrossProfit`` -> "gross profit": what a concept's name says, lower case, as search words."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", split_concept(concept.rsplit(":", 1)[-1]).lower()).split())
