"""Fiscal periods as people write them (words: ``domain.text``).

Periods (:func:`periods`): fiscal years and quarters as users write them: 2023, FY2023, FY23, fiscal 2023,
FY2023Q1, Q1 FY2023, Q1 2023, Q1'23, 1Q23, first quarter (of fiscal 2023); half years (H1 FY2023, 1H23,
first half of 2023), answered by the second quarter's report, which covers six months (the second half:
by the fourth quarter's); year-to-date spans (six / nine months ended, the first six / nine months of 2023:
the second / third quarter's report; the first three months: the first quarter), counted in weeks too by
companies whose quarters end on a weekday (the 24 / 36 weeks ended, the first 36 weeks of 2023). Table heads
(:func:`head_months`): the spans a table's column titles print ("Three months ended", "Full Year").
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.rules import ANNUAL, EARNINGS, QUARTERLY, YEAR_TO_DATE, weeks_months, weeks_quarters
from domain.sec_items import STATEMENT_ITEMS
from domain.text import without_names, words


@dataclass(frozen=True)
class Period:
    """A period mention: where it is in the text, its fiscal year (if written) and quarter (if any)."""

    start: int
    end: int
    year: int | None
    quarter: int | None
    half: bool = False  # a half year or a year-to-date span, answered by a quarter's report
    worded: bool = False  # written in words ("first quarter of 2023"), as filings print it

    def printed(self) -> str:
        """How filings print it, for lexical search: "Q1 2023", "six months 2023", "2023" ("": as written)."""
        year = str(self.year) if self.year else ""
        if self.worded:
            return ""
        if self.quarter is None:
            return year
        label = {2: "six months", 3: "nine months", 4: "fourth quarter"}[self.quarter] if self.half else \
            f"Q{self.quarter}"
        return f"{label} {year}".strip()


_Y = r"((?:19|20)\d{2})"
_YY = r"(\d{2})"
_FY = r"(?:fy|fiscal(?:\s+year)?)"
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_SPAN = {"six": 2, "nine": 3}
_FIRST_MONTHS = {"three": 1, "six": 2, "nine": 3}  # "the first six months of 2023": the quarter's report, to date
# (pattern, what its groups are) in the order they are tried; a span matched once is not matched again.
_PATTERNS: list[tuple[re.Pattern, str]] = [
    (re.compile(rf"\b{_FY}\s*'?(?:{_Y}|{_YY})\s*[-/]?\s*q([1-4])\b"), "yq"),  # FY2023Q1, FY23 Q1
    (re.compile(rf"\bq([1-4])\s*(?:of\s+)?(?:{_FY}\s*)?'?\s*{_Y}\b"), "qy"),  # Q1 2023, Q1 FY2023, Q12023
    (re.compile(rf"\bq([1-4])\s*(?:'|{_FY}\s*'?)\s*{_YY}\b"), "qyy"),  # Q1'23, Q1 FY23
    (re.compile(rf"\b([1-4])q\s*(?:{_FY}\s*)?'?(?:{_Y}|{_YY})\b"), "qy2"),  # 1Q23, 1Q 2023, 4Q FY2022
    (re.compile(rf"\bh([12])\s*(?:of\s+)?(?:{_FY}\s*)?'?\s*(?:{_Y}|{_YY})?\b"), "hy"),  # H1 FY2023, H1 2023, H2
    (re.compile(rf"\b([12])h\s*'?(?:{_Y}|{_YY})\b"), "hy"),  # 1H23
    (re.compile(rf"\b(first|second|third|fourth)[\s-]+(?:fiscal[\s-]+)?quarter(?:\s+of)?(?:\s+(?:the\s+)?{_FY})?"
                rf"(?:\s*'?{_Y})?"), "oq"),
    (re.compile(rf"\b(first|second)[\s-]+half(?:\s+of)?(?:\s+(?:the\s+)?{_FY})?(?:\s*'?{_Y})?"), "oh"),
    (re.compile(r"\b(six|nine)\s+months\s+ended\b"), "span"),
    (re.compile(rf"\bfirst\s+(three|six|nine)\s+months(?:\s+of)?(?:\s+(?:the\s+)?{_FY})?(?:\s*'?{_Y})?"), "fm"),
    (re.compile(r"\b(\d{2})[\s-]+weeks\s+ended\b"), "wspan"),  # "the 36 weeks ended September 9, 2023"
    (re.compile(rf"\b(first\s+)?(\d{{2}})[\s-]+weeks(?:\s+of)?(?:\s+(?:the\s+)?{_FY})?(?:\s*'?{_Y})?"), "fw"),
    (re.compile(rf"\b{_FY}\s*'?{_YY}\b"), "fyy"),  # FY23
    (re.compile(rf"\b(?:{_FY}\s*'?)?{_Y}\b"), "y"),  # 2023, FY2023, fiscal year 2023
    (re.compile(r"\bq([1-4])\b"), "q"),
]


def _year(four: str | None, two: str | None = None) -> int | None:
    return int(four) if four else 2000 + int(two) if two else None


def _period(kind: str, m: re.Match) -> Period | None:
    """The period a pattern's match names; None for a span of weeks that is no whole quarters, or a quarter's
    weeks that do not say which ("the 12 weeks of 2023"): left to the other patterns and ``period_ended``."""
    g = m.groups()
    at = (m.start(), m.end())
    if kind in ("wspan", "fw"):
        return _weeks(at, g, kind)
    if kind == "yq":
        return Period(*at, _year(g[0], g[1]), int(g[2]))
    if kind in ("qy", "qyy"):
        return Period(*at, _year(g[1]) if kind == "qy" else _year(None, g[1]), int(g[0]))
    if kind == "qy2":
        return Period(*at, _year(g[1], g[2]), int(g[0]))
    if kind == "hy":
        return Period(*at, _year(g[1], g[2]), 2 if g[0] == "1" else 4, half=True)
    if kind == "oq":
        return Period(*at, _year(g[1]), _ORDINAL[g[0]], worded=True)
    if kind == "oh":
        return Period(*at, _year(g[1]), 2 if g[0] == "first" else 4, half=True, worded=True)
    if kind == "span":
        return Period(*at, None, _SPAN[g[0]], half=True, worded=True)
    if kind == "fm":
        quarter = _FIRST_MONTHS[g[0]]
        return Period(*at, _year(g[1]), quarter, half=quarter > 1, worded=True)
    if kind == "fyy":
        return Period(*at, _year(None, g[0]), None)
    if kind == "y":
        return Period(*at, _year(g[0]), None)
    return Period(*at, None, int(g[0]))


def _weeks(at: tuple[int, int], g: tuple, kind: str) -> Period | None:
    """A year-to-date span written in weeks ("the 36 weeks ended ...", "the first 24 weeks of 2023"), as the
    quarters it stands for (``domain.rules.weeks_quarters``); the first quarter's when said "first 12 weeks"."""
    quarters = weeks_quarters(int(g[0] if kind == "wspan" else g[1]))
    if kind == "wspan":
        return Period(*at, None, quarters, half=True, worded=True) if quarters in (2, 3) else None
    first, year = bool(g[0]), _year(g[2])
    if quarters in (2, 3) and (first or year):
        return Period(*at, year, quarters, half=True, worded=True)
    return Period(*at, year, 1, worded=True) if quarters == 1 and first else None


