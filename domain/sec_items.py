"""The SEC's Item vocabulary per form: keys in document order, with their official titles.

Keys: 10-K ``1``, ``1A`` ... ``16``; 10-Q ``part1item1`` ... ``part2item6`` (the spelling of the
sec-parser gold sets); 8-K ``1.01`` ... ``9.01``, and the pre-2004 ``1`` ... ``12`` where they appear.
Titles are used to recognize headings (``etl.segment.items``) and to label items for readers (:func:`item_label`:
the CLI, the HTTP API and the facts a person reads); the raw key stays in JSON as ``item``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TEN_K: list[tuple[str, str]] = [
    ("1", "Business"),
    ("1A", "Risk Factors"),
    ("1B", "Unresolved Staff Comments"),
    ("1C", "Cybersecurity"),
    ("2", "Properties"),
    ("3", "Legal Proceedings"),
    ("4", "Mine Safety Disclosures"),
    ("5", "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity "
          "Securities"),
    ("6", "[Reserved]"),
    ("7", "Management's Discussion and Analysis of Financial Condition and Results of Operations"),
    ("7A", "Quantitative and Qualitative Disclosures About Market Risk"),
    ("8", "Financial Statements and Supplementary Data"),
    ("9", "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure"),
    ("9A", "Controls and Procedures"),
    ("9B", "Other Information"),
    ("9C", "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections"),
    ("10", "Directors, Executive Officers and Corporate Governance"),
    ("11", "Executive Compensation"),
    ("12", "Security Ownership of Certain Beneficial Owners and Management and Related Stockholder Matters"),
    ("13", "Certain Relationships and Related Transactions, and Director Independence"),
    ("14", "Principal Accountant Fees and Services"),
    ("15", "Exhibits and Financial Statement Schedules"),
    ("16", "Form 10-K Summary"),
]

TEN_Q: list[tuple[str, str]] = [
    ("part1item1", "Financial Statements"),
    ("part1item2", "Management's Discussion and Analysis of Financial Condition and Results of Operations"),
    ("part1item3", "Quantitative and Qualitative Disclosures About Market Risk"),
    ("part1item4", "Controls and Procedures"),
    ("part2item1", "Legal Proceedings"),
    ("part2item1a", "Risk Factors"),
    ("part2item2", "Unregistered Sales of Equity Securities and Use of Proceeds"),
    ("part2item3", "Defaults Upon Senior Securities"),
    ("part2item4", "Mine Safety Disclosures"),
    ("part2item5", "Other Information"),
    ("part2item6", "Exhibits"),
]

EIGHT_K: list[tuple[str, str]] = [
    ("1.01", "Entry into a Material Definitive Agreement"),
    ("1.02", "Termination of a Material Definitive Agreement"),
    ("1.03", "Bankruptcy or Receivership"),
    ("1.04", "Mine Safety - Reporting of Shutdowns and Patterns of Violations"),
    ("1.05", "Material Cybersecurity Incidents"),
    ("2.01", "Completion of Acquisition or Disposition of Assets"),
    ("2.02", "Results of Operations and Financial Condition"),
    ("2.03", "Creation of a Direct Financial Obligation"),
    ("2.04", "Triggering Events That Accelerate or Increase a Direct Financial Obligation"),
    ("2.05", "Costs Associated with Exit or Disposal Activities"),
    ("2.06", "Material Impairments"),
    ("3.01", "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard"),
    ("3.02", "Unregistered Sales of Equity Securities"),
    ("3.03", "Material Modification to Rights of Security Holders"),
    ("4.01", "Changes in Registrant's Certifying Accountant"),
    ("4.02", "Non-Reliance on Previously Issued Financial Statements"),
    ("5.01", "Changes in Control of Registrant"),
    ("5.02", "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers"),
    ("5.03", "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year"),
    ("5.04", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans"),
    ("5.05", "Amendments to the Registrant's Code of Ethics"),
    ("5.06", "Change in Shell Company Status"),
    ("5.07", "Submission of Matters to a Vote of Security Holders"),
    ("5.08", "Shareholder Director Nominations"),
    ("6.01", "ABS Informational and Computational Material"),
    ("6.02", "Change of Servicer or Trustee"),
    ("6.03", "Change in Credit Enhancement or Other External Support"),
    ("6.04", "Failure to Make a Required Distribution"),
    ("6.05", "Securities Act Updating Disclosure"),
    ("7.01", "Regulation FD Disclosure"),
    ("8.01", "Other Events"),
    ("9.01", "Financial Statements and Exhibits"),
]

# Form 8-K before August 2004 numbered its items 1-12.
EIGHT_K_LEGACY: list[tuple[str, str]] = [
    ("1", "Changes in Control of Registrant"),
    ("2", "Acquisition or Disposition of Assets"),
    ("3", "Bankruptcy or Receivership"),
    ("4", "Changes in Registrant's Certifying Accountant"),
    ("5", "Other Events"),
    ("6", "Resignations of Registrant's Directors"),
    ("7", "Financial Statements and Exhibits"),
    ("8", "Change in Fiscal Year"),
    ("9", "Regulation FD Disclosure"),
    ("10", "Amendments to the Registrant's Code of Ethics"),
    ("11", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans"),
    ("12", "Results of Operations and Financial Condition"),
]

# Titles filers also use for the same item (older rules, common variants).
ALIASES: dict[str, list[str]] = {
    "4": ["Submission of Matters to a Vote of Security Holders", "Removed and Reserved", "Reserved"],
    "6": ["Selected Financial Data", "Reserved"],
    "1B": ["Unresolved Staff Comments"],
    "part2item2": ["Issuer Purchases of Equity Securities", "Unregistered Sales of Equity Securities"],
    "part2item4": ["Submission of Matters to a Vote of Security Holders", "Removed and Reserved", "Reserved"],
}

STATEMENT_ITEMS = frozenset({"8", "part1item1"})  # where a 10-K's / a 10-Q's primary statements sit
MDNA_ITEMS = frozenset({"7", "part1item2"})  # where a 10-K / a 10-Q discusses what drove its results (MD&A)
# A 10-K's Items no 10-Q Item holds: the business (segments, customers, the workforce), cybersecurity, properties
BUSINESS_ITEM = "1"  # a 10-K's account of its business: its segments, products, markets and where it operates
ANNUAL_ONLY_ITEMS = frozenset({BUSINESS_ITEM, "1C", "2"})
COVER = "cover"  # text before the first item: cover page, table of contents
UNKNOWN = "unknown"  # a filing in which no item was recognized
EXHIBITS_ITEM = "9.01"  # an 8-K's "Financial Statements and Exhibits": the list of what it files with it
# A filing's signature block: its heading ("SIGNATURE Pursuant to the requirements of ..."), a conformed
# signature ("By: /s/ Daniel Durn") or its date line ("Date: March 15, 2023"), which the segmentation leaves
# under the last Item
_SIGNATURE_RE = re.compile(r"^\W*(?:SIGNATURES?\b|Dated?:)|/s/", re.I)


def signature_block(text: str) -> bool:
    """Whether a passage is (or opens with) the filing's signatures: who signed, not what it reports."""
    return bool(_SIGNATURE_RE.search(text))


