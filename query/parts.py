"""A part of the company a question names (a segment, a business, a product: "Theme Parks", "Optum Health",
"Diabetes") and the pages that print its figure: MD&A's table of parts, whose row the part labels, and the
part's own MD&A section. The consolidated statements print only the whole, and the fact pins find a part's
figure in the notes; these are what ``query.pins`` adds for a part."""

from __future__ import annotations

import re
from typing import NamedTuple

from domain.periods import head_months, head_years
from domain.text import (
    FUNCTION_WORDS,
    has_phrase,
    opens_sentence,
    phrase_text,
    sentence_spans,
    surface_words,
    typed_lower,
    words,
)
from query.concepts import concept_map
from query.statements import (
    FIGURE,
    ROW_FIGURES,
    amount_cell,
    has_words,
    opens_on_header,
    page_position,
    prose,
    row_cells,
    table_head,
)

PART_LABEL_WORDS = 6  # words a part's row label holds at most ("Building Solutions North America")
# Words a part's label may add to the part's own: it is a segment's, a business's (none names which)
_STRUCTURE = frozenset(words("segment segments business businesses division divisions group total net gross "
                             "percentage percent rate growth change adjusted reported eps ebit ebitda gaap non "
                             "usd fy ttm ytd"))


class PartRow(NamedTuple):
    """A part's row in a passage: its page, the words of the part its label holds, the label, and whether its
    cells hold an amount (:func:`query.statements.amount_cell`), not only percents or ratios."""

    page: int
    named: int
    label: str
    amount: bool


def part_row(asked: frozenset[str], parts: frozenset[str], metric: tuple[tuple[str, ...], ...], chunk: dict,
             titled: bool = False, measures: tuple[tuple[str, ...], ...] = (),
             months: frozenset[int] = frozenset(), before: str = "", caption: str = "") -> PartRow | None:
    """The table row in a chunk labelled by a part of the company the question names (a segment, a business,
    a product: "Theme Parks 8,947 7,541", "Diabetes 2,488 2,262"): of its rows, the one naming most of the
    part, then printing an amount (:class:`PartRow`; MD&A's table of the segments' sales change prints
    "Health Care 4.8 — (2.4) 2.4" too), the first of those. A label of the question's own words (``asked``:
    its stems) or the metric's ("Sales through NIKE Direct" for NIKE Direct's revenues) holding one of
    ``parts`` (:func:`named_parts`), with ``ROW_FIGURES`` figures, in a chunk that names the metric by one of
    its cues (``metric``: a table of parts' revenue or net sales, not of their comparable sales); with
    ``titled`` (a question typed in lower case), a label written as a name. The consolidated statements print
    no part's row, so a part's figure stands in MD&A's or a note's table of parts. Given ``measures`` (every
    measure's cues: :attr:`~query.concepts.ConceptMap.measure_cues`), only a chunk naming no measure at all
    counts, on a row labelled by the part's name alone: a long table of products is cut into passages, and the
    one printing "XARELTO" over its figures is far below the header naming the measure ("Sales to
    customers"); a chunk naming another measure is that measure's table ("North America" in a table of
    revenues for its operating income). Given ``months`` (the spans asked,
    :attr:`~query.analysis.QueryAnalysis.months`), a row whose table's head prints only other spans is
    another period's (:func:`of_period`; ``before``: the text of the chunk before, where a passage opening
    inside its table finds the head). A table passage that names no measure may have its ``caption`` name the
    metric: the text before it (:func:`captioned`; Abbott's note opens "The following tables provide detail by
    sales category:", its table's head prints only the columns)."""
    text = chunk.get("text") or ""
    stems = phrase_text(words(text))
    if measures:  # a headless passage: one naming a measure was the question's to find
        if any(has_phrase(stems, cue) for cue in measures):
            return None
    elif not any(has_phrase(stems, cue) for cue in metric) and not captioned(caption, metric):
        return None
    cued = not measures
    measured = frozenset(w for cue in metric for w in cue)  # "Sales through NIKE Direct" for its revenues
    lines = text.split("\n")
    at = 0
    best = None  # the row naming most of the part, the first of those: a division's row ("Electronics") may
    header = opens_on_header(chunk)  # a header row is no part's row
    for i, line in enumerate(lines):  # come before the segment's total ("Total Transportation and Electronics")
        if i == 0 and header:
            at += len(line) + 1
            continue
        said = words(_alternative(FIGURE.sub(" ", line), parts))
        named = frozenset(said) - FUNCTION_WORDS
        part = named & parts - measured  # the metric's own row ("Capital Expenditures") is no part's
        cells = (FIGURE.findall(line) + _part_cells(lines[i + 1:]) or _group_cells(line, lines[i + 1:])) if part else []
        amount = any(amount_cell(c) for c in cells)
        if part and (best is None or (len(part), amount) > (best.named, best.amount)) and (cued or named == part) and \
                len(said) <= PART_LABEL_WORDS and _names_metric(said, part, named, asked | measured) and \
                _label_first(line) and (not titled or _titled(_alternative(printed_label(line), parts))) and \
                _amounts(cells, cued) and of_period(lines, i, months, before) and \
                not (cued and under_other_measure(lines[:i], metric)):
            best = PartRow(page_position(chunk, at)[0], len(part), printed_label(line), amount)
        at += len(line) + 1
    return best