# A day as questions and filings write it ("June 30, 2023", "Sept. 30 2021"): month, day, year.
_DAY = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b"
_DATE = re.compile(rf"\b{_DAY}", re.I)


_MONTH = {m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), start=1)}
_ENDED = re.compile(r"\b(?:(three|six|nine|twelve|3|6|9|12)[\s-]+months?|(quarter|(?:fiscal\s+)?year)|(\d{2})[\s-]+weeks?)"
                    rf"\s+end(?:ed|ing)\s+(?:on\s+)?{_DAY}", re.I)
_SPAN_MONTHS = {"three": 3, "six": 6, "nine": 9, "twelve": 12, "quarter": 3}
PERIOD_END_SLACK = 15  # days a 52/53-week period's last day may stand off the day a question names


def period_ended(text: str) -> tuple[int, dt.date] | None:
    """(months, last day) of a span the text names by its end, as filings head their columns ("the three
    months ended June 30, 2023", "the quarter ended July 1, 2023", "fiscal year ended January 28, 2024"), or
    a quarter by its last month ("the December quarter of 2023": that month's last day): the report whose
    period ends that day answers, whatever number its fiscal year carries. None when no span is named so,
    or its day is not a date."""
    m = _ENDED.search(text or "")
    if not m:
        return _month_quarter(text)
    span = (m.group(1) or m.group(2) or "").lower()
    months = weeks_months(int(m.group(3))) if m.group(3) else \
        int(span) if span.isdigit() else _SPAN_MONTHS.get(span.split()[-1], 12)
    day = _day(*m.group(4, 5, 6))
    return (months, day) if day and months else None


