"""A count asked ("How many stores did Best Buy operate at the end of fiscal 2019?", "How many commercial
airplanes did Boeing deliver in 2023?", "How many restricted stock units did Apple grant?"): no concept names
it and no statement prints it, so the search ranks the pages saying the thing counted most (the stores'
reconciliation by segment, the airplane programs' discussion) above the one line that counts it: a table's row
("Number of stores ... Total 1,238", "Deliveries 396 (9) 1 32 ...", "RSUs granted 91,674") or a sentence ("operated 2,335
stores", "Of the 41,822 McDonald's restaurants"). Pure: plain text in, pages out; :meth:`query.pins.Pins.
_count_pins` pins the first page of each kind in the document's order (the business's overview, the five-year
summary before the segments' detail). Asked as an action ("did it open"), the sentence is the one stating the
count after the verb ("opened 2,067 restaurants"): a count said with none ("Of the 41,822 restaurants", "1,040
retail stores worldwide") may be another one than the one asked."""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

from domain.text import FUNCTION_WORDS, words
from query.statements import FIGURE, ROW_FIGURES, label_cells, labelled_lines, page_position

# "how many <what is counted> <auxiliary> <company> <verb> ...": the company's names are cut from the text
# read (``query.plan.make_plan``), so the verb follows the auxiliary
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<what>.+?)\s+(?P<aux>did|does|do|were|was|are|is|has|have|had|will|would)"
                       r"\b(?P<rest>.*)", re.I | re.S)
_DOING = frozenset({"did", "does", "do"})  # an action asked ("did it open"), not a state ("were open") ...
_EACH = frozenset(words("each both all"))  # "did Home Depot and Lowe's each have": the verb follows
_HAVING = frozenset(words("have has had hold holds held own owns owned"))  # ... nor what it has ("does it have")
# "how many years do options vest": a span of time asked, not a count of things
_DURATIONS = frozenset(words("years year months month weeks week days day hours hour"))
INITIALS_WORDS = 3  # a shorter phrase's initials are no name ("CA" for "commercial airplanes")
COUNTED_WORDS = 4  # a longer "thing counted" is a clause, not a noun
# Words a count's row label may add to the thing counted: a sum's or a number's, which make a label of the thing
# alone a count's ("Total stores (end of year)", "Number of stores"; a row "Commercial Airplanes" is a segment's),
# and the period's ("Deliveries during the second quarter of 2023"); years are figures.
_SUM_WORDS = frozenset(words("total number"))
_PERIOD_WORDS = frozenset(words("end year years fiscal period during first second third fourth quarter six nine "
                                "three twelve months month beginning ended"))
