"""A part of a company named by its initials ("Caterpillar's RI segment", "Disney's DPEP revenue"): read as
the name the company's own filings print, whose capitalized words those initials spell ("Resource Industries",
"Disney Parks, Experiences and Products").

Analysts write a segment's initials; the filings print its name in the tables and the MD&A pages that answer
(Caterpillar's 10-Q never prints "RI"). Searched with the initials, those pages match nothing the question says
but "segment"; with the name they match as a question naming it in full does. The name is read from the
passages of the company's own filings (an iXBRL member is no help for a PDF): the run of capitalized words,
joining words between them, printed most often, in at least :data:`LEAST_PASSAGES` passages and clearly more
often than any other run with those initials (:data:`CLOSE`: Caterpillar's "Corporate Items" and
"Construction Industries" are both "CI", so nothing is read). Pure: plain strings in, plain strings out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable

# The words a name's initials leave out ("Energy & Transportation" E&T, "Safety and Productivity Solutions" SPS,
# "Pharmaceuticals for Life" PL), and the comma a list of its words is written with: one set for the names a
# question's initials are read as and for the rows and members whose initials a question may write
JOINING = frozenset({"and", "of", "the", "for", "&", ","})
INITIALS_HITS = 100  # passages of the company's filings, best first, the name is read from
OWNER_CHECKED = 20  # passages of the whole corpus read for whose filings print the name read
CLOSE = 2 / 3  # a second name printed in this share of the first's passages makes the initials ambiguous
LEAST_PASSAGES = 2  # a run one passage prints may be a heading's accident
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’.-]*|&|,|[^\sA-Za-z&,]+")  # words, and what stands between names ("$ 1,803")
_CAPITALS = re.compile(r"(?<![\w&])[A-Z](?:&?[A-Z]){1,4}(?![\w&])")  # "RI", "BSNA", "E&T": a word of its own


def written_initials(question: str) -> list[str]:
    """The words a question writes in capitals, two to five letters, as written ("RI", "E&T"), first seen first."""
    return list(dict.fromkeys(m.group() for m in _CAPITALS.finditer(question)))


def _capital(token: str) -> bool:
    return token[:1].isupper()


def _name_word(token: str) -> bool:
    """A word a name is spelled with: capitalized and written in words, not itself initials ("GE" of "GE
    Energy", "ASIC") nor a letter ("P & G")."""
    return _capital(token) and len(token) > 1 and any(c.islower() for c in token)


def spelled_runs(initials: str, text: str) -> list[str]:
    """The runs of a text whose capitalized words spell ``initials`` (its letters, "&" aside), joining words
    between them, each a whole name: no capitalized word just before or after it ("Resource Industries" for
    "RI", not a run inside "Global Resource Industries Holdings")."""
    letters = initials.replace("&", "")
    tokens = _TOKEN.findall(text)
    runs = []
    for start, token in enumerate(tokens):
        if token[0] != letters[0] or (start and _capital(tokens[start - 1]) and tokens[start - 1].lower() not in JOINING):
            continue
        end, spelled = start, 0
        while end < len(tokens) and spelled < len(letters):
            word = tokens[end]
            if _name_word(word) and word[0] == letters[spelled]:
                spelled += 1
            elif word.lower() not in JOINING or end == start:
                break
            end += 1
        whole = end == len(tokens) or not (_capital(tokens[end]) and tokens[end].lower() not in JOINING)
        if spelled == len(letters) and whole:
            run = re.sub(r" ,", ",", " ".join(tokens[start:end]))
            runs.append(re.sub(r"(?:['’]s?|\.)$", "", run))  # "Construction Industries’ sales": the name
    return runs


def read_initials(initials: str, passages: Iterable[str], company: str = "") -> str | None:
    """The name ``initials`` stand for in these passages (module docstring): the run printed in the most
    passages, at least :data:`LEAST_PASSAGES`, clearly more than any other; None when none is. When as many
    passages print the initials themselves, only a name one of them defines them as counts (Adobe's "AI" is no
    "Adobe Illustrator": BM25 finds what is written), printed in more passages than the initials are (Adobe's
    "ARR", defined once as "Annualized Recurring Revenue" and printed on every page asked, stays as written).
    The company's own name is no reading ("Caterpillar Inc" spells "CI" too: Construction Industries is meant)."""
    texts = list(passages)
    own = _words(company)
    counts = Counter(run for text in texts for run in set(spelled_runs(initials, text)) if not _words(run) <= own)
    printed = printed_in(initials, texts)
    if printed >= LEAST_PASSAGES:
        # the filings print the initials themselves: a name they define them as ("Disney Media and
        # Entertainment Distribution (DMED)"), else the initials as printed (Adobe's "AI")
        counts = Counter({run: n for run, n in counts.items() if any(_defines(run, initials, t) for t in texts)})
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < max(LEAST_PASSAGES, printed + 1):
        return None  # no name, or one printed no more often than the initials: what they print is found as is
    if len(ranked) > 1 and ranked[1][1] >= CLOSE * ranked[0][1]:
        return None  # two names printed about as often: the initials are ambiguous, and read as written
    return ranked[0][0]


def printed_in(initials: str, texts: list[str]) -> int:
    """How many of the texts print the initials as a word of their own."""
    written = _as_word(initials)
    return sum(bool(written.search(text)) for text in texts)


def printed_initials(initials: str, texts: list[str]) -> bool:
    """Whether :data:`LEAST_PASSAGES` of the texts print the initials as a word of their own."""
    return printed_in(initials, texts) >= LEAST_PASSAGES


def _as_word(initials: str) -> re.Pattern:
    return re.compile(rf"(?<![\w&]){re.escape(initials)}(?![\w&])")


def _defines(run: str, initials: str, text: str) -> bool:
    """Whether the text gives the initials in brackets right after the name: "Energy & Transportation (E&T)"."""
    name = r"\s*".join(map(re.escape, run.split()))
    return re.search(rf"{name}\s*\(\s*[\"“']?{re.escape(initials)}[\"”']?\s*\)", text) is not None


def _words(text: str) -> set[str]:
    return {w.lower().strip(".'’") for w in _TOKEN.findall(text)} - JOINING


def spelled_question(question: str, names: dict[str, str], printed: Collection[str] = ()) -> str:
    """The question with each initials written as the name they stand for ("Caterpillar's RI segment" ->
    "Caterpillar's Resource Industries segment"); initials the filings print too (``printed``) kept, the name
    after them ("ME&T (Machinery, Energy & Transportation)": a question asking what they mean still says them)."""
    for initials, name in names.items():
        question = _as_word(initials).sub(f"{initials} ({name})" if initials in printed else name, question)
    return question