# A quarter named by the month it ends in ("the December quarter of 2023", "the June 2023 quarter"), as
# companies whose fiscal year is not the calendar's say it: the quarter whose last day is in that month.
_MONTH_QUARTER = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:((?:19|20)\d{2})\s+"
                            r"quarter|quarter\s+(?:of\s+)?((?:19|20)\d{2}))\b", re.I)


def _month_quarter(text: str | None) -> tuple[int, dt.date] | None:
    """(3, the month's last day) of a quarter named by its last month and year, or None."""
    m = _MONTH_QUARTER.search(text or "")
    if not m:
        return None
    return 3, _month_end(m.group(1), int(m.group(2) or m.group(3)))


def _month_end(month: str, year: int) -> dt.date:
    """The last day of a month named by its word ("December", "sept"), in a year."""
    number = _MONTH[month.lower()[:3]]
    return dt.date(year, number, calendar.monthrange(year, number)[1])


def _day(month: str, day: str, year: str) -> dt.date | None:
    """A day as ``_DAY`` matched it (month word, day, year); None when there is no such day ("June 31")."""
    try:
        return dt.date(int(year), _MONTH[month.lower()[:3]], int(day))
    except ValueError:
        return None


def ends_on(period_end: dt.date | None, day: dt.date) -> bool:
    """Whether a report's period ends on the named day (within a 52/53-week year's slack)."""
    return period_end is not None and abs((period_end - day).days) <= PERIOD_END_SLACK


RELEASE_LAG_DAYS = 100  # an earnings release comes out within about a quarter of its quarter's last day


def releases_quarter(release_day: dt.date | None, day: dt.date) -> bool:
    """Whether an earnings release dated ``release_day`` (a release's own date stands for its period's end in
    the catalog) reports the quarter that ended on ``day``: it ends then, or the release follows it within
    ``RELEASE_LAG_DAYS`` (Apple's release of February 1, 2024 reports the quarter ended December 30, 2023)."""
    return release_day is not None and (ends_on(release_day, day) or
                                        0 <= (release_day - day).days <= RELEASE_LAG_DAYS)


# A month and its year with no day ("daily users in June 2023", "as of September 2023"): its last day
_MONTH_YEAR = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|"
                         r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?\s+(?:of\s+)?"
                         r"((?:19|20)\d{2})\b", re.I)


# The middle of a calendar year ("as of mid-2023", "at midyear 2023", "in the middle of 2023"): June's end
_MID_YEAR = re.compile(r"\b(?:mid|the\s+middle\s+of)[\s-]*(?:year\s+|year[\s-]*of\s+)?((?:19|20)\d{2})\b", re.I)


def named_day(text: str) -> dt.date | None:
    """The first day the text names ("as of June 30, 2023", "three months ended March 31, 2024"): a balance
    or a span at that date, which may be a quarter's end as well as a year's; a month named with its year and
    no day, its last day ("in June 2023": the report whose period ends with that month); the middle of a
    year, June's end ("mid-2023": the report of the six months to June, the second quarter's of a calendar
    fiscal year). None when it names none (or none that is a date: "June 31")."""
    day = next(filter(None, (_day(*m.groups()) for m in _DATE.finditer(text or ""))), None)
    if day is not None:
        return day
    month = _MONTH_YEAR.search(text or "")
    if month is not None:
        return _month_end(month.group(1), int(month.group(2)))
    mid = _MID_YEAR.search(text or "")
    return dt.date(int(mid.group(1)), 6, 30) if mid else None


def month_named(text: str) -> bool:
    """Whether the text names a month with its year and no day ("in March 2023"): :func:`named_day` reads it as
    its last day (a balance's), while an event of that month may be of any of its days."""
    return not any(_day(*m.groups()) for m in _DATE.finditer(text or "")) and bool(_MONTH_YEAR.search(text or ""))


def in_month(date: dt.date | None, day: dt.date) -> bool:
    """Whether ``date`` falls in the month of ``day``."""
    return date is not None and (date.year, date.month) == (day.year, day.month)


def _masked(text: str | None) -> str:
    """The text lowered, its curly apostrophes straight: what the period patterns read."""
    return (text or "").lower().replace("’", "'")


def periods(text: str) -> list[Period]:
    """Every period the text mentions, in order (see the module docstring)."""
    masked = _masked(text)
    found: list[Period] = []
    def take(m: re.Match, kind: str) -> str:
        period = _period(kind, m)
        if period is None:
            return m.group(0)  # not a period: its words stay for the patterns after
        found.append(period)
        return " " * len(m.group(0))

    for pattern, kind in _PATTERNS:
        masked = pattern.sub(lambda m, kind=kind: take(m, kind), masked)
    return sorted(found, key=lambda p: p.start)


