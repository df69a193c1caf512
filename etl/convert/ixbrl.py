"""Inline XBRL facts of a filing, each with the EDGAR page it is printed on and the table row it sits in.

Read from the same parsed, page-marked DOM the renderer gets (``etl.convert.html_prepare``), in one walk: so a fact's
page is the page its text is on in the paged PDF. Contexts (period, dimensions) and units come from
``ix:resources``; ``continuedAt`` chains are followed to their last ``ix:continuation``; a fact nested in
another (a figure inside a text block) is a fact of its own. Facts in ``ix:hidden`` take the page of the
element that shows them (``-sec-ix-hidden: <id>``), else the page of the iXBRL header.

A numeric fact's value is its displayed text read under its ``format`` (``ixt:num-dot-decimal`` and the
others SEC allows), times ``10**scale``, negated when ``sign="-"``. A display that does not read under its
format keeps ``value`` null with the reason in ``problem``: a figure is never guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from domain.rules import fact_period
from domain.text import lower_words
from etl.convert.html_tables import cell_text, is_figure
from etl.convert.page_markers import paged_elements, strip_markers
from schemas.facts import ExtractedFact as Fact

TEXT_LIMIT = 2000  # characters of a text fact's display kept in the dataset (text_chars has the whole length)
_WS_RE = re.compile(r"\s+")
_HIDDEN_RE = re.compile(r"-sec-ix-hidden\s*:\s*([^;\s\"']+)", re.I)
_DOT_DECIMAL_RE = re.compile(r"^(\d{1,3}([, \u00a0]\d{3})*|\d+)(\.\d*)?$|^\.\d+$")
_COMMA_DECIMAL_RE = re.compile(r"^(\d{1,3}([. \u00a0]\d{3})*|\d+)(,\d*)?$")
_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"])}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORDS.update({"no": 0, "none": 0, "nil": 0, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
               "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "a": 1, "an": 1})
FACT_TAGS = ("ix:nonfraction", "ix:nonnumeric")


@dataclass
class Context:
    period_type: str
    start: dt.date | None
    end: dt.date | None
    dimensions: list[str]


class FactValueError(ValueError):
    """A numeric fact's display does not read under its format."""


def _fold(text: str) -> str:
    return _WS_RE.sub(" ", strip_markers(text).replace("\u200b", "")).strip()


