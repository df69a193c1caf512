"""The one text normalizer: words as the index side and the query side both see them.

The FLAM lexicon is counted over chunk text and matched against questions; concept cues, fact synonyms and
tree labels are matched against questions; BM25 analyzes passages and queries. Wherever two sides must
agree, they call these functions, so "gross margin?" meets "gross margin" and "R&D" meets "R&D":

- :data:`WORD` is the one word pattern: runs of letters and digits (tantivy's simple tokenizer, which the
  BM25 indexes use), so every punctuation mark splits words;
- :func:`words`: lower case; "&" is "and"; possessives dropped; closed compounds opened ("cashflow" is
  "cash flow"); each word stemmed by tantivy's English stemmer (the BM25 indexes' own), so
  "operates"/"operate", "liabilities"/"liability" meet. Stop words are kept: "operates in" is not
  "operating";
- :func:`lexemes`: the words as stems marked with the derivation the stemmer cut ("receivables" is
  "receiv+able", "receive" "receiv+"), so a one-word concept cue is said by its own word only;
- :func:`plain_term`: a phrase's lower-cased words joined by spaces, the key a FLAM lexicon term is stored,
  counted and matched under (index side and query side alike);
- :func:`phrase_text` / :func:`has_phrase`: a phrase matches a text holding its words in a row;
- :func:`surface_words`: the words as written (case kept, possessive kept), for what is read from its
  spelling, such as company names and tickers ("AmEx", "JPM's");
- :func:`lower_words`: lower-cased words, unstemmed, for overlap between short texts;
- :func:`clean_question`: a question as the model and the engines may read it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

MAX_TOKEN = 40  # bytes: longer tokens are dropped by the BM25 analyzer
WORD = re.compile(r"[^\W_]+")
_SURFACE = re.compile(r"[A-Za-z0-9&]+(?:['’][sS])?")
_POSSESSIVE = re.compile(r"['’]s\b")
# Words that join a label's or a phrase's names without naming anything ("Research and Development", "Cost of
# Sales"): a label's fit is read on its other words.
FUNCTION_WORDS = frozenset({"in", "at", "of", "the", "for", "and", "also", "from", "our", "its", "through", "by"})
# The verbs a filing states a figure's change with, past tense ("Net sales increased 8%", "Revenues fell"): one list
# for the sentences explaining a change (``domain.statements``) and those summing a measure up (``query.stated``)
CHANGED = ("increased", "decreased", "grew", "declined", "rose", "fell")


def typed_lower(text: str | None) -> bool:
    """Whether a text is typed without a capital (a search box's "nvidia revenue 2023"): it then says
    nothing by case, neither a name's nor a part's."""
    return not any(c.isupper() for c in text or "")


_COMPOUNDS = {"cashflow": "cash flow", "cashflows": "cash flows", "nongaap": "non gaap"}


def analyzer(stop_words: bool = True):
    """tantivy's analyzer as the BM25 full-text indexes are built: simple tokenizer (:data:`WORD`), at most
    :data:`MAX_TOKEN` bytes, lower case, English stemmer, stop words (unless ``stop_words=False``: phrases
    whose little words matter), ASCII folding."""
    from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

    built = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(MAX_TOKEN)) \
        .filter(Filter.lowercase()).filter(Filter.stemmer("english"))
    if stop_words:
        built = built.filter(Filter.stopword("english"))
    return built.filter(Filter.ascii_fold()).build()


def _stemmer():
    return analyzer(stop_words=False).analyze


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    tokens = _stemmer()(word)
    return tokens[0] if tokens else word


@functools.lru_cache(maxsize=1)
def _terms_analyzer():
    return analyzer().analyze


def terms(text: str | None) -> frozenset[str]:
    """The text's distinct full-text terms (stemmed, stop words out): what BM25 matched a question on."""
    return frozenset(_terms_analyzer()(text or ""))


def _parts(text: str | None) -> list[str]:
    """The text's words, lower case, before stemming (see the module docstring)."""
    text = _POSSESSIVE.sub("", (text or "").lower()).replace("&", " and ")
    return [part for w in WORD.findall(text) for part in _COMPOUNDS.get(w, w).split()]


def words(text: str | None) -> tuple[str, ...]:
    """The text's words, normalized and stemmed, in order (see the module docstring)."""
    return tuple(_stem(part) for part in _parts(text))


_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")


def hyphenated(text: str) -> list[tuple[str, ...]]:
    """The stems of each hyphenated compound the text says ("company-operated" -> ("compani", "oper")): one
    modifier, whose words together may name what each alone does not."""
    return [words(m) for m in _HYPHENATED.findall(text)]


# Endings the stemmer cuts that make another word, not another form of one: "receivables" is not "receive",
# "retirement" not "retire", "liquidity" not "liquid" (after the stem, a leading "e" dropped: "-ement").
_DERIVATIONS = (("abil", "able"), ("abl", "able"), ("ibl", "ible"), ("ment", "ment"), ("it", "ity"),
                ("ion", "ion"))


def _lexeme(word: str) -> str:
    """A word's stem and the derivation the stemmer cut ("receivables": "receiv+able")."""
    stem = _stem(word)
    rest = word[len(stem):] if word.startswith(stem) else ""
    rest = rest[1:] if rest.startswith("e") else rest
    return stem + "+" + next((name for ending, name in _DERIVATIONS if rest.startswith(ending)), "")


def said_as_itself(phrase: str, said: frozenset[str]) -> bool:
    """Whether a cue the text's stems hold is said as itself: a phrase of several words is; one word only when
    its lexeme is among the text's (``said``: :func:`lexemes` of the text): "receivables" by "receivable",
    not by "receive"."""
    parts = _parts(phrase)
    return len(parts) != 1 or _lexeme(parts[0]) in said


def lexemes(text: str | None) -> frozenset[str]:
    """The text's words as (stem, derivation) strings, "receiv+able" for "receivables", "receiv+" for
    "received": a one-word cue is said by its own word's forms only, not by every word sharing its stem."""
    return frozenset(_lexeme(part) for part in _parts(text))


_INITIALISM = re.compile(r"\b(?:[A-Za-z]\.){2,}")


def joined_initialisms(text: str) -> str:
    """Dotted initialisms written as one word ("U.S." -> "US", "U.K." -> "UK"), as XBRL member names
    write them (``WalmartUSSegmentMember``)."""
    return _INITIALISM.sub(lambda m: m.group().replace(".", ""), text)


def phrase_text(stems: tuple[str, ...]) -> str:
    """Stems joined for substring search: a phrase matches on whole words only."""
    return " " + " ".join(stems) + " "


def has_phrase(text_stems: str, phrase: tuple[str, ...]) -> bool:
    """Whether ``phrase`` (stems) occurs in a row in ``text_stems`` (:func:`phrase_text` of a text's words)."""
    return bool(phrase) and phrase_text(phrase) in text_stems


_SENTENCE_END = re.compile(r"(?:^|[.?!:;\n])[\s\"'“‘(]*$")
# a dot that closes an initial ("U.S.", "J. Erik") or a company's abbreviation ("Inc.", "Co."), not a sentence
_ABBREVIATED = re.compile(r"(?:\b[A-Za-z]|\b(?:Inc|Co|Corp|Cos|Ltd|Bros|Intl|No|vs|Mr|Mrs|Ms|Dr|St|Jr|Sr))\.[\s\"'“‘(]*$",
                          re.I)


def ends_sentence(line: str) -> bool:
    """Whether a line closes a sentence with its dot: not an initial's or a company's abbreviation ("NIKE,
    INC." titling a table's column)."""
    return line.rstrip().endswith(".") and not _ABBREVIATED.search(line)


# a sentence's end: a stop before the next sentence's capital, figure, quote or bullet, a blank line, or a bullet
_SENTENCE_BREAK = re.compile(r"[.?!;](?=\s+[\"'“‘(]?[A-Z0-9$•●▪])|\n\s*\n|(?=[•●▪◦])")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a passage, its line breaks inside (a PDF's text wraps a sentence
    over lines): a stop ends one where the next opens with a capital or a figure, but not the dot of an
    initial or a company's abbreviation ("Walmart U.S. generated ...", :func:`ends_sentence`); a blank line
    and a bullet end one too."""
    spans, start = [], 0
    for m in _SENTENCE_BREAK.finditer(text):
        if m.group() == "." and _ABBREVIATED.search(text[:m.end()]):
            continue
        if text[start:m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def without_names(text: str, names: Iterable[str], possessive: bool = True) -> str:
    """The text with each of ``names`` cut out as written, whatever joins its words ("Bristol-Myers Squibb's"
    for "Bristol Myers Squibb"), and with ``possessive`` its "'s" too: what a question says beside the
    companies it names (kept, the "'s" still tells "Boeing's plan", a noun, from "does Boeing plan")."""
    tail = "(?:['’]s?)?" if possessive else ""
    for name in names:
        joined = r"[\W_]*".join(re.escape(w) for w in re.findall(r"\w+", name))
        text = re.sub(rf"(?<!\w){joined}{tail}(?!\w)", " ", text) if joined else text
    return text


def opens_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` is a sentence's first, whose capital says nothing of a name: the text's
    start, or after a sentence's end; the word after "U.S." or "Inc." is inside its sentence ("U.S. Domestic
    Package", "Alphabet Inc. Google Cloud")."""
    before = text[:at]
    return bool(_SENTENCE_END.search(before)) and not _ABBREVIATED.search(before)


def surface_words(text: str | None) -> list[tuple[str, int]]:
    """The words as written with where each starts, case kept: ASCII letters, digits and "&" ("S&P",
    "AT&T", a lone "&"), a possessive kept on its word ("Apple's"); for names and tickers. Accented letters
    are read as their plain ones ("Nestlé" and "Nestle" are one word; offsets are the text's own)."""
    folded = fold_accents(text or "")
    return [(m.group(0), m.start()) for m in _SURFACE.finditer(folded)]


@functools.lru_cache(maxsize=4096)
def _plain(char: str) -> str:
    base = unicodedata.normalize("NFKD", char)[:1]
    return base if base.isascii() and base.isalpha() else char


def fold_accents(text: str) -> str:
    """Each accented Latin letter as its plain one ("é" -> "e", "Ö" -> "O"), one character for one, so
    offsets into the folded text are offsets into the text."""
    return text if text.isascii() else "".join(_plain(c) if not c.isascii() else c for c in text)


_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def compact(text: str | None) -> str:
    """Letters and digits only, lower case, accents folded ("Item 7A. Quantitative…" -> "item7aquantitative"):
    how segmentation compares headings with titles and a table with its page, whatever the spacing and
    punctuation."""
    return _NOT_ALNUM.sub("", fold_accents(text or "").lower())


def compact_map(text: str) -> tuple[str, list[int]]:
    """:func:`compact` of a text and, for each of its characters, where it stands in the text."""
    chars, offsets = [], []
    for i, ch in enumerate(fold_accents(text)):
        low = ch.lower()
        if len(low) == 1 and low.isascii() and low.isalnum():
            chars.append(low)
            offsets.append(i)
    return "".join(chars), offsets


_LEADERS = re.compile(r"\.(?:\s?\.){2,}")  # dot leaders between a row's label and its figures ("Cash ....... $ 876")


def figures_share(text: str | None) -> float:
    """Digits among a text's visible characters, dot leaders left out (a PDF's statement rows run them
    across the page: filler, not text, and a balance sheet's first rows read as prose with them): a page of
    figures (a statement, a table) has over 0.12, prose under 0.05. What the index side's training
    questions and the query side's ranker both read."""
    visible = [c for c in _LEADERS.sub("", text or "") if not c.isspace()]
    return sum(c.isdigit() for c in visible) / len(visible) if visible else 0.0


def lower_words(text: str | None) -> list[str]:
    """The words lower-cased, unstemmed: the FLAM lexicon's and the trees' tokens (index side: chunk text;
    query side: the question), and word overlap between short texts."""
    return WORD.findall((text or "").lower())


def plain_term(text: str | None) -> str:
    """A lexicon term as stored, counted and matched: its :func:`lower_words` joined by single spaces
    ("R&D" is "r d", "Gross margin?" is "gross margin"). Unstemmed, because terms are also read: they
    label tree nodes and are embedded to cluster them."""
    return " ".join(lower_words(text))


@functools.lru_cache(maxsize=1)
def clean_question(text: str) -> str:
    """A question as the model and the engines may read it: lone surrogates (text that is not valid
    Unicode, e.g. undecodable bytes of a shell argument) and control characters dropped, white space
    folded to single spaces."""
    kept = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF and (ch.isprintable() or ch.isspace()))
    return " ".join(kept.split())