def opens_with_code(text: str) -> bool:
    """Whether the text opens (after spaces) with a period written as a code, not a bare year: "FY24", "2Q23",
    "Q2'23", "Q1 FY24", "1H23", "FY2023". An analyst's terminal writes a company's ticker right before one
    ("LOW FY23 SG&A", "V FY24 net revenue"), where no one writes a word ("ALL 2023 filings" stays a word)."""
    stripped = (text or "").lstrip()
    found = periods(stripped)
    return bool(found) and found[0].start == 0 and not stripped[:found[0].end].strip().isdigit()


_PERIOD_WORD = re.compile(r"\b(?:fiscal|quarter(?:ly)?|annual(?:ly)?|years?|fy|ytd|ttm|q[1-4]|[1-4]q)\b", re.I)


def names_period(text: str) -> bool:
    """Whether the text names a fiscal period, a year or in words ("last three fiscal years", "the quarter"):
    what a question about a reported figure does, and a sentence using a name's word as a word rarely does."""
    return bool(_PERIOD_WORD.search(text or "") or periods(text))


# Where a question takes its stand: "as of FY2021", "as of the end of fiscal 2022" (a year with no quarter). A
# later year it names is then that report's forecast, maturity or schedule ("as of FY 2021, how much did Verizon
# expect to pay for its retirees in 2024"), not a report to read.
_AS_OF = re.compile(r"\bas\s+of\s+(?:the\s+(?:end|close)\s+of\s+)?$")
# A report named by its period ("in its fourth-quarter 2022 earnings release", "per its 2023 10-K") stands there
# too, a quarter's as well as a year's: a later year named is what that report forecasts ("guidance for 2023").
_REPORT_NAMED = re.compile(r"^\s*(?:form\s+)?(?:10-?k|10-?q|(?:annual|quarterly|earnings|results)\s+(?:press\s+)?"
                           r"(?:report|release)|earnings\s+call|(?:press\s+)?release)\b")


def vantage_year(text: str, found: list[Period] | None = None) -> int | None:
    """The fiscal year a question takes its stand in ("as of FY2021", "in its Q4 2022 earnings release"), or
    None. ``found``: the text's :func:`periods`, when the caller has them already."""
    masked = _masked(text)
    for p in periods(text) if found is None else found:
        as_of = p.quarter is None and _AS_OF.search(masked[:p.start])  # a year's, not a quarter's
        if p.year and (as_of or _REPORT_NAMED.search(masked[p.end:])):
            return p.year
    return None


# A forecast asked ("How much does KO expect to contribute in 2024?", "What capital expenditures did Meta
# anticipate for 2024?", "How many aircraft does it plan to produce in 2023?"): a verb of expectation, with its
# auxiliary or its "to", not an adjective of an assumption ("expected return on plan assets", "projected
# benefit obligation", "estimated useful lives") nor a noun ("the pension plan", "the project", "critical
# accounting estimates for 2025"); "plan" and "project" with their "to" (or after the company: _PLANNED).
_FORECAST = re.compile(r"\b(?:do|does|did|will|would)\b[^?.;]{0,60}?\b(?:expect|anticipate|estimate|forecast|predict)\b"
                       r"|\b(?:expect|anticipate|plan|project|forecast|estimate|intend|predict)(?:s|ed)?\s+to\b"
                       r"|\b(?:expect|anticipate|forecast)(?:s|ed)?\s+(?:for|in|during)\b"
                       r"|\b(?:expects|anticipates|forecasts|predicts)\b|\boutlook\b", re.I)


# "plan" and "project" as the verb of the company named just before them, with no "to" ("How much capital
# expenditure does American Water Works plan for 2022?", "What pension income did Lockheed Martin project for
# 2021?"): with the company's name cut out the auxiliary stands right before the verb, where a noun never does
# ("did it contribute to its pension plan in 2023", "the rate plan in 2019")
_PLANNED = re.compile(r"\b(?:do|does|did|will|would)\s+(?:it\s+|they\s+)?(?:plan|project)\s+(?:for|in|on)\b")


# "as of" shortly before a period ("as of mid-2023", "as of FY2021"): a stand, as vantage_year's _AS_OF, here
# also a half year's or a quarter's, whose report answers what was expected then
_STAND = re.compile(r"\bas\s+of\b[^,;?]{0,25}$")


