"""PDF to pages with PyMuPDF, where one output page is one EDGAR page.

A rendered filing carries a marker at the start of every EDGAR page (:mod:`etl.convert.html_prepare`). Each EDGAR
page is the region from its marker to the next one: usually exactly one PDF page, but a long EDGAR page
spills onto a second PDF page, and a break the renderer ignored (inside a table) starts mid-page. We cut
the rendered PDF at the markers' lines and stack the pieces, so page i of the output PDF is EDGAR page i
(0-based, as in LOFin and FinanceBench), and we record which rendered pages each EDGAR page came from.

PDFs that arrive as PDFs have no markers: their pages are taken as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from domain.text import plain_spaces
from etl.convert.page_markers import MARKER_PREFIX, MARKER_RE, strip_markers
from schemas.table_text import render_table

BLANK_HEIGHT = 842.0  # an empty EDGAR page becomes a blank A4 page
EPS = 0.5
# Filings rendered here keep text that wkhtmltopdf placed left of the page (a negative text-indent on a
# heading table pushes "Item 10." off the page); MuPDF drops such text unless told not to clip.
RENDERED_TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_MEDIABOX_CLIP
OFF_PAGE = 2000.0  # horizontal reach of a clip rectangle beyond the page edges


class PdfError(ValueError):
    """The PDF cannot be opened or read (broken, encrypted, empty)."""


@dataclass
class Slice:
    pdf_page: int
    y0: float
    y1: float


@dataclass
class PageText:
    page: int  # 0-based EDGAR page (the PDF page for native PDFs)
    text: str
    rendered_pages: list[int] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)  # header + rows text (etl.convert.html_tables.render_table)


@dataclass
class PagedPdf:
    pdf: bytes
    pages: list[PageText]
    page_basis: str  # "edgar" (cut at page-break markers) or "pdf" (pages as rendered/received)
    rendered_page_count: int
    missing_markers: list[int] = field(default_factory=list)


def open_pdf(data: bytes) -> pymupdf.Document:
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises its own FzError family
        raise PdfError(f"not a readable PDF: {exc}") from None
    if doc.needs_pass:
        raise PdfError("encrypted PDF (password required)")
    if doc.page_count == 0:
        raise PdfError("PDF has no pages")
    return doc


def _marker_positions(doc: pymupdf.Document) -> dict[int, tuple[int, float]]:
    """marker number -> (pdf page, y where its EDGAR page starts: the top of the marker's line, or 0 when
    no word sits above that line, so an honoured break maps to a whole page)."""
    found: dict[int, tuple[int, float]] = {}
    for pno in range(doc.page_count):
        words = doc[pno].get_text("words", flags=RENDERED_TEXT_FLAGS)  # (x0, y0, x1, y1, word, block, line, no)
        hits = [(w, m) for w in words if MARKER_PREFIX in w[4] for m in MARKER_RE.finditer(w[4])]
        if not hits:
            continue
        line_top: dict[tuple[int, int], float] = {}
        for w in words:
            key = (w[5], w[6])
            line_top[key] = min(line_top.get(key, w[1]), w[1])
        for w, m in hits:
            top = line_top[(w[5], w[6])]
            above = any(other[3] <= top + 0.5 for other in words if (other[5], other[6]) != (w[5], w[6]))
            found.setdefault(int(m.group(1)), (pno, max(0.0, top - 0.5) if above else 0.0))
    return found


def _slices(start: tuple[int, float], end: tuple[int, float] | None, doc: pymupdf.Document) -> list[Slice]:
    out = []
    last_page = doc.page_count - 1 if end is None else end[0]
    for pno in range(start[0], last_page + 1):
        height = doc[pno].rect.height
        y0 = start[1] if pno == start[0] else 0.0
        y1 = end[1] if end is not None and pno == end[0] else height
        if y1 - y0 > EPS:
            out.append(Slice(pno, y0, y1))
    return out


def _text(doc: pymupdf.Document, slices: list[Slice], rendered: bool = True) -> str:
    parts = []
    for s in slices:
        page = doc[s.pdf_page]
        full = s.y0 <= EPS and s.y1 >= page.rect.height - EPS
        if not rendered:
            parts.append(page.get_text("text"))
            continue
        clip = None if full else pymupdf.Rect(-OFF_PAGE, s.y0, page.rect.width + OFF_PAGE, s.y1)
        parts.append(page.get_text("text", clip=clip, flags=RENDERED_TEXT_FLAGS))
    return plain_spaces(strip_markers("".join(parts))).strip("\n")


def _found_tables(page: pymupdf.Page) -> list[str]:
    """PyMuPDF's own table finder (slow: ~0.4 s a page), for PDFs without HTML behind them."""
    out = []
    for tab in page.find_tables().tables:
        rows = [[plain_spaces(c or "").replace("\n", " ").strip() for c in row] for row in tab.extract()]
        header = [plain_spaces(n or "").replace("\n", " ").strip() for n in tab.header.names]
        if tab.header.external is False and rows and rows[0] == header:
            rows = rows[1:]
        rows = [[c for c in r if c] for r in rows]
        rows = [r for r in rows if r]
        if len(rows) >= 1 and tab.col_count >= 2:
            out.append(render_table([h for h in header if h], rows))
    return out