# A space between words as a page's text layer may print it: a no-break space ("Consolidated\xa0Statements\xa0of
# \xa0Operations", whole PDFs print every space so), a thin or figure space; a line break stays a line break.
INLINE_SPACE = r"[^\S\n]"
# Spaces a PDF prints that are not ' ' (no-break, figure, thin, ideographic ...): some filings print every space
# as U+00A0 ("Consolidated\xa0Statements\xa0of\xa0Operations"), which a pattern's literal ' ' never matches.
_INLINE_SPACES = {ord(c): " " for c in "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                  "\u2008\u2009\u200a\u202f\u205f\u3000"}


def plain_spaces(text: str) -> str:
    """``text`` with every inline space character written as ' ' (line breaks and tabs kept): page text is
    stored so, so any pattern over it may write a space as ' '."""
    return text.translate(_INLINE_SPACES)


def spaced_pattern(pattern: str, glyphs: bool = False) -> str:
    """A vocabulary pattern whose literal spaces (outside character classes) match :data:`INLINE_SPACE`:
    a title written "statements of operations" finds a page that prints it with no-break spaces (page text
    is stored with :func:`plain_spaces`, but a lake converted before that keeps the PDF's). ``glyphs``: also
    one space between two letters of a word, for a title whose PDF sets a glyph apart ("Consolidated Balance
    Shee t", "Statement of Incom e": 3M's 2018 10-K prints every statement title so)."""
    out, in_class, escaped, first = [], False, False, False  # first: a ']' here is literal ("[]", "[^]")
    letter = False  # the character before was a literal letter
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = first = letter = False
        elif char == "\\":
            out.append(char)
            escaped, letter = True, False
        elif in_class:
            in_class = char != "]" or first
            first = first and char == "^" and out[-1] == "["
            out.append(char)
        elif char == "[":
            out.append(char)
            in_class = first = True
            letter = False
        else:
            if glyphs and letter and char.isalpha():
                out.append(INLINE_SPACE + "?")
            out.append(INLINE_SPACE if char == " " else char)
            letter = char.isalpha()
    return "".join(out)
