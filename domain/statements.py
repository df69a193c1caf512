"""The primary statements and the notes as both sides know them: the title printed at the head of each
(and as a question may name it), the words that find its pages (BM25), and for a statement the line that
closes it. Reviewed data in ``domain/vocabulary/concepts.yaml`` (``statements:``, ``notes:``); the Items
that hold the statements are ``domain.sec_items.STATEMENT_ITEMS``.

Also the one rule of what a statement's or a note's page looks like, which the index side's training
labels (``indexing/ranker_pairs.py``) and the query side's pins (``query/statements.py``) both apply: a
title heads a page when it is on a short line of its own near the top, and a statement's page is mostly
figures."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from domain import vocabulary
from domain.text import CHANGED, figures_share, plain_spaces, spaced_pattern, surface_words, words
from domain.vocabulary import VocabularyError

FIGURES_SHARE = 0.15  # digits among visible characters at or above which text is figures: prose reads under 0.05
FIGURES_WINDOW = 1500  # what follows a statement's title that must be figures ...
TITLED_FIGURES_SHARE = 0.10  # ... at this share: a statement's rows may carry long labels ("Adjustments to
# reconcile to net cash flows provided by operating activities"), twice prose's share still
HEADING_WINDOW = 250  # a page's heading (a statement's title, a note's) starts within its first characters
HEADING_LINE = 90  # ... on a line of its own no longer than this (not in a running sentence)
TITLE_WORDS = 8  # words a section's title holds at most ("Disney Parks, Experiences and Products")
PROSE_WORDS = 6  # words of letters a line holds to read as a sentence (a table's row holds its label's few)
DRIVER_RULE = f"drivers/3:prose>={PROSE_WORDS}"  # what a change explained in prose is: in the ranker's recipe
TITLE_GAP = 120  # another statement's title this close: an index of the statements, not a statement
PAGE_RULE = (f"figures>={TITLED_FIGURES_SHARE}/{FIGURES_WINDOW}-leaders;heading<={HEADING_WINDOW}:{HEADING_LINE};gap={TITLE_GAP};contents;summary+analysis;"
             "notes:numbered-anywhere,heading-words,contents")
_NOTE_NUMBER_TEXT = r"(?:note\s+)?\d{1,2}\s*[.:)\-\u2013\u2014]?"  # a note's number: "Note 5 -", "5."
_NUMBERING = re.compile(rf"^{_NOTE_NUMBER_TEXT}\s*", re.I)  # ... opening a heading line
_NOTE_NUMBER = re.compile(_NOTE_NUMBER_TEXT, re.I)  # ... a line of its own (fullmatch)
_CONNECTIVES = frozenset({"and", "of", "the", "for", "in", "on", "to", "or", "by", "with", "from", "&"})


def is_figures(text: str | None, share: float = FIGURES_SHARE) -> bool:
    """Whether text (a page, or what follows a statement's title: ``TITLED_FIGURES_SHARE``) is mostly figures."""
    return figures_share(text) >= share


def is_heading(line: str, offset: int) -> bool:
    """Whether a line starting ``offset`` characters into its page can head the page."""
    return offset <= HEADING_WINDOW and len(line.strip()) <= HEADING_LINE


def part_heads(text: str | None, part: frozenset[str]) -> bool:
    """Whether a line heading the page (:func:`is_heading`, above its first figure) holds every one of a part's
    stems (``part``, as ``domain.text.words`` gives them): a segment's results page in MD&A opens under its
    name ("International Package", "Disney Parks, Experiences and Products") and its sentences then say
    "revenue decreased" without it."""
    offset = 0
    for line in (text or "").split("\n") if part else ():
        if offset > HEADING_WINDOW or re.search(r"\d", line):
            return False
        if is_heading(line, offset) and _titled(line) and part <= set(words(line)):
            return True
        offset += len(line) + 1
    return False


def _titled(line: str) -> bool:
    """A line that reads as a title, not a sentence: ``TITLE_WORDS`` words at most, no stop or colon closing it
    ("Commercial airplane deliveries ... were as follows:" is a sentence)."""
    return len(line.split()) <= TITLE_WORDS and not line.rstrip().endswith((".", ":", ";"))


def line_at(text: str, index: int) -> tuple[int, str]:
    """(start, line) of the line of ``text`` holding character ``index``."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return start, text[start: end if end >= 0 else len(text)]


def neighbours(text: str, start: int, line: str) -> tuple[str, str]:
    """(the line before, the line after) the line ``line`` starting at ``start`` in ``text`` ("" at an end)."""
    end = start + len(line)
    return (line_at(text, start - 1)[1] if start else ""), (line_at(text, end + 1)[1] if end < len(text) else "")


_PAGE_NUMBER = re.compile(r"\s*\d{1,3}\s*(?:\n|$)")  # a line holding a page number alone (no year: 4 digits)
_PAGE_CELL = re.compile(r"\|\s*\d{1,3}\s*$")  # a table row whose last cell is a page number (no year: 4 digits)


def page_number_next(text: str, line_end: int) -> bool:
    """Whether the next line with text after ``line_end`` is a page number alone: the line before it is a
    table of contents' entry ("Consolidated Statement of Cash Flows for the years ended ..." then "60")."""
    rest = text[line_end:].lstrip(" \t\n\u00a0")
    return _PAGE_NUMBER.match(rest) is not None


def contents_entry(text: str, line: str, line_end: int) -> bool:
    """Whether a title's line is a table of contents' entry: its page number on the next line, or in the
    last cell of its row when the contents are a table ("Consolidated Statements of Income - Three Months
    Ended September 30, 2023 and 2022 | 35", a search chunk's row; a page's text puts the cell on a line)."""
    return page_number_next(text, line_end) or _PAGE_CELL.search(line) is not None


# a statement's title followed by one of these words heads a summary of some of its lines, not the statement:
# "Selected income statement data" (JPMorgan's highlights), "Selected Income Statement Information" (Pfizer's
# segment note), "Statement of Operations data:" (American Water's selected financial data); or MD&A's
# discussion of its changes, which reprints its main lines: "Consolidated Balance Sheets and Cash Flows
# Analysis" (JPMorgan's 10-Qs), "Balance Sheet Review"
_SUMMARY_WORD = re.compile(r"[ \t\u00a0]*(?:and [a-z]+(?: [a-z]+)? )?(?:data|information|analysis|review)\b", re.I)


def summary_title(text: str, match: re.Match) -> bool:
    """Whether a statement's title ``match`` in ``text`` names a summary of some of its lines or MD&A's
    discussion of them (``_SUMMARY_WORD`` after it: "Selected Income Statement and Other Data", "Balance
    Sheets and Cash Flows Analysis"), not the statement."""
    return _SUMMARY_WORD.match(text, match.end()) is not None


def statement_heads(name: str, text: str, match: re.Match, line_offset: int, table_follows: bool = False,
                    header: bool = False, summaries: bool = False) -> bool:
    """Whether the title ``match`` (of statement ``name`` in ``text``) heads a page of that statement: on
    a heading line (``line_offset``: where its line starts on the page), not a summary's (:func:`summary_title`;
    ``summaries``: or one), no other statement's title beside it on its page (a running footer of the page
    before, "Consolidated Balance Sheets 76", is not), figures after it (``table_follows``: a table of its page
    comes next, which a search index holds apart from the title's text; its figures are taken as read;
    ``header``: the title opens a table's header row, which heads the table however long the row)."""
    line_start, line = line_at(text, match.start())
    page_start = max(0, line_start - line_offset)  # the page's own text: the page before's footer is not beside it
    window = text[max(page_start, match.start() - TITLE_GAP): match.end() + TITLE_GAP]
    return ((header or is_heading(line, line_offset))
            and (summaries or not summary_title(text, match))
            and not contents_entry(text, line, line_start + len(line))
            and not any(s.title.search(window) for other, s in statements().items() if other != name)
            and (table_follows or is_figures(text[match.start(): match.start() + FIGURES_WINDOW],
                                             TITLED_FIGURES_SHARE)))


def is_contents_line(line: str, following: str) -> bool:
    """Whether a title's line is a table of contents' entry: a page number ends it or stands alone on the
    next line ("Liquidity and Capital Resources" then "42")."""
    return line.rstrip()[-1:].isdigit() or following.strip().isdigit()


LABEL_WORDS = 2  # words at most of each line beside a chart's or a list's label ("our core", "People", "Brand")
LABEL_WINDOW = 300  # characters after a section's title line that say its topic when it opens a discussion


def among_labels(previous: str, following: str, after: str, topic: str) -> bool:
    """Whether a section's title line is a label among labels, not a heading: a chart's or a list's short lines
    on both sides ("Grow", "our core", "People", "Brand", "Data": a strategy graphic's words), and none of the
    section's ``topic`` words (stems) in the text after it, which a heading opening its discussion says ("Our
    People" then "we employed approximately 33,400 persons ... Our employee base")."""
    def short(line: str) -> bool:
        said = line.split()
        return 0 < len(said) <= LABEL_WORDS and not any(c.isdigit() for c in line)

    return short(previous) and short(following) and not set(words(topic)) & set(words(after[:LABEL_WINDOW]))


def section_heads(title: re.Pattern, line: str, following: str) -> bool:
    """Whether ``line`` heads an MD&A section (``sections:``): a line the title fills, anywhere on the
    page (MD&A runs its sections on without a page break), and not a contents line."""
    return title.fullmatch(line.strip().rstrip(".:")) is not None and not is_contents_line(line, following)


_RUN_IN_STOP = r"(?=[:.]\s+(?-i:[A-Z\u201c]))"  # a run-in heading's stop, then its paragraph's first capital


@functools.lru_cache(maxsize=64)
def _run_in(title: re.Pattern) -> re.Pattern:
    return re.compile(f"(?:{title.pattern}){_RUN_IN_STOP}", title.flags)


def runs_in(title: re.Pattern, line: str) -> bool:
    """Whether a line opens with the title as a run-in heading: in title case or capitals, a colon or a full
    stop, then its paragraph ("Human Capital Management: Our values ...", "Interest Rate Risk. We have ...",
    "Seasonal Aspects of Operations. Walmart U.S.'s business ..."): a filer that sets its Item 1 or 7A topics
    so has no line of the title alone. Weaker than a line of its own (a strategy's list runs its points in so:
    "People. Our success is driven ..."), so taken only where no such line is. A sentence's end wrapped to a
    line's start is in lower case ("liquidity. The impact of ...") and is not one."""
    found = _run_in(title).match(line.strip())
    return found is not None and all(w[0].isupper() for w, _ in surface_words(found.group())
                                     if w[0].isalpha() and w.lower() not in _CONNECTIVES)


def note_heads(title: re.Pattern, line: str, line_offset: int, previous: str = "", following: str = "") -> bool:
    """Whether a note's ``title`` heads its note at ``line``: a short line the title opens (after the note's
    number), in a heading's words, not a sentence's ("Acquisitions have in the past ... cause us to:"),
    without figures after the number nor a page number on the next line (a contents line: "Income Taxes 87",
    an index of the financial statements: "Note 21 - Legal Proceedings" then "112"). A numbered heading
    ("4. Acquisitions", or "Acquisitions" under a line holding only "4.") heads its note anywhere on the
    page, as a filing's HTML runs its notes on without page breaks; an unnumbered one near the top."""
    stripped = line.strip()
    rest = _NUMBERING.sub("", stripped, count=1)
    found = title.match(rest)
    if found is None or len(stripped) > HEADING_LINE or any(c.isdigit() for c in rest) or \
            not _heading_words(rest[found.end():]) or is_contents_line(line, following):
        return False
    numbered = numbered_line(line) or _NOTE_NUMBER.fullmatch(previous.strip()) is not None
    return numbered or line_offset <= HEADING_WINDOW


def numbered_line(line: str) -> bool:
    """Whether a heading line opens with its note's number ("Note 3 - Restructuring", "4. Acquisitions"): a
    note of the financial statements, not a topic of MD&A's nor a table's row under a figure."""
    stripped = line.strip()
    return _NUMBERING.sub("", stripped, count=1) != stripped


def _heading_words(after: str) -> bool:
    """Whether the words after a title read as the rest of a heading: at most one word in lower case
    besides connectives ("Acquisitions and divestitures"), and no colon closing a sentence's lead-in."""
    lower = [w for w in after.split() if w[0].islower() and w not in _CONNECTIVES]
    return len(lower) <= 1 and not after.rstrip().endswith(":")


@dataclass(frozen=True)
class Section:
    """A primary statement, a note or an MD&A section."""

    name: str
    title: re.Pattern  # matched on page text, case-insensitively
    query: str  # the words that find its pages
    closing: re.Pattern | None = None  # a statement's closing line: a page without it continues on the next
    items: tuple[str, ...] = ()  # an MD&A section's Items (10-K, 10-Q)


def _pattern(pattern: str, where: str, title: bool = False) -> re.Pattern:
    """A title or closing line as written in the vocabulary, its spaces matching a page's no-break spaces; a
    title's words also with a glyph set apart ("Balance Shee t")."""
    try:
        return re.compile(spaced_pattern(pattern, glyphs=title), re.I)
    except (re.error, TypeError) as exc:
        raise VocabularyError(f"{where}: bad pattern {pattern!r}: {exc}") from None


def _sections(entries: dict | None, kind: str, source: str) -> dict[str, Section]:
    sections = {}
    for name, entry in (entries or {}).items():
        where = f"{source} {kind} {name}"
        if not isinstance(entry, dict) or not entry.get("title") or not entry.get("query"):
            raise VocabularyError(f"{where}: needs a title and a query")
        closing = _pattern(entry["closing"], where) if entry.get("closing") else None
        sections[name] = Section(name, _pattern(entry["title"], where, title=True), entry["query"], closing,
                                 tuple(str(i) for i in entry.get("items") or ()))
    return sections


Sections = tuple[dict[str, Section], dict[str, Section], dict[str, Section]]


def parse(data: dict, source: str = "concepts.yaml") -> Sections:
    """(statements, notes, MD&A sections) from the vocabulary's data, in the file's order."""
    return (_sections(data.get("statements"), "statement", source), _sections(data.get("notes"), "note", source),
            _sections(data.get("sections"), "section", source))


@functools.lru_cache(maxsize=1)
def _definitions() -> Sections:
    return parse(vocabulary.load("concepts"))


def statements() -> dict[str, Section]:
    """balance sheet, income statement, cash flow statement -> their definitions."""
    return _definitions()[0]


def notes() -> dict[str, Section]:
    """note name -> its definition."""
    return _definitions()[1]


def sections() -> dict[str, Section]:
    """MD&A section name -> its definition."""
    return _definitions()[2]


# A change explained in prose: "<Metric> (for the segment) increased/decreased ... primarily due to ...",
# "<Metric> were $19,457 in 2023, up 8.5% from 2022, due to ...", "<Metric> was $1.4 billion in 2022 compared
# to $2.3 billion in 2021, a decrease of 37%. The current year benefited from ...", "... an increase of $602
# million, or 20 percent, ... The increase was primarily due to", or "<Metric> were flat ..., primarily due to"
# (the cause may open the next sentence).
_DRIVER = re.compile(r"(?:^|[.;•]\s+|\n)(?:Total\s+)?([A-Z][A-Za-z&'’ -]{3,50}?)\s+(?:for\s+[^.]{0,60}?\s+)?"
                     r"(?:(?:" + "|".join(CHANGED) + r")\b|(?:was|were)\s+(?:(?:essentially\s+|relatively\s+)?"
                     r"flat\b|(?:[^.]|\.\d){0,80}?\b(?:(?:up|down)\s+|an?\s+(?:increase|decrease|decline)\s+of\s+)"
                     r"(?:\$[\d.,]+\s*(?:million|billion)?,?\s+or\s+)?\d+(?:\.\d+)?\s*(?:%|percent\b)))"
                     r"(?:[^.]|\.\d|\.\s+(?=[A-Z])){0,250}?"
                     r"\b(?:due to|driven by|as a result of|reflecting|attributable to|benefit(?:ed|ing) from)\b")
_NOT_A_METRIC = {"it", "this", "we", "our", "they", "which", "or", "and", "new", "company"}  # a clause, not a line item


def _prose_line(line: str) -> bool:
    """A line that reads as a sentence (``PROSE_WORDS`` words of letters or more), not a table's row."""
    return sum(w.isalpha() for w in line.split()) >= PROSE_WORDS


def driver_labels(text: str) -> list[str]:
    """The metrics a page's prose explains a change of ("net sales", "BCA revenues"), lower case: one rule for
    the ranker's training questions (``indexing.ranker_pairs``) and the pages a question asking what drove a
    change pins (``query.retrieve``). Read from the page's prose lines: a segment's results page holds its
    table and the sentences that explain it, a statement's page only figures. Spaces read plain: a lake
    converted before page text was stored so keeps a PDF's no-break spaces."""
    prose = "\n".join(line for line in plain_spaces(text or "").split("\n") if _prose_line(line))
    out = []
    for m in _DRIVER.finditer(prose):
        label = " ".join(m.group(1).split()).lower().removeprefix("total ")  # "Total revenue in Supply Chain ..."
        if 1 <= len(label.split()) <= 5 and not _NOT_A_METRIC & set(label.split()):
            out.append(label)
    return list(dict.fromkeys(out))