def under_other_measure(above: list[str], metric: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the nearest heading above a row naming a measure (a line in capitals: "SELLING, GENERAL &
    ADMINISTRATIVE EXPENSES") names another one than the metric, with no line naming the metric between:
    the row is that table's, though the passage names the metric in the prose before the heading
    (McDonald's "Company-operated margins" above its SG&A table's "U.S." row)."""
    measures = concept_map().measure_cues
    for line in reversed(above):
        stems = phrase_text(words(line))
        if any(has_phrase(stems, cue) for cue in metric):
            return False
        if _heading(line) and any(has_phrase(stems, cue) for cue in measures):
            return True
    return False


def _heading(line: str) -> bool:
    """A line in capitals of two words or more, no figure: a section's or a table's title."""
    letters = [c for c in line if c.isalpha()]
    return len(line.split()) >= 2 and bool(letters) and all(c.isupper() for c in letters) and not FIGURE.search(line)


CAPTION_LINES = 2  # the last lines of the text before a table where its caption stands
HEAD_SPILL = 12  # lines of a table's head the text before it may close with, below its caption


def captioned(before: str, metric: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the caption closing the text before a table (:func:`caption`) names the metric by one of its
    cues: the table is of that metric though no line of it says so."""
    said = caption(before)
    return bool(said) and names_cue(said, metric)


def caption(before: str) -> str:
    """The caption closing the text before a table: its last ``CAPTION_LINES`` lines with words, the last of
    them ending in a colon, its last sentence ("The following tables provide detail by sales category:"; not
    Mastercard's "... 10% of net revenue in those periods" before "The following table reflects the
    geographical location of the Company's property, equipment ... :"), below which only the
    short lines of a table's head may stand (up to ``HEAD_SPILL``: the conversion may print a table's head
    in the text and its rows in the table's passage, Coca-Cola's "... for each of our operating segments:"
    then "Percent Change 2023 versus 2022", "Volume", ...). "" when none: a sentence after the colon's line
    is prose of its own, not the table's head."""
    lines = [line.strip() for line in before.split("\n") if has_words(line)]
    for i in range(len(lines) - 1, max(-1, len(lines) - 2 - HEAD_SPILL), -1):
        if lines[i].endswith(":"):  # its last sentence: not the one before it on those lines
            said = " ".join(lines[max(0, i - CAPTION_LINES + 1):i + 1])
            return said[sentence_spans(said)[-1][0]:].strip()
        if prose(lines[i]):
            return ""
    return ""


def names_cue(text: str, cues: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a text says one of ``cues`` (each a phrase of stems)."""
    stems = phrase_text(words(text))
    return any(has_phrase(stems, cue) for cue in cues)


def of_period(lines: list[str], i: int, months: frozenset[int], before: str = "",
              years: frozenset[int] = frozenset()) -> bool:
    """Whether the row line ``i`` labels prints a figure for one of the spans asked (``months``): its table's
    head (:func:`query.statements.table_head`, read on into ``before``, the chunk before's text, where the
    passage opens inside the table) names one of them or none at all. A 10-K's MD&A prints the fourth
    quarter's table of segments before the year's ("Three months ended December 31, 2018": 3M), a release its
    quarter's table before the six months' (Johnson & Johnson's "Q2"): neither is the year's, nor the first
    half's, figure. Given ``years`` (the years asked), the head names one of them or no year either: a table
    of one year's columns is not another year's (:func:`query.part_columns.part_column`)."""
    if not months and not years:
        return True
    above = before.split("\n") if before else []
    head = table_head(above + lines, len(above) + i)
    spans, printed = head_months(head), head_years(head)
    return (not spans or not months or bool(spans & months)) and (not printed or not years or bool(printed & years))


def _amounts(cells: list[str], cued: bool) -> bool:
    """Whether a row's cells are ``ROW_FIGURES`` figures or more and, in a passage that does not name the
    metric (``cued``), hold an amount (:func:`query.statements.amount_cell`: no percent and no year; a
    table of patents' expiry years, "Xeljanz 2025 2028 2025", or of percent changes, "North America (1) —", is
    no table of sales)."""
    return len(cells) >= ROW_FIGURES and (cued or any(amount_cell(c) for c in cells))


def _alternative(label: str, parts: frozenset[str]) -> str:
    """The name in a row's label, of the names it lists between slashes, that holds one of ``parts``: a
    product sold under several names is one row ("ZYTIGA /abiraterone acetate", a brand and its generic name;
    "INVEGA SUSTENNA /XEPLION /INVEGA TRINZA /TREVICTA", one medicine's names by market), and the part asked
    is one of them. A label of one name is itself, and so is one whose slash pairs a sign's two words, the
    second in brackets ("prior service costs/(credits)", "(Losses)/gains"): that is one line item, its
    words no names."""
    names = label.split("/")
    if any(name.strip().startswith("(") for name in names):
        return label
    return next((name for name in names if frozenset(words(name)) & parts), label)


def _names_metric(said: list[str], part: frozenset[str], named: frozenset[str], known: frozenset[str]) -> bool:
    """Whether a row's label (``said``: its stems, ``named``: those not joining words) is of the question's
    and the metric's words (``known``), or opens with the part (``part``: its words the label holds) and
    closes with one of those, saying of what kind between ("Comirnaty direct sales and alliance revenues"
    for Comirnaty's revenues), or is the part's name with the words of a part's own total alone ("Total
    Transportation and Electronics Business Segment"; not "Total Domestic segment stores", a count) or with
    the word naming a segment by its goods ("Diagnostic Products" for Abbott's diagnostics)."""
    return named <= known or named - TOTAL_WORDS == part or named - GOODS_WORDS == part or \
        (said[0] in part and said[-1] in known)


PART_HEADING_LINES = 3  # a text chunk's last lines where a part's section heading stands (its table is next)


def part_heading(parts: frozenset[str], chunk: dict) -> str | None:
    """The heading of a part's own section that closes a text chunk (MD&A's "AEROSPACE", "Theme Parks Segment
    Results of Operations": its table of results is the next chunk), or None: one of the last lines, opening
    with one of ``parts``' words, of few words and no figures, not a sentence, nor a table's row label over
    its figures (3M's MD&A table of the segments' sales change, "Health Care 4.8 — (2.4)", cut near its
    row)."""
    if chunk.get("kind", "text") != "text":
        return None
    lines = (chunk.get("text") or "").split("\n")
    worded = [i for i, line in enumerate(lines) if re.search(r"[A-Za-z]", line)]
    for i in worded[-PART_HEADING_LINES:]:  # lines of words: a chart's stray figures after it are no line
        if _heads_part(parts, lines[i], words(lines[i])) and len(row_cells(lines[i + 1:])) < ROW_FIGURES:
            return lines[i].strip()  # a label over its figures is a table's row, cut at the chunk's end
    return None


def _heads_part(parts: frozenset[str], line: str, said: list[str]) -> bool:
    """Whether a line (``said``: its words' stems) may head a part's section: opening with one of ``parts``'
    words, of few words and no figures, not a sentence."""
    return bool(said) and said[0] in parts and len(said) <= PART_LABEL_WORDS and not re.search(r"\d|[.;:]\s*$", line)


def part_title(parts: frozenset[str], chunk: dict) -> tuple[str, int] | None:
    """(the line, where the next line starts) of a part's section title inside a text chunk, its table below it
    in the same chunk (Best Buy's "Domestic Segment Performance Summary" over the segment's rows): a line
    opening with one of ``parts``' words and saying it heads a part ("segment", "business"), of few words and
    no figures. A row label alone ("Domestic" above its figures) says no such word."""
    if chunk.get("kind", "text") != "text":
        return None
    at = 0
    for line in (chunk.get("text") or "").split("\n"):
        at += len(line) + 1
        said = words(line)
        if _heads_part(parts, line, said) and frozenset(said) & SECTION_WORDS:
            return line.strip(), at
    return None


# Words that say a part is one without naming which ("Financial Products Segment"): no part's name, no measure
SECTION_WORDS = frozenset(words("segment segments business businesses division divisions"))
TOTAL_WORDS = SECTION_WORDS | frozenset(words("total"))  # a part's total row's words: no part's name, no measure
GOODS_WORDS = frozenset(words("products"))  # a segment named by its goods: "Diagnostic Products" for "diagnostics"


GROUP_HEADING = re.compile(r"\s*[—–:-]\s*$")  # "Diagnostics —", "Company-operated sales:": a group of rows' heading


def _group_cells(line: str, after: list[str]) -> list[str]:
    """The figures of the first row under a group's heading (a label ending in a dash or a colon, no figures
    of its own), if they hold an amount: Abbott's note of sales by category heads each segment's products
    "Diagnostics —", its total row below them labelled "Total" alone, so the part's figure is in the group
    the heading opens. A group of rates ("U.S. plans:" over the discount rates) sums to no figure."""
    if not GROUP_HEADING.search(line):
        return []
    first = next((row for row in after if row.strip()), "")
    cells = FIGURE.findall(first) if has_words(first) else []
    return cells if any(amount_cell(c) for c in cells) else []


def _part_cells(lines: list[str]) -> list[str]:
    """A part's row's figures on the lines after its label, one line of words between allowed (a PDF's table
    of products prints each one's indication under its name: "Paxlovid", "COVID-19 in certain high-risk
    patients", then its figures)."""
    cells = row_cells(lines)
    words_at = next((i for i, line in enumerate(lines) if has_words(line)), None)
    return cells if cells or words_at is None else row_cells(lines[words_at + 1:])


def named_parts(question: str, ignore: frozenset[str]) -> frozenset[str]:
    """The stems of the words a question writes with a capital, a sentence's first aside (names: "Theme
    Parks", "Optum Health", "Diabetes"), less ``ignore`` (the companies' names, the periods, the metric's
    words) and words that say a part is one without naming it ("segment", "EPS"): a line item is asked in
    lower case ("free cash flow", "research and development expenses"), a part by its name. A question
    typed all in lower case ("theme parks revenue 2023") says no case: each of its words may be a part,
    which a row then names only in a title's capitals (:func:`part_row`'s ``titled``). With no name, a part
    said in lower case as where the whole came from (:func:`source_words`)."""
    if typed_lower(question):
        return frozenset(w for w in words(question) if not w.isdigit()) - ignore - _STRUCTURE - _FUNCTION_STEMS - ASKING
    caps = [w for w, at in surface_words(question)
            if w[:1].isupper() and not opens_sentence(question, at)]
    return frozenset(w for c in caps for w in words(c)) - ignore - _STRUCTURE or source_words(question, ignore)


# a whole's source said in lower case ("came from apparel", "came from its domestic streaming segment", "was
# generated by advertising", "revenue from domestic broadband"), up to a period's or clause's word or the
# question's end; not "attributable to", which names the holders of a profit ("net income attributable to
# common shareholders")
_SOURCE = re.compile(r"\b(?:(?:came|come|comes|derived|generated|earned|earn|earns|revenues?|sales)\s+from"
                     r"|(?:generated|contributed|accounted\s+for)\s+by)\s+([a-z][\w&,'’ -]*?)"
                     r"(?=,?\s+(?:in|during|for|over|as|at|by|per|according|based|between|compared|versus|vs|than|since"
                     r"|excluding|including)\b|[?.;:(]|$)")
_SPLIT = frozenset(words("each every all which what various respective"))  # "came from each of its segments"
_ASKS_SPLIT = _SPLIT - {"what"}  # a split asked anywhere in a question: "what" opens nearly every one
_FUNCTION_STEMS = frozenset(words(" ".join(FUNCTION_WORDS)))  # "its" as a stem


def source_words(question: str, ignore: frozenset[str]) -> frozenset[str]:
    """The stems of the part a question names in lower case as where a whole came from ("What percentage of
    NIKE's fiscal 2019 revenues came from footwear?": a product line its rows title "Footwear"), less
    ``ignore`` and the words saying a part is one; none when the source is a split asked ("came from each of
    its segments")."""
    m = _SOURCE.search(question)
    said = frozenset(w for w in words(m.group(1)) if not w.isdigit()) if m else frozenset()
    return frozenset() if said & _SPLIT else said - ignore - _STRUCTURE - _FUNCTION_STEMS - ASKING


# Words that say on what basis a measure is counted, never which part: "worldwide sales", "global comparable
# sales", "consolidated net revenue", "constant currency revenues", "diluted earnings per share"
_BASIS = frozenset(words("worldwide global consolidated organic comparable comp same store systemwide constant "
                         "currency neutral underlying diluted basic effective latest recent quarterly annual lower "
                         "higher"))
_CLAUSE = re.compile(r"[,;:?.()!]\s")


def modifier_words(question: str, ignore: frozenset[str], metric: frozenset[str]) -> frozenset[str]:
    """The stems of a part a question says in lower case just before its measure ("What were automotive
    revenues in 2024?", "product revenue", "energy generation and storage revenue"): in the clause naming the
    measure (``metric``: its words), the words before the measure's first, back to a word that asks, a
    function word other than "and", or one of ``ignore`` (a company's name, a period); less the words saying a
    part is one and the measure's basis ("worldwide", "comparable"). None when the question asks for a split
    ("Which of its segments", "each of its businesses")."""
    if not metric or frozenset(words(question)) & _ASKS_SPLIT:
        return frozenset()
    for clause in _CLAUSE.split(question):
        said = words(clause)
        at = next((i for i, w in enumerate(said) if w in metric), None)
        if at is None:
            continue
        run = []
        for w in reversed(said[:at]):
            if w in ASKING or w in ignore or w.isdigit() or (w in _FUNCTION_STEMS and w != "and"):
                break
            run.append(w)
        return frozenset(run) - {"and"} - _STRUCTURE - _BASIS
    return frozenset()


# Words a question asks with, which name neither a part nor a measure
ASKING = frozenset(words("what was were is are did does do how much many which who when why has have had a an"))


def _titled(label: str) -> bool:
    """Whether a row's label is written as a name: each word but the joining ones opens with a capital
    ("Theme Parks", "Sales through NIKE Direct"), not a line item's sentence case ("Free cash flow")."""
    said = re.findall(r"[A-Za-z][A-Za-z&'’-]*", label)
    return bool(said) and all(w[0].isupper() or w.lower() in FUNCTION_WORDS for w in said)


def printed_label(line: str) -> str:
    """A row's label as printed: its line up to the first cell."""
    return re.split(r"\s*\|\s*|\s+[(\-–—$]?\s*\d", line.strip(), maxsplit=1)[0]


def _label_first(line: str) -> bool:
    """Whether a line opens with its label's words (then figures), as a table's row does."""
    return bool(re.match(r"^\W*[A-Za-z&]", line)) and not re.search(r"[A-Za-z]{2}.*\d.*[A-Za-z]{2}", line)
