"""A figure the question names no statement, note or section for ("catastrophe losses", outside the
reviewed vocabulary; "Systemwide sales", whose concept names only MD&A) has no statement or note to pin it,
and the search ranks the pages that discuss the measure at length (a segment's results, a nine months'
paragraph) above the one that gives it: the summing-up of the period, a highlights bullet or an overview's
sentence that opens with the measure's words and gives its figure at once ("Catastrophe losses of $850
million", "Systemwide sales increased 10% ... to $129.5 billion"). Pure: plain text in, pages out;
:meth:`query.pins.Pins._stated_pin` pins the first page found."""

from __future__ import annotations

import re

from domain.periods import PERIOD_WORDS
from domain.text import CHANGED, FUNCTION_WORDS, sentence_spans, words
from query.parts import ASKING
from query.statements import page_position

# Words a question asks a figure with that name no measure ("What ... did X report", "How big were ...")
_ASKING_A_FIGURE = frozenset(words("report reported record recorded post posted disclose disclosed big large "
                                   "size amount value figure company company's its their"))
# Words that join a measure to its figure in a summing-up ("of $850 million", "increased 10% to", "totaled")
_STATING = frozenset(words(" ".join(("of was were totaled totalled improved amounted reached up down", *CHANGED))))
MEASURE_WORDS = 4  # more words than this are a sentence's, not a measure's name
LEAD_WORDS = 1  # words a statement may say before the measure ("Consolidated revenues", "Total ...")
FIGURE_WINDOW = 12  # words after the measure (as the text spaces them) within which a statement gives its figure
_FIGURE = re.compile(r"\$\s?\d|\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:%|percent\b|billion\b|million\b)", re.I)
_STATEMENT_BREAK = re.compile(r"\n|[•●▪◦]|(?<=[a-z)])\.\s+(?=[A-Z])")


def measure_words(lexical: str) -> tuple[str, ...]:
    """The stems a figure question names its measure with (``lexical``: the question without its companies'
    names), in order: its words less the asking, joining and period words and numbers."""
    drop = ASKING | _ASKING_A_FIGURE | FUNCTION_WORDS | PERIOD_WORDS
    return tuple(w for w in words(lexical) if w not in drop and not any(c.isdigit() for c in w))


def measure(lexical: str) -> tuple[str, ...]:
    """The stems of the measure a figure question names (:func:`measure_words`); empty when more than
    ``MEASURE_WORDS`` remain (a sentence asked, not a measure)."""
    named = measure_words(lexical)
    return named if len(named) <= MEASURE_WORDS else ()


def statement_at(text: str, named: tuple[str, ...]) -> int | None:
    """Where the first of ``text``'s statements (its lines, bullets and sentences) that gives the measure's
    figure starts: it opens with the measure's words (at most ``LEAD_WORDS`` before them), goes on with a
    word that joins it to a figure, and gives one within ``FIGURE_WINDOW`` words; None if none does."""
    if not named:
        return None
    at = 0
    for part in _STATEMENT_BREAK.split(text):
        start = text.index(part, at)  # the parts come in order: each found once, from the last one's end
        at = start + len(part)
        said = words(part)
        for lead in range(LEAD_WORDS + 1):
            end = lead + len(named)
            if said[lead:end] == named and said[end:end + 1] and said[end] in _STATING and \
                    _FIGURE.search(" ".join(part.split()[end:end + FIGURE_WINDOW])):
                return start
    return None


def stated_page(chunk: dict, named: tuple[str, ...]) -> int | None:
    """The page on which a passage states the measure's figure (:func:`statement_at`), if it does."""
    at = statement_at(chunk.get("text") or "", named)
    return None if at is None else page_position(chunk, at)[0]


# An amount said in words, as prose rounds it ("$5.5 billion", "$1,014 million"): its number and scale word
_SPOKEN = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)\s?(billion|million)\b", re.I)
_SCALE = {"billion": 1e9, "million": 1e6}
SPOKEN_DIGITS = 2  # significant digits an amount said in words needs to name one figure ("$5 billion" names many)


def spoken_amounts(text: str) -> list[tuple[int, float, float]]:
    """The amounts ``text`` says in words: (where, the amount, the step its rounding leaves): "$5.5 billion"
    is 5.5e9 to within 0.05e9; only those said with ``SPOKEN_DIGITS`` significant digits or more."""
    found = []
    for m in _SPOKEN.finditer(text):
        number, scale = m.group(1).replace(",", ""), _SCALE[m.group(2).lower()]
        decimals = len(number.split(".")[1]) if "." in number else 0
        step = scale / 10 ** decimals
        if len(number.replace(".", "").lstrip("0")) >= SPOKEN_DIGITS:
            found.append((m.start(), float(number) * scale, step))
    return found


SAID_WINDOW = 10  # words either side of an amount said in words within which its measure's word is said


def said_amount_at(text: str, amounts: list[tuple[float, frozenset[str]]]) -> int | None:
    """Where a sentence of ``text`` says one of ``amounts`` in words, rounded as prose rounds it, with one of
    that amount's words (stems) within ``SAID_WINDOW`` words of it: "We paid $5.5 billion ... in cash
    dividends" for dividends paid of 5,487 million; not "$9.7 billion in notes due by 2060", whose next
    sentence says "repurchased". ``amounts``: (the fact's value, the stems of its measure the question says)."""
    for start, end in sentence_spans(text):
        part = text[start:end]
        for where, amount, step in spoken_amounts(part):
            near = part[:where].split()[-SAID_WINDOW:] + part[where:].split()[1:SAID_WINDOW + 2]
            said = set(words(" ".join(near)))
            if any(named & said and abs(abs(value) - amount) <= step / 2 for value, named in amounts):
                return start + where
    return None


def said_amount_page(chunk: dict, amounts: list[tuple[float, frozenset[str]]]) -> int | None:
    """The page on which a passage says one of ``amounts`` in words (:func:`said_amount_at`), if it does."""
    at = said_amount_at(chunk.get("text") or "", amounts)
    return None if at is None else page_position(chunk, at)[0]
