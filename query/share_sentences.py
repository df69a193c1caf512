"""A part's share of the whole asked ("What percentage of Walmart's fiscal 2018 net sales came from Walmart
U.S.?", "What share of Lockheed Martin's 2021 net sales came from the U.S. Government?"): where no table prints
the parts' shares, the filing says them in a sentence of its business description, MD&A or risk factors
("Walmart U.S. generated approximately 64% of our net sales in fiscal 2018", "Operating revenues for the
Regulated Businesses were $3,505 million for 2022, ... accounting for 92%, 86% and 86%, respectively, of the
Company's total operating revenues"), while the part's rows print amounts to compute it from. And a part's
amount said in a sentence its own section opens with ("Oncology products achieved sales of $17.7 billion in
2023"). Pure: plain text in, pages out; ``query.part_pins`` pins the first page found, the share before the
part's rows, the amount after them."""

from __future__ import annotations

import re

from domain.periods import head_years
from domain.text import has_phrase, phrase_text, sentence_spans, words
from query.stated import spoken_amounts
from query.statements import page_position

# a share asked: "what percentage of", "the largest share of", "more than 20% of" (not "earnings per share of",
# "shares of common stock", "market share of")
_SHARE_ASKED = re.compile(r"\b(?:percent(?:age)?s?|proportion|portion|fraction|(?<!per )(?<!market )share)\s+of\b"
                          r"|%\s+of\b", re.I)
# a share stated, then "of" after any further shares of the other years ("92%, 86% and 86%, respectively, of")
_SHARE_OF = re.compile(r"(?<![\d.,$])\d{1,3}(?:\.\d+)?\s?(?:%|percent\b)"
                       r"(?:\s*,?\s*(?:and\s+)?\d{1,3}(?:\.\d+)?\s?(?:%|percent\b))*"
                       r"\s*,?\s*(?:respectively\s*,?\s*)?of\b", re.I)
MEASURE_REACH = 6  # words after "of" within which the measure stands ("of our fiscal 2018 consolidated net sales")
SHARE_SEARCH = 30  # a document's passages read for a sentence stating a part's share


def asks_share(question: str) -> bool:
    """Whether a question asks a part's share of a whole, in percent or as a share."""
    return bool(_SHARE_ASKED.search(question or ""))


def share_sentence_page(chunk: dict, part: frozenset[str], measures: tuple[tuple[str, ...], ...]) -> int | None:
    """The page of the first sentence of a chunk that names the ``part`` (the stems of its name, every one in
    the sentence) and states a share of one of ``measures`` (stems): a percent followed
    by "of" and, within ``MEASURE_REACH`` words, the measure ("approximately 64% of our net sales"; not "a
    gross profit rate of 24.7%", nor "13.0% of sales" said of a division's profit, whose sentence names no
    part asked)."""
    text = chunk.get("text") or ""
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if not part or not part <= frozenset(words(sentence)):
            continue
        for m in _SHARE_OF.finditer(sentence):
            after = phrase_text(words(sentence[m.end():])[:MEASURE_REACH])
            if any(has_phrase(after, cue) for cue in measures):
                return page_position(chunk, start + m.start())[0]
    return None


SUBJECT_WORDS = 6  # a sentence's first words, where the part it is about stands ("Medical Surgical's net sales")


def amount_sentence_page(chunk: dict, part: frozenset[str], cues: tuple[tuple[str, ...], ...],
                         years: frozenset[int] = frozenset()) -> int | None:
    """The page of the first sentence of a chunk about the ``part`` (every stem of its name among the
    sentence's first ``SUBJECT_WORDS`` words) that says the metric (one of ``cues``) and an amount of money
    in words, of a year asked or of none (``years``): MD&A's section of a part states its figure so,
    "Oncology products achieved sales of $17.7 billion in 2023", "Medical Surgical's net sales for fiscal year
    2024 were $8.4 billion", where its table may print it on another page or not at all."""
    text = chunk.get("text") or ""
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        said = words(sentence)
        if not part or not part <= frozenset(said[:SUBJECT_WORDS]) or not spoken_amounts(sentence):
            continue
        named = head_years([sentence])
        if years and named and not named & years:
            continue
        if any(has_phrase(phrase_text(said), cue) for cue in cues):
            return page_position(chunk, start + len(sentence) - len(sentence.lstrip()))[0]
    return None