@dataclass(frozen=True)
class ItemDef:
    key: str
    number: str  # what the heading says: "1A", "2", "2.02"
    title: str
    order: int


def _defs(items: list[tuple[str, str]]) -> list[ItemDef]:
    out = []
    for order, (key, title) in enumerate(items):
        number = key.split("item")[-1].upper() if key.startswith("part") else key
        out.append(ItemDef(key, number, title, order))
    return out


def vocabulary(form: str) -> list[ItemDef]:
    """The items of a form in document order (amendments share their form's items)."""
    base = form.upper().removesuffix("/A")
    if base == "10-K":
        return _defs(TEN_K)
    if base == "10-Q":
        return _defs(TEN_Q)
    if base == "8-K":
        return _defs(EIGHT_K) + [ItemDef(d.key, d.number, d.title, 100 + d.order) for d in _defs(EIGHT_K_LEGACY)]
    return []


def expected_items(form: str) -> list[str]:
    """Items every filing of the form has (8-Ks carry only the items their event needs)."""
    base = form.upper().removesuffix("/A")
    return [k for k, _ in TEN_K] if base == "10-K" else [k for k, _ in TEN_Q] if base == "10-Q" else []


def title_of(form: str, key: str) -> str:
    for d in vocabulary(form):
        if d.key == key:
            return d.title
    return {COVER: "Cover and contents", UNKNOWN: "Unrecognized structure"}.get(key, key)


# Short names readers know the longest titles by ("Item 7 (MD&A)").
SHORT_TITLES = {
    "Management's Discussion and Analysis of Financial Condition and Results of Operations": "MD&A",
    "Quantitative and Qualitative Disclosures About Market Risk": "Market Risk",
    "Financial Statements and Supplementary Data": "Financial Statements",
    "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity "
    "Securities": "Market for Common Equity",
    "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure":
        "Changes in and Disagreements with Accountants",
    "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections": "Foreign Jurisdictions",
    "Security Ownership of Certain Beneficial Owners and Management and Related Stockholder Matters":
        "Security Ownership",
    "Certain Relationships and Related Transactions, and Director Independence": "Related Transactions",
    "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers":
        "Departure or Appointment of Directors or Officers",
    "Unregistered Sales of Equity Securities and Use of Proceeds": "Unregistered Sales of Equity Securities",
    "Mine Safety - Reporting of Shutdowns and Patterns of Violations": "Mine Safety",
    "Triggering Events That Accelerate or Increase a Direct Financial Obligation": "Triggering Events",
    "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard": "Notice of Delisting",
    "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year": "Amendments to Articles or Bylaws",
    "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans": "Trading Suspension Under Benefit Plans",
}
_PART = {"1": "I", "2": "II"}


