"""A filing's own list of its documents: EDGAR's filing index page, or the header of the full submission.

The crawler needs each document's SGML type (``EX-99.1``, ``GRAPHIC``, ...) to choose the exhibits
``EXHIBIT_TYPES`` names. EDGAR's ``index.json`` directory listing has names and sizes but no types; the
``<accession>-index.html`` page lists every document with its sequence, description, file name, type and
size in a few kilobytes, so it is read first. The full submission ``<accession>.txt`` carries the same
header fields for every document, but also every document itself (often megabytes): it is read only where
a filing has no index page, and for filings from before 2001, whose documents have no file name (they exist
only inside the ``.txt``; ``split_submission`` cuts them out as EDGAR would serve them).

The ``index.json`` listing the crawler reads anyway decides whether either is needed: a directory holding
no file besides the primary document and EDGAR's generated ones has no exhibit to look for
(``has_other_documents``), which spares a request per filing where exhibits are rare (most 10-Ks and 10-Qs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import html

from kernel.layout import index_page_name

_DOC_RE = re.compile(rb"<DOCUMENT>\r?\n.*?</DOCUMENT>\r?\n?", re.S)
_FIELD_RE = {name: re.compile(rb"^<" + name.encode() + rb">([^\r\n<]*)", re.M)
             for name in ("TYPE", "SEQUENCE", "FILENAME", "DESCRIPTION")}
_RENDERING_RE = re.compile(r"^R\d+\.(htm|xml)$")  # EDGAR's XBRL viewer pages


@dataclass(frozen=True)
class FilingDocument:
    """One document of a filing as its index names it; ``name`` is empty where EDGAR has no URL for it."""

    sequence: str
    type: str
    name: str
    description: str = ""
    size: int | None = None


def parse_index_page(page: bytes) -> list[FilingDocument]:
    """The documents of EDGAR's ``-index.html`` page (the "Document Format Files" and "Data Files"
    tables: Seq, Description, Document, Type, Size); the complete submission text file is left out."""
    root = html.document_fromstring(page)
    out = []
    for table in root.iter("table"):
        if "tablefile" not in (table.get("class") or "").lower():
            continue
        for row in table.iter("tr"):
            cells = row.findall("td")
            if len(cells) < 5:
                continue
            seq, description, document, kind, size = (" ".join(c.text_content().split()) for c in cells[:5])
            name = document.split(" ")[0] if document else ""
            if description.lower() == "complete submission text file":
                continue
            out.append(FilingDocument(seq, kind.upper(), name, description,
                                      int(size) if size.isdigit() else None))
    return out


def submission_documents(text: bytes) -> list[tuple[FilingDocument, bytes]]:
    """Each document of a full submission ``.txt``, from its SGML header, with its ``<DOCUMENT>`` block and
    newline as EDGAR serves a non-iXBRL document at its URL (the only form a pre-2001 document without a
    file name can be had in): one pass over what may be megabytes."""
    out = []
    for m in _DOC_RE.finditer(text):
        block = m.group(0)
        fields = {name: _field(pattern, block) for name, pattern in _FIELD_RE.items()}
        out.append((FilingDocument(fields["SEQUENCE"], fields["TYPE"].upper(), fields["FILENAME"],
                                   fields["DESCRIPTION"], len(block)), block))
    return out


def parse_submission(text: bytes) -> list[FilingDocument]:
    """The documents of a full submission ``.txt`` from their SGML headers."""
    return [doc for doc, _ in submission_documents(text)]


def split_submission(text: bytes) -> dict[str, bytes]:
    """sequence -> a document's ``<DOCUMENT>`` block (see :func:`submission_documents`)."""
    return {doc.sequence: block for doc, block in submission_documents(text)}


def submission_document_name(accession: str, sequence: str) -> str:
    """The name a document without a file of its own is kept under: ``<accession>-d<sequence>.txt``."""
    return f"{accession}-d{sequence}.txt"


def has_other_documents(listing: object, accession: str, primary_document: str) -> bool | None:
    """Whether EDGAR's ``index.json`` lists a file besides the primary document and the files EDGAR
    generates for every filing (index pages, full submission, XBRL renderings); None when the listing is
    not one (then only the index page or the full submission can tell)."""
    items = _listed(listing)
    if items is None:
        return None
    names = [str(item["name"]) for item in items if "name" in item]
    generated = (f"{accession}.txt", index_page_name(accession), f"{accession}-index-headers.html",
                 f"{accession}-xbrl.zip", "FilingSummary.xml", "Financial_Report.xlsx")
    return any(n != primary_document and n not in generated and not _RENDERING_RE.match(n) for n in names)


def listed_sizes(listing: object) -> dict[str, int]:
    """name -> byte size from EDGAR's ``index.json`` (where it gives one): each fetched document's check
    that it arrived whole, the primary document's included."""
    return {str(i["name"]): int(i["size"]) for i in _listed(listing) or ()
            if "name" in i and str(i.get("size", "")).isdigit()}


def _listed(listing: object) -> list[dict] | None:
    """The items of an ``index.json`` listing; None when it is not one."""
    try:
        items = listing["directory"]["item"]  # type: ignore[index]
    except (KeyError, TypeError):
        return None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else None


def complete_index_page(page: bytes) -> None:
    """ValueError unless the page lists documents in tables that all close: a page cut short would
    silently list fewer documents (EDGAR gives no size for it)."""
    low = page.lower()
    if b"tablefile" not in low or low.count(b"<table") != low.count(b"</table>"):
        raise ValueError("incomplete filing index page (its document tables do not close)")


def complete_submission(text: bytes) -> None:
    """ValueError unless the full submission ends as EDGAR ends one (``</SEC-DOCUMENT>``, or the
    privacy-enhanced message's end line of older filings): a cut one would lose its last documents."""
    tail = text.rstrip()[-64:]
    if not (tail.endswith(b"</SEC-DOCUMENT>") or tail.endswith(b"-----END PRIVACY-ENHANCED MESSAGE-----")
            or tail.endswith(b"</SUBMISSION>")):
        raise ValueError("incomplete full submission (no </SEC-DOCUMENT> at its end)")


def _field(pattern: re.Pattern, block: bytes) -> str:
    m = pattern.search(block)
    return m.group(1).decode("latin-1").strip() if m else ""
