"""Filing HTML made safe and page-marked before it is rendered.

Filing HTML is untrusted. Before wkhtmltopdf sees it we decode it ourselves (declared charset, else UTF-8,
else cp1252) and re-declare it as UTF-8, so the renderer never guesses (LOFin's PDFs show ``â˜’`` for ☒
because theirs did); drop scripts, frames, objects, forms and external stylesheets; and strip every URL
that is not an inline ``data:`` URI from ``src``/``href``/CSS ``url()``/``@import``. The renderer's own
sandbox (see :mod:`etl.convert.pdf_render`) is a second, independent wall.

Every CSS page break (``page-break-before/after: always``, also on ``<hr>``) gets an invisible marker
``SECPLATPAGE<n>X`` at the start of EDGAR page n, so after rendering each PDF page can be traced to its
EDGAR page even when a long EDGAR page spills onto two PDF pages.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import NamedTuple

from lxml import etree, html

from etl.convert import ixbrl
from etl.convert.html_tables import tables_by_page
from etl.convert.page_markers import marker_text, strip_markers

_MARKER_STYLE = "font-size:1px;line-height:1px;color:#ffffff;margin:0;padding:0"
_BREAK_RE = re.compile(r"page-break-(before|after)\s*:\s*always", re.I)
_NEG_INDENT_RE = re.compile(r"text-indent\s*:\s*-[^;\"']*", re.I)
_PADDING_LEFT_RE = re.compile(r"padding-left\s*:\s*[^;\"']*", re.I)
_CSS_URL_RE = re.compile(r"url\(\s*(?!['\"]?\s*data:)[^)]*\)", re.I)
_CSS_IMPORT_RE = re.compile(r"@import\b[^;]*;?", re.I)
_CSS_COMMENT_RE = re.compile(r"/\*.*?(\*/|$)", re.S)
_CSS_ESCAPE_RE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\(.)", re.S)
_CSS_IMAGE_SET_RE = re.compile(r"(-webkit-)?image-set\([^)]*\)", re.I)
_CSS_REMOTE_STRING_RE = re.compile(r"(['\"])(?!\s*data:)\s*(?:[a-z][a-z0-9+.-]*:|//)[^'\"]*\1", re.I)
_CSS_SUSPECT = ("\\", "url", "@import", "image-set", "/*", "//", "http")
_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_XML_DECL_RE = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_\-.]+)["']""", re.I)
_XML_DECL_STR_RE = re.compile(r"^\s*<\?xml[^>]*\?>")
_UTF8_SEQ_RE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_HIGH_RE = re.compile(rb"[\x80-\xff]")
_UTF8_NAMES = {"utf-8", "utf8"}
# What a reader never sees as text, for the count made without the parser (``source_chars``)
_NO_TEXT_RE = re.compile(r"<(script|style|title)\b.*?</\1\s*>|<!--.*?-->|<!\[CDATA\[.*?\]\]>", re.I | re.S)
_TAG_RE = re.compile(r"<[^>]*>")
LOST_TEXT_TOLERANCE = 50  # characters the parsed tree may hold fewer than the source text (entities, stray "<")
# Removed with their content (code, or frames' fallback) ...
_DROP_TAGS = ("script", "iframe", "frame", "frameset", "base")
# ... and removed as elements only, their children and the text after them kept: an unclosed <embed> swallows
# the rest of the document in the parse tree, and a <form> or <object> may wrap document content.
_UNWRAP_TAGS = ("object", "embed", "applet", "form", "noscript")
_URL_ATTRS = ("src", "href", "srcset", "background", "data", "poster", "action", "formaction", "xlink:href")
_VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "wbr"}


class HtmlError(ValueError):
    """The input is not usable HTML (empty, binary junk, unparseable)."""


@dataclass
class PreparedHtml:
    html: bytes  # UTF-8, sanitized, page-marked
    encoding: str  # what the source was decoded from
    source_text: str  # the decoded, unsanitized source (for iXBRL facts)
    page_breaks: int  # number of markers inserted (EDGAR pages - 1)
    visible_chars: int  # non-space characters of the document's text, for the conservation check
    tables: dict[int, list[str]]  # EDGAR page -> its data tables as header + rows (etl.convert.html_tables)
    removed: int  # elements or URLs removed by sanitizing
    facts: list[ixbrl.Fact]  # inline XBRL facts with their pages (etl.convert.ixbrl); empty for plain HTML
    facts_seconds: float  # what reading them took
    replaced_bytes: int = 0  # bytes that were not valid in the document's encoding, each now U+FFFD
    encoding_override: str = ""  # why the declared encoding was not the one decoded from


class Decoded(NamedTuple):
    text: str
    encoding: str  # what the text was decoded from
    replaced: int  # bytes invalid in that encoding, each replaced by U+FFFD where it stood
    override: str = ""  # why the declared encoding was not used (for the document's warnings)