def _date(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def _local(tag: str) -> str:
    return tag.rsplit(":", 1)[-1]


def contexts(root) -> dict[str, Context]:
    """Context id -> period and dimensions, from ``xbrli:context`` elements (the HTML parser lowercases tags)."""
    out = {}
    for ctx in root.iter("xbrli:context"):
        start = end = None
        kind = "forever"
        dims = []
        for el in ctx.iter():
            if not isinstance(el.tag, str):
                continue
            name = _local(el.tag)
            if name == "instant":
                kind, end = "instant", _date(el.text)
            elif name == "startdate":
                kind, start = "duration", _date(el.text)
            elif name == "enddate":
                end = _date(el.text)
            elif name in ("explicitmember", "typedmember"):
                dims.append(f"{el.get('dimension')}={_fold(el.text_content())}")
        out[ctx.get("id")] = Context(kind, start, end, sorted(dims))
    return out


def units(root) -> dict[str, str]:
    """Unit id -> ``USD``, ``shares``, ``USD/shares`` (namespace prefixes dropped)."""
    out = {}
    for unit in root.iter("xbrli:unit"):
        def measures(parent) -> str:
            return "*".join(_local(_fold(m.text or "")) for m in parent.iter("xbrli:measure"))
        num, den = next(unit.iter("xbrli:unitnumerator"), None), next(unit.iter("xbrli:unitdenominator"), None)
        out[unit.get("id")] = f"{measures(num)}/{measures(den)}" if num is not None and den is not None \
            else measures(unit)
    return out


def number(display: str, fmt: str | None) -> Decimal:
    """The displayed number under an ixt format (without scale or sign); FactValueError when it does not read."""
    name = _local(fmt or "").replace("-", "").lower()
    text = display.strip()
    if name in ("fixedzero", "zerodash", "fixedempty"):
        return Decimal(0)
    if name in ("numwordsen", "numworden"):
        words = [w for w in lower_words(text) if w != "and"]  # "one hundred and twenty-five"
        if words and all(w in _WORDS or w in _SCALES for w in words):
            total = group = 0
            for w in words:
                if w in _SCALES:
                    total, group = total + max(group, 1) * _SCALES[w], 0
                else:
                    group = group * 100 if w == "hundred" else group + _WORDS[w]
            return Decimal(total + group)
        raise FactValueError(f"{display!r} is not a number in words ({fmt})")
    if name in ("numcommadecimal", "numdotcomma", "numspacecomma", "numcomma"):
        if not _COMMA_DECIMAL_RE.match(text):
            raise FactValueError(f"{display!r} does not read as {fmt}")
        return Decimal(re.sub(r"[. \u00a0]", "", text).replace(",", "."))
    if name in ("numdotdecimal", "numcommadot", "numspacedot", "numdotdecimalin", "num", ""):
        if not _DOT_DECIMAL_RE.match(text):
            raise FactValueError(f"{display!r} does not read as {fmt or 'a plain number'}")
        return Decimal(re.sub(r"[, \u00a0]", "", text))
    raise FactValueError(f"format {fmt} is not read here (display {display!r})")


def scaled(value: Decimal, scale: int, negated: bool) -> float:
    """The fact's value: the displayed number times 10**scale, negated for sign='-'."""
    out = value.scaleb(scale)
    return float(-out if negated else out)


class _Tables:
    """Row labels and column headers of the tables facts sit in (each table's header read once)."""

    def __init__(self) -> None:
        self._headers: dict = {}
        self._rows: dict = {}

    @staticmethod
    def _cells(tr) -> list[tuple[int, int, object]]:
        out, col = [], 0
        for td in tr:
            if isinstance(td.tag, str) and td.tag in ("td", "th"):
                try:
                    span = max(1, int(td.get("colspan") or 1))
                except ValueError:
                    span = 1
                out.append((col, col + span, td))
                col += span
        return out

    def _header(self, table) -> list[list[tuple[int, int, str]]]:
        if table not in self._headers:
            rows = []
            for tr in table.iter("tr"):
                texts = [(a, b, cell_text(td)) for a, b, td in self._cells(tr)]
                if any(is_figure(t) for _, _, t in texts[1:] if t):
                    break
                if any(t for _, _, t in texts):
                    rows.append(texts)
                if len(rows) == 4:
                    break
            self._headers[table] = rows
        return self._headers[table]

    def place(self, el) -> tuple[str | None, str | None]:
        """(row label, column header) of the table cell holding ``el``; (None, None) outside a table."""
        td = next((a for a in el.iterancestors("td", "th")), None)
        tr = td.getparent() if td is not None else None
        table = next(tr.iterancestors("table"), None) if tr is not None else None
        if table is None:
            return None, None
        if tr not in self._rows:  # a row holds several facts (one per period column): read it once
            cells = self._cells(tr)
            self._rows[tr] = cells, next((t for _, _, c in cells
                                          if (t := cell_text(c)) and not is_figure(t) and t not in ("$", "%")), None)
        cells, label = self._rows[tr]
        col = next((a for a, _, c in cells if c is td), None)
        heads = []
        for row in self._header(table):
            text = next((t for a, b, t in row if a <= col < b and t), None) if col is not None else None
            if text and text != label:
                heads.append(text)
        return (label[:300] if label else None), (" / ".join(heads)[:300] or None)


@dataclass
class _Document:
    """What one walk over the DOM learns, for every fact to use."""

    contexts: dict[str, Context]
    units: dict[str, str]
    fiscal_year_end: str | None
    page_of: dict = field(default_factory=dict)  # fact or continuation element -> page
    shown_at: dict[str, int] = field(default_factory=dict)  # hidden fact id -> page of the element showing it
    continuations: dict[str, object] = field(default_factory=dict)
    hidden: set = field(default_factory=set)  # facts inside ix:hidden
    header_page: int = 0
    tables: _Tables = field(default_factory=_Tables)


def extract(root, fiscal_year_end: str | None = None) -> list[Fact]:
    """Every fact of a page-marked iXBRL DOM, in document order (an empty list for plain HTML)."""
    if next(root.iter(*FACT_TAGS), None) is None:
        return []
    doc = _Document(contexts(root), units(root), fiscal_year_end)
    for el, page in paged_elements(root):
        tag = el.tag
        if tag in FACT_TAGS:
            doc.page_of[el] = page
        elif tag == "ix:continuation":
            doc.page_of[el] = page
            doc.continuations[el.get("id")] = el
        elif tag == "ix:header":
            doc.header_page = page
        style = el.get("style")
        if style and "-sec-ix-hidden" in style:
            for ref in _HIDDEN_RE.findall(style):
                doc.shown_at.setdefault(ref, page)
    for block in root.iter("ix:hidden"):
        doc.hidden.update(block.iter(*FACT_TAGS))
    return [_fact(seq, el, doc) for seq, el in enumerate(root.iter(*FACT_TAGS))]


def _fact(seq: int, el, doc: _Document) -> Fact:
    numeric = el.tag == "ix:nonfraction"
    ix_id = el.get("id")
    hidden = el in doc.hidden
    page = doc.shown_at.get(ix_id, doc.header_page) if hidden else doc.page_of.get(el, 0)
    text, end_page = el.text_content(), page
    seen = set()
    nxt = el.get("continuedat")
    while nxt and nxt not in seen and nxt in doc.continuations:  # a cycle or a dangling reference ends the chain
        seen.add(nxt)
        cont = doc.continuations[nxt]
        text += " " + cont.text_content()
        end_page = max(end_page, doc.page_of.get(cont, end_page))
        nxt = cont.get("continuedat")
    display = _fold(text)
    ctx = doc.contexts.get(el.get("contextref"), Context("forever", None, None, []))
    year = period = None
    if ctx.end is not None:
        year, period = fact_period(ctx.start, ctx.end, doc.fiscal_year_end)
    nil = (el.get("xsi:nil") or "").lower() == "true"
    fmt = el.get("format")
    try:
        scale = int(el.get("scale") or 0)
    except ValueError:
        scale = 0
    negated = el.get("sign") == "-"
    value, problem = None, None
    if numeric and not nil:
        try:
            value = scaled(number(display, fmt), scale, negated)
        except (FactValueError, InvalidOperation) as exc:
            problem = str(exc)
    label, header = doc.tables.place(el) if not hidden else (None, None)
    return Fact(seq=seq, ix_id=ix_id, concept=el.get("name") or "", kind="numeric" if numeric else "text",
                value=value, display=display[:TEXT_LIMIT], text_chars=len(display),
                unit=doc.units.get(el.get("unitref")) if numeric else None, decimals=el.get("decimals"),
                scale=scale, negated=negated, format=fmt, nil=nil, context_id=el.get("contextref") or "",
                period_type=ctx.period_type, period_start=ctx.start, period_end=ctx.end, fiscal_year=year,
                fiscal_period=period, dimensions=ctx.dimensions, hidden=hidden, page=page,
                end_page=max(page, end_page), row_label=label, column_header=header, problem=problem)