def forecast_year(text: str, found: list[Period] | None = None, subjects: Sequence[str] = ()) -> int | None:
    """The fiscal year a question asks a forecast of: the latest year it names (a whole year's, no quarter nor
    half), when it asks with a verb of expectation and names no stand. The report of the year before makes
    that forecast (a 10-K says what it expects for the next year); None when no forecast is asked. ``found``:
    the text's :func:`periods`; ``subjects``: the companies' names as the text writes them (a verb of planning
    follows one)."""
    masked = _masked(text)
    found = periods(text) if found is None else found
    beside_names = " ".join(_masked(without_names(text or "", subjects, possessive=False)).split())
    if not (_FORECAST.search(masked) or _PLANNED.search(beside_names)) or \
            any(_STAND.search(masked[:p.start]) for p in found):
        return None  # a stand named ("as of mid-2023"): what was expected then, the stand's report answers
    return max((p.year for p in found if p.year and p.quarter is None and not p.half), default=None)


# a page's sentences, its tables' rows apart: a line opening with a capital ends one (a table's row), which
# :func:`domain.text.sentence_spans`, joining a passage's wrapped lines of prose, would read as one sentence
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n(?=[A-Z•])")
_FORECAST_WORD = re.compile(r"\b(?:expect|anticipat|estimat|forecast|intend)|\b(?:plan|project)(?:s|ed)? to\b"
                            r"|\boutlook\b", re.I)  # "plan", "project" as verbs: the nouns name compensation plans
# the same words as a search's terms, to find such sentences among a document's passages ("plan" is left out:
# as a noun it names the retirement and compensation plans)
FORECAST_TERMS = "expect expects expected anticipate anticipates anticipated estimate estimated forecast intend outlook"


def forecast_sentences(text: str, year: int) -> list[str]:
    """The text's sentences of expectation naming ``year`` ("We expect to contribute approximately $47 million
    in 2024", "We anticipate making capital expenditures of ... in 2024"): where a forecast of that year is
    read, which the year's own figures (reported a year later) are not. A day's year ("February 2, 2024", a
    balance's date over an "Estimated useful lives" column) names no year forecast."""
    named = re.compile(rf"(?<!\d, )(?<!\d,)\b{year}\b")
    return [s for s in _SENTENCE.split(text or "") if _FORECAST_WORD.search(s) and named.search(s)]


def printed_periods(text: str) -> str:
    """The text with each period written as filings print it ("FY2023Q1" -> "Q1 2023", "FY22" -> "2022")."""
    out, at = [], 0
    for p in periods(text):
        out += [text[at:p.start], p.printed() or text[p.start:p.end]]
        at = p.end
    return "".join(out) + text[at:]


# --- which documents report a period -----------------------------------------------------------------

COMPARATIVE_YEARS = 2  # an annual report carries this many prior years (income and cash flow statements)


def reports_period(year: int, quarter: int | None, form: str | None, fiscal_year: int | None,
                   fiscal_period: str | None, absent_items: Iterable[str] = ()) -> bool:
    """Whether a document (its form, fiscal year and period) prints figures of the asked fiscal ``year``
    (and ``quarter``): a fiscal year by its annual report or a later one's comparative columns (up to
    ``COMPARATIVE_YEARS``), or its fourth quarter's earnings release; a quarter by its 10-Q or earnings
    release, a fourth quarter by the year's annual report too. A 10-Q of the year does not report the year,
    nor a report whose statements' Item is absent (incorporated by reference from a document the corpus
    does not hold)."""
    if fiscal_year is None or statements_absent(absent_items):
        return False
    period = (fiscal_period or "").upper()
    annual = form == ANNUAL or period == "FY"
    if quarter is None:
        return (annual and year <= fiscal_year <= year + COMPARATIVE_YEARS) or \
            (fiscal_year == year and form == EARNINGS and period == "Q4")
    return fiscal_year == year and (period == f"Q{quarter}" or (quarter == 4 and annual))


def statements_absent(absent_items: Iterable[str]) -> bool:
    """Whether a report's primary statements are incorporated from a document the corpus does not hold (IBM's
    2023 10-K without its Exhibit 13): its period's figures are not in it."""
    return bool(STATEMENT_ITEMS & set(absent_items))