def decode_html(raw: bytes) -> Decoded:
    """Text of the filing, the encoding it was decoded from, how many invalid bytes were replaced, and why
    the declared encoding was overridden, if it was.

    A document that is UTF-8 (holding more valid multi-byte sequences than stray high bytes) stays UTF-8
    when a few of its bytes are invalid: each is replaced where it stands (U+FFFD) and counted, never a
    switch of the whole document to cp1252 (which would garble every non-ASCII character). One that only
    declares UTF-8 but holds high bytes and not one valid UTF-8 sequence is cp1252 (older filings were
    written so): decoded as such, and the override is recorded."""
    if not raw.strip():
        raise HtmlError("empty document")
    head = raw[:4096]
    if head.count(b"\x00") > 16:
        raise HtmlError("binary content (NUL bytes), not HTML")
    declared = None
    for pattern in (_CHARSET_RE, _XML_DECL_RE):
        m = pattern.search(head)
        if m:
            declared = m.group(1).decode("ascii", "ignore").lower()
            break
    for enc in [c for c in (declared, "utf-8") if c]:
        try:
            return Decoded(raw.decode(enc), enc, 0)
        except (LookupError, UnicodeDecodeError):
            continue
    if _mostly_utf8(raw) or (declared in _UTF8_NAMES and _UTF8_SEQ_RE.search(raw)):
        text = raw.decode("utf-8", "replace")
        return Decoded(text, "utf-8", text.count("\ufffd") - raw.count("\ufffd".encode()))
    override = ""
    if declared in _UTF8_NAMES:
        override = (f"declared {declared} but holds {len(_HIGH_RE.findall(raw))} high byte(s) and no valid UTF-8 "
                    "sequence: decoded as cp1252")
    try:
        return Decoded(raw.decode("cp1252"), "cp1252", 0, override)
    except UnicodeDecodeError:
        return Decoded(raw.decode("latin-1"), "latin-1", 0, override.replace("cp1252", "latin-1"))


def _mostly_utf8(raw: bytes) -> bool:
    """More bytes of valid UTF-8 multi-byte sequences than high bytes outside them."""
    valid = sum(len(m) for m in _UTF8_SEQ_RE.findall(raw))
    return valid > 0 and valid > len(_HIGH_RE.findall(raw)) - valid


def source_chars(text: str) -> int:
    """Non-space characters of text in the decoded source, counted without the parser (tags stripped by
    pattern, entities resolved): what the parsed tree must hold (``tree_chars``)."""
    from html import unescape

    return len("".join(unescape(_TAG_RE.sub(" ", _NO_TEXT_RE.sub(" ", text))).split()))


def tree_chars(root) -> int:
    """Non-space characters of text in the parsed tree (script, style and title aside, as ``source_chars``)."""
    skipped = sum(len("".join(el.text_content().split())) for el in root.iter("script", "style", "title"))
    return len("".join(root.text_content().split())) - skipped