def page_pdf(data: bytes, expected_breaks: int | None = None, find_tables: bool = False,
             rendered: bool = False) -> PagedPdf:
    """Cut a PDF into EDGAR pages (when it carries markers) and extract each page's text.

    ``find_tables`` runs PyMuPDF's table finder on PDFs taken page for page (filings rendered here get
    their tables from the HTML instead). ``rendered`` marks a PDF we rendered ourselves: its text is
    read without clipping at the page edge."""
    doc = open_pdf(data)
    try:
        count = doc.page_count
        positions = _marker_positions(doc) if expected_breaks else {}
        if not expected_breaks or not positions:
            pages = [PageText(i, _text(doc, [Slice(i, 0.0, doc[i].rect.height)], rendered), [i],
                              _found_tables(doc[i]) if find_tables else []) for i in range(count)]
            return PagedPdf(data, pages, "pdf", count)
        n = expected_breaks
        missing = [k for k in range(1, n + 1) if k not in positions]
        # A marker that did not render gives its page no content: the region runs to the next one found.
        starts: list[tuple[int, float]] = [(0, 0.0)] + [None] * n  # type: ignore[list-item]
        nxt: tuple[int, float] | None = None
        for k in range(n, 0, -1):
            nxt = positions.get(k, nxt)
            starts[k] = nxt if nxt is not None else (count, 0.0)
        out = pymupdf.open()
        pages = []
        for k in range(n + 1):
            start = starts[k]
            end = starts[k + 1] if k < n else None
            slices = [] if start[0] >= count else _slices(start, end, doc)
            _stack(out, doc, slices)
            pages.append(PageText(k, _text(doc, slices), sorted({s.pdf_page for s in slices})))
        pdf = out.tobytes(garbage=3, deflate=True)
        out.close()
        return PagedPdf(pdf, pages, "edgar", count, missing)
    finally:
        doc.close()


def _stack(out: pymupdf.Document, src: pymupdf.Document, slices: list[Slice]) -> None:
    """Append one output page made of ``slices`` stacked top to bottom."""
    if not slices:
        out.new_page(width=src[0].rect.width, height=BLANK_HEIGHT)
        return
    first = src[slices[0].pdf_page]
    if len(slices) == 1 and slices[0].y0 <= EPS and slices[0].y1 >= first.rect.height - EPS:
        out.insert_pdf(src, from_page=slices[0].pdf_page, to_page=slices[0].pdf_page)
        return
    width = max(src[s.pdf_page].rect.width for s in slices)
    page = out.new_page(width=width, height=sum(s.y1 - s.y0 for s in slices))
    y = 0.0
    for s in slices:
        w = src[s.pdf_page].rect.width
        h = s.y1 - s.y0
        page.show_pdf_page(pymupdf.Rect(0, y, w, y + h), src, s.pdf_page, clip=pymupdf.Rect(0, s.y0, w, s.y1))
        y += h
