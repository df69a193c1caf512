"""A question asking how a company defines a term ("How does Walmart define eCommerce sales?", "What does
Caterpillar mean by ME&T?") is answered by the sentence that defines it ("We define eCommerce sales as ...",
"ME&T ... is defined as ..."), often a line in Item 1 or an MD&A overview, which the search ranks below the
pages using the term most (the notes' eCommerce revenue policy, every ME&T table). Pure: plain text in,
offsets out; :meth:`query.pins.Pins._definition_pin` pins the defining pages. A question that gives its own
definition ("... ratio, defined as X / Y") asks a figure, not this."""

from __future__ import annotations

import re

from domain.text import words
from query.parts import ASKING

_ASKS = re.compile(r"\b(?:define|defines|definition of|mean by|means by|meaning of)\s+(?P<term>[^?]+)", re.I)
_GIVES = re.compile(r"\bdefined\s+(?:as|by)\b", re.I)  # the question defines it itself: a figure asked
# Words that end the term asked ("eCommerce sales in its annual report", "the ratio it reports for Aerospace")
_TERM_ENDS = frozenset(words("in for at from within under it its their that which when as on during"))
_ARTICLES = frozenset(words("a an the its their our"))
TERM_WORDS = 6  # a longer "term" is a sentence, not a name
_TOKEN = re.compile(r"[^\W_]+|&")
_DEFINING = frozenset(words("is are was were"))
# Verbs a term's own sentence defines it with ("GDV measures dollar volume", "Average ticket represents ...")
_DEFINES = frozenset(words("means refers represents measures"))


def term(question: str) -> tuple[str, ...]:
    """The stems of the term whose definition ``question`` asks, in order; empty when it asks none (or gives
    its own definition)."""
    if _GIVES.search(question) or not (m := _ASKS.search(question)):
        return ()
    said: list[str] = []
    for w in words(m.group("term")):
        if said and w in _TERM_ENDS:
            break
        if not said and (w in _ARTICLES or w in ASKING):
            continue
        said.append(w)
    return tuple(said) if 0 < len(said) <= TERM_WORDS else ()


def definition_at(text: str, named: tuple[str, ...]) -> int | None:
    """Where ``text`` defines the term: "define(s) [a|the] TERM as", "TERM is (are) defined as", "TERM
    means (refers to, represents, measures)", the term's initials allowed after it (its stems, so "defines"
    and "defined" read alike); the character offset of the sentence's term, or None."""
    if not named:
        return None
    spots = [(m.start(), w) for m in _TOKEN.finditer(text) for w in words(m.group())[:1]]  # "&" is "and"
    said = [w for _, w in spots]
    n = len(named)
    for i in range(len(said) - n + 1):
        if tuple(said[i:i + n]) != named:
            continue
        after = said[i + n:i + n + 4]
        if after[:1] == ["".join(w[0] for w in named)]:  # its initials in brackets: "Gross Dollar Volume (GDV)"
            after = after[1:]
        if ("defin" in said[max(0, i - 2):i] and after[:1] == ["as"]) or after[:1] and (
                after[0] in _DEFINES or after[0] in _DEFINING and after[1:3] == ["defin", "as"]):
            return spots[i][0]
    return None