# Sections of a release (an 8-K's EX-99 exhibit), which has no SEC Items (etl.segment.release_sections finds them)
RELEASE_SECTIONS = {
    "release:headline": "Headline and release text",
    "release:highlights": "Highlights",
    "release:outlook": "Outlook and guidance",
    "release:financial-tables": "Financial tables",
    "release:non-gaap": "Non-GAAP reconciliation",
}


def item_label(form: str | None, key: str | None) -> str:
    """What a reader calls an Item: ``Item 7 (MD&A)`` in a 10-K, ``Part I, Item 1 (Financial Statements)``
    in a 10-Q, ``Item 2.02 (Results of Operations and Financial Condition)`` in an 8-K; the cover and
    unrecognized text by what they are."""
    if not key:
        return ""
    if key == COVER:
        return "Cover page and contents"
    if key == UNKNOWN:
        return "No recognized Item"
    if key in RELEASE_SECTIONS:
        return f"Release section: {RELEASE_SECTIONS[key]}"
    item = next((d for d in vocabulary(form or "") if d.key == key), None)
    if item is None:
        return f"Item {key}"
    title = SHORT_TITLES.get(item.title, item.title)
    if key.startswith("part"):
        part = _PART.get(key[4:5], key[4:5])
        return f"Part {part}, Item {item.number} ({title})"
    return f"Item {item.number} ({title})"


# The sections of an Annual Report to Stockholders (a 10-K's Exhibit 13) that hold 10-K Items: the report
# prints no Item headings, so a section's own title (the Item's, or the name annual reports give it) says
# which Item it is (etl.segment.annual_report). A heading line starts with one of these.
ANNUAL_REPORT_ITEMS: list[tuple[str, re.Pattern]] = [
    ("6", re.compile(r"(?:item\s+6\W+)?(?:selected\s+financial\s+data|five[\s-]year\s+comparison)\b", re.I)),
    ("7", re.compile(r"(?:item\s+[27]\W+)?management[’']?s?\s+discussion\b", re.I)),
    ("7A", re.compile(r"(?:item\s+(?:3|7a)\W+)?quantitative\s+and\s+qualitative\s+disclosures?\s+about\s+market"
                      r"\s+risk\b", re.I)),
    ("8", re.compile(r"(?:item\s+[18]\W+)?(?:report\s+of\s+independent\s+registered\s+public\s+accounting\s+firm|"
                     r"(?:condensed\s+)?consolidated\s+(?:financial\s+statements|statements?\s+of|balance\s+sheets?)|"
                     r"financial\s+statements(?:\s+and\s+supplementary\s+data)?$)", re.I)),
]


# --- Items incorporated by reference ------------------------------------------------------------------
# A 10-K may give an Item as one sentence pointing into the Annual Report to Stockholders, filed as Exhibit
# 13 ("Item 8. Financial Statements ...: Refer to pages 44 through 121 of IBM's 2023 Annual Report to
# Stockholders, which are incorporated herein by reference"). Such an Item's text is in that exhibit.
_ITEM_HEAD_RE = re.compile(r"(?:^|\n|\.\s)\s*Item\s+(\d{1,2}[ABC]?)\s*[.:\u2014\u2013-]", re.I)
_ANNUAL_REPORT_RE = re.compile(r"annual\s+report\s+to\s+(?:stock|share)holders", re.I)
_INCORPORATED_RE = re.compile(r"incorporated\s+(?:herein\s+|therein\s+)?by\s+reference", re.I)
_POINTER_CHARS = 900  # an Item given by reference is a sentence or two; one with a body of its own is longer


def incorporated_items(text: str) -> list[str]:
    """The 10-K Items whose whole text is a pointer into the Annual Report to Stockholders (Exhibit 13), in
    the filing's order; a table of contents' lines and Items with a body of their own are not."""
    heads = [(m.start(1), m.group(1).upper()) for m in _ITEM_HEAD_RE.finditer(text)]
    found: list[str] = []
    for (start, key), nxt in zip(heads, [*heads[1:], (len(text), "")], strict=False):
        body = text[start: nxt[0]]
        if len(body) <= _POINTER_CHARS and _ANNUAL_REPORT_RE.search(body) and _INCORPORATED_RE.search(body) \
                and key not in found:
            found.append(key)
    return found