def check_tree(text: str, root, parser) -> None:
    """The parsed tree holds the source's text, or HtmlError saying what was lost (libxml2 drops what lies
    deeper than its nesting limit, and a parser may drop malformed markup: either would lose text silently)."""
    expected, kept = source_chars(text), tree_chars(root)
    if expected - kept <= max(LOST_TEXT_TOLERANCE, expected // 1000):
        return
    deep = any("Excessive depth" in e.message for e in parser.error_log)
    why = "HTML nested deeper than the parser's limit (2,048 levels)" if deep else "markup the parser dropped"
    raise HtmlError(f"{why}: the parsed document holds {kept:,} of the source's {expected:,} characters of text; "
                    "not converted, so that nothing is cut silently")


def _looks_like_html(text: str) -> bool:
    sample = text[:20000].lower()
    return "<" in sample and any(tag in sample for tag in ("<html", "<body", "<div", "<p", "<table", "<font", "<br"))


def _css_char(m: re.Match) -> str:
    if m.group(2) is not None:
        return m.group(2)
    code = int(m.group(1), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def _clean_css(css: str) -> tuple[str, int]:
    """CSS with nothing that can fetch: comments dropped and escapes decoded first (``u\\72l(``,
    ``@import/**/"..."``), then every @import, every non-``data:`` url(), every image-set() and every quoted
    string naming a scheme or a network path removed. The decoded form is what is kept."""
    if not any(token in css.lower() for token in _CSS_SUSPECT):
        return css, 0
    css = _CSS_ESCAPE_RE.sub(_css_char, _CSS_COMMENT_RE.sub(" ", css))
    removed = 0
    for pattern, replacement in ((_CSS_IMPORT_RE, ""), (_CSS_URL_RE, "none"), (_CSS_IMAGE_SET_RE, "none"),
                                 (_CSS_REMOTE_STRING_RE, '""')):
        css, n = pattern.subn(replacement, css)
        removed += n
    return css, removed


def _marker(n: int):
    span = etree.Element("span")
    span.set("style", _MARKER_STYLE)
    span.text = marker_text(n)
    return span


def _unhang_tables(root) -> None:
    """A hanging indent (negative ``text-indent``) around an inline table makes wkhtmltopdf draw the
    table's first cell left of the page, where its text is lost ("Item 10." in Amazon's 10-K)."""
    for el in root.iter("div", "p"):
        style = el.get("style") or ""
        if _NEG_INDENT_RE.search(style) and el.find(".//table") is not None:
            style = _NEG_INDENT_RE.sub("text-indent:0", style)
            el.set("style", _PADDING_LEFT_RE.sub("padding-left:0", style))


def prepare_html(raw: bytes, fiscal_year_end: str | None = None) -> PreparedHtml:
    """Decode, sanitize and page-mark a filing's primary document, and read its iXBRL facts (their fiscal
    periods from the company's fiscal year end, MMDD)."""
    text, encoding, replaced, override = decode_html(raw)
    if not _looks_like_html(text):
        raise HtmlError("no HTML markup found")
    tail = text[-8192:].lower()
    if "</html>" not in tail and "</body>" not in tail:
        raise HtmlError("truncated HTML: the document ends without </body> or </html>")
    text = _XML_DECL_STR_RE.sub("", text, count=1)  # lxml refuses str input that declares an encoding
    parser = html.HTMLParser(huge_tree=True)  # libxml2 otherwise stops at 256 levels of nesting
    try:
        root = html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise HtmlError(f"unparseable HTML: {exc}") from None
    check_tree(text, root, parser)
    removed = 0
    for el in list(root.iter(*_DROP_TAGS)):
        el.drop_tree()
        removed += 1
    for el in list(root.iter(*_UNWRAP_TAGS)):
        el.drop_tag()
        removed += 1
    for el in list(root.iter("link")):
        el.drop_tree()
        removed += 1
    for el in root.iter("meta"):
        if el.get("charset") or (el.get("http-equiv") or "").lower() in ("content-type", "refresh"):
            el.drop_tree()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in list(el.attrib):
            name = attr.lower()
            value = el.attrib[attr]
            if name.startswith("on"):
                del el.attrib[attr]
                removed += 1
            elif name in _URL_ATTRS or name.endswith(":href"):
                if not value.strip().lower().startswith(("data:", "#")):
                    del el.attrib[attr]
                    removed += 1
            elif name == "style":
                el.attrib[attr], n = _clean_css(value)
                removed += n
    for el in root.iter("style"):
        if el.text:
            el.text, n = _clean_css(el.text)
            removed += n
    _unhang_tables(root)
    breaks = 0
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        style = el.get("style")
        if not style:
            continue
        for kind in sorted(_BREAK_RE.findall(style), key=lambda k: k.lower() != "before"):
            breaks += 1
            marker = _marker(breaks)
            if kind.lower() == "after" or el.tag in _VOID:
                el.addnext(marker)
                marker.tail, el.tail = el.tail, None
            else:
                marker.tail, el.text = el.text, None
                el.insert(0, marker)
    tables = tables_by_page(root)
    started = time.perf_counter()
    facts = ixbrl.extract(root, fiscal_year_end)
    facts_seconds = time.perf_counter() - started
    visible = visible_chars(root)
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    meta = etree.Element("meta")
    meta.set("charset", "utf-8")
    head.insert(0, meta)
    out = html.tostring(root, encoding="utf-8", method="html", doctype="<!DOCTYPE html>")
    return PreparedHtml(html=out, encoding=encoding, source_text=text, page_breaks=breaks, visible_chars=visible,
                        tables=tables, removed=removed, facts=facts,
                        facts_seconds=facts_seconds, replaced_bytes=replaced,
                        encoding_override=override)


def visible_chars(root) -> int:
    """Non-space characters of the body's text that a reader sees, page markers aside: what the page text
    should hold. Hidden elements (``display:none``, the iXBRL header with its hidden facts) do not count."""
    body = root.find("body")
    body = body if body is not None else root

    def count(text: str) -> int:
        return len("".join(strip_markers(text).split()))

    hidden: set = set()
    hidden_chars = 0
    for el in body.iter():
        if not isinstance(el.tag, str):
            continue
        if el.getparent() in hidden:
            hidden.add(el)
        elif el.tag.lower() == "ix:header" or "display:none" in "".join((el.get("style") or "").split()).lower():
            hidden.add(el)
            hidden_chars += count(el.text_content())
    return count(body.text_content()) - hidden_chars