TITLE_REACH = 8  # lines after a table's title line (a count's name alone) that its first figure row may be on
ROW_LABEL_WORDS = 3  # words a row under a count's title may be labelled by ("Domestic", "Total")
LABEL_SLACK = 6  # words a count's row label may say beyond the thing counted
# a count in a sentence: an integer of two digits or more, not an amount, a share, a year (``_YEAR``) or a day
_COUNT = re.compile(r"(?<![$\d.,])(?:\d{1,3}(?:,\d{3})+|\d{2,})(?![\d,.]*\d)(?!\s*(?:%|percent|million|billion))")
_YEAR = re.compile(r"(?:19|20)\d\d$")
_MONTH_BEFORE = re.compile(r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+$")  # a day's number
_VERB_REACH = 3  # words before a count its verb may stand ("we operated approximately 2,335 stores")
_NOUN_REACH = 3  # words a sentence may put between the count and the thing counted ("41,822 McDonald's restaurants")


class Counted(NamedTuple):
    """What a count question counts: its words' stems (the head noun last), the stems of the nouns filings print
    for its verb ("deliveries" for "deliver": ``query.plan.printed_nouns``), the verb's own stem, the initials
    of a phrase of three words or more ("rsu" for "restricted stock units", printed "RSUs"), the phrase and
    the nouns as said, and whether the verb is an action asked with "do"."""

    what: tuple[str, ...]
    nouns: tuple[str, ...] = ()
    verb: str = ""
    initials: str = ""
    said: str = ""
    printed: tuple[str, ...] = ()
    acted: bool = False  # asked with "do": the verb is an action its sentence states ("opened 2,067 restaurants")

    def searched(self) -> list[str]:
        """What the document is searched for: the thing as said with its initials ("restricted stock units
        RSUs": a table prints the short form), and the verb's nouns alone."""
        said = f"{self.said} {self.initials.upper()}s" if self.initials else self.said
        return [said] + ([" ".join(self.printed)] if self.printed else [])

    def naming(self) -> frozenset[str]:
        """The stems that name the thing counted in a label or after a count: the head noun, the verb's nouns."""
        return frozenset({self.what[-1], *self.nouns})


def counted(question: str, nouns: list[str]) -> Counted | None:
    """The thing a "how many" question counts (``question``: without its companies' names, so the verb follows
    the auxiliary; ``nouns``: the nouns filings print for its verbs); None when it asks no count or names a
    clause."""
    m = _HOW_MANY.search(question)
    if not m:
        return None
    what = tuple(w for w in words(m.group("what")) if w not in FUNCTION_WORDS)
    if not what or len(what) > COUNTED_WORDS or what[-1] in _DURATIONS:
        return None
    verb = next((w for w in words(m.group("rest")) if w not in FUNCTION_WORDS and w not in _EACH), "")
    surface = re.findall(r"[A-Za-z]+", m.group("what"))
    initials = "".join(w[0] for w in surface).lower() if len(surface) >= INITIALS_WORDS else ""
    return Counted(what, tuple(w for n in nouns for w in words(n)), verb, initials, m.group("what"), tuple(nouns),
                   m.group("aux").lower() in _DOING and verb not in _HAVING)


def _names(label_words: tuple[str, ...], c: Counted) -> bool:
    """Whether a row's label names the count: a noun of the verb ("Deliveries"), the initials ("RSUs granted")
    or the thing counted, every word of it, with a sum's or a number's word ("Number of stores"; "Total
    memberships" counts more than the "paid streaming memberships" asked), and nothing beyond the thing
    counted, the verb, those words and the period's (and years)."""
    own = [w for w in label_words if w not in FUNCTION_WORDS and not w.isdigit()]
    initialism = {w for w in own if c.initials and w.rstrip("s") == c.initials}
    said = set(own) - initialism
    named = initialism or said & set(c.nouns) or (set(c.what) <= said and said & _SUM_WORDS)
    return bool(named) and len(label_words) <= len(c.what) + LABEL_SLACK and \
        said <= set(c.what) | set(c.nouns) | {c.verb} | _SUM_WORDS | _PERIOD_WORDS


def _counts(cells: list[str]) -> bool:
    """Whether a row's figures are counts: at least ``ROW_FIGURES``, the first neither an amount nor a share."""
    return len(cells) >= ROW_FIGURES and "$" not in cells[0] and "%" not in cells[0]


def count_row_page(chunk: dict, c: Counted) -> int | None:
    """The page on which a chunk prints the count's row: a line whose text before its first figure names the
    count (:func:`_names`) and is no clause (it ends in no comma or period), with count figures on it or on the
    lines after it up to the next line with words, or, a table's title naming it alone ("Number of stores"),
    the figures of the short rows under it ("Domestic 1,026 ... Total 1,238": :func:`_titled_cells`)."""
    lines = (chunk.get("text") or "").split("\n")
    for i, label, at in labelled_lines(lines):
        if not label.rstrip().endswith((",", ".")) and _names(words(label), c) and \
                _counts(label_cells(lines, i, label) or _titled_cells(lines[i + 1:])):
            return page_position(chunk, at)[0]
    return None


def _titled_cells(lines: list[str]) -> list[str]:
    """The first figures under a table's title: of the rows within ``TITLE_REACH`` lines whose labels are
    short (a sub-total's, a segment's: at most ``ROW_LABEL_WORDS`` words), up to a line of prose."""
    cells: list[str] = []
    for line in lines[:TITLE_REACH]:
        cell = FIGURE.search(line)
        if len(words(line[:cell.start()] if cell else line)) > ROW_LABEL_WORDS:
            break
        cells += FIGURE.findall(line)
        if len(cells) >= ROW_FIGURES:
            break
    return cells


def count_sentence_page(chunk: dict, c: Counted, acted: bool = False) -> int | None:
    """The page on which a chunk states the count in words: an integer (not an amount, a share, a year or a
    day's number) followed within ``_NOUN_REACH`` words, none a joining word, by the head noun or a noun of the
    verb ("2,335 stores", "41,822 McDonald's restaurants"; not "31 for the United States"); with ``acted``,
    after the question's verb ("opened 2,067 restaurants", not "Of the 41,822 restaurants")."""
    text = chunk.get("text") or ""
    naming = c.naming()
    for m in _COUNT.finditer(text):
        if _YEAR.match(m.group()) or _MONTH_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        said = re.split(r"[.,;:()\n]", text[m.end():m.end() + 80], maxsplit=1)[0]
        after = list(itertools.takewhile(lambda w: w not in FUNCTION_WORDS, words(said)))[:_NOUN_REACH + 1]
        if not naming & set(after):
            continue
        if acted and c.verb not in words(text[max(0, m.start() - 40):m.start()])[-_VERB_REACH:]:
            continue
        return page_position(chunk, m.start())[0]
    return None