def period_label(form: str | None, fiscal_year: int | None, fiscal_period: str | None) -> str:
    """A document's period as a reader names what it reports: "FY2023", "Q1 2023", a 10-Q's "H1 2023" (its
    statements cover six months), "9M 2023"; "" without a fiscal year."""
    if fiscal_year is None:
        return ""
    period = (fiscal_period or "").upper()
    if form == ANNUAL or period == "FY":
        return f"FY{fiscal_year}"
    if form == QUARTERLY and period in YEAR_TO_DATE:  # what a 10-Q's statements cover besides its quarter
        return f"{YEAR_TO_DATE[period]} {fiscal_year}"
    return f"{period} {fiscal_year}".strip() if period else str(fiscal_year)


def asked_label(year: int, quarter: int | None) -> str:
    return f"Q{quarter} {year}" if quarter else f"FY{year}"


def period_distance(year: int, quarter: int | None, fiscal_year: int | None, fiscal_period: str | None) -> int:
    """Quarters between the asked period's end and a document's (for "closest")."""
    if fiscal_year is None:
        return 1_000
    period = (fiscal_period or "").upper()
    have = int(period[1]) if period[:1] == "Q" and period[1:2].isdigit() else 4
    return abs((fiscal_year * 4 + have) - (year * 4 + (quarter or 4)))


# Words that only say when, as ``domain.text.words`` stems them: a table's row or heading made of them ("Second
# Quarter", "Six Months Ended") names no part of a company, whatever question repeats them.
PERIOD_WORDS = frozenset(words(
    "fiscal quarter quarters quarterly annual annually year years month months ended ending end first second "
    "third fourth three six nine twelve fy ytd ttm q1 q2 q3 q4 january february march april may june july "
    "august september october november december"))


# --- the span a table's head prints --------------------------------------------------------------------

# A table's columns are headed by the span they cover, as filings print it: "Three Months Ended", "Quarters
# Ended", "Fourth-quarter 2018", "Q2", "QTD"; "Six Months Ended", "First half", "YTD"; "Year Ended", "Twelve
# months ended", "Full Year"; in weeks, "36 Weeks Ended". Each group: the months its words are.
_HEAD_SPANS = (
    (3, r"(?:three|3)[\s-]+months?|(?:first|second|third|fourth)[\s-]+quarters?|quarters?[\s-]+ended|q[1-4]|[1-4]q"
        r"|qtd"),
    (6, r"(?:six|6)[\s-]+months?|first[\s-]+half|h1|1h"),
    (9, r"(?:nine|9)[\s-]+months?|9m"),
    (12, r"(?:twelve|12)[\s-]+months?|full[\s-]+year|(?:fiscal[\s-]+)?years?[\s-]+ended"),
)
_HEAD_SPAN = re.compile("|".join(rf"(?P<m{months}>\b(?:{said})\b)" for months, said in _HEAD_SPANS) +
                        r"|\b(?P<weeks>\d{2})[\s-]+weeks?\b|(?P<ytd>\b(?:ytd|year[\s-]+to[\s-]+date)\b)", re.I)
YEAR_TO_DATE_MONTHS = frozenset({6, 9})  # "YTD" heads the second quarter's six months or the third's nine


def head_months(head: Iterable[str]) -> frozenset[int]:
    """The spans, in months, a table's head (its lines above the rows) prints its columns for: a 10-K's
    "Three months ended" table of the fourth quarter is not the year's, a 10-Q's "Quarters Ended / Six Months
    Ended" table holds both. Empty when the head names none ("2018 | 2017": any span)."""
    found: set[int] = set()
    for m in _HEAD_SPAN.finditer("\n".join(head)):
        if m.lastgroup == "weeks":
            found |= {months} if (months := weeks_months(int(m.group("weeks")))) else set()
        elif m.lastgroup == "ytd":
            found |= YEAR_TO_DATE_MONTHS
        else:  # a group named by its months, "m3"
            found.add(int(m.lastgroup[1:]))
    return frozenset(found)


_MONTH_DAY = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d", re.I)


def head_month_days(head: str) -> frozenset[int]:
    """The months of the year a table's head names with a day ("March 31 | June 30 | September 30"): three
    or more are a year's quarters as columns, not parts of a whole."""
    return frozenset(_MONTH[m.lower()] for m in _MONTH_DAY.findall(head))


_HEAD_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def head_years(head: Iterable[str]) -> frozenset[int]:
    """The years a table's head prints ("YEAR ENDED MAY 31, 2022", "Fiscal 2017"): a segment note printing the
    segments as columns gives each year a table of its own, one under the other. Empty when it prints none."""
    return frozenset(int(y) for y in _HEAD_YEAR.findall("\n".join(head)))
