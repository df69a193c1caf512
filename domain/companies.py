"""Companies as people name them: the one company index, for the query side and any other reader.

Names come from data only: the S&P 500 universe CSV (listed names, tickers); EDGAR's names, which the crawl
keeps in the lake's company directory (``schemas.companies.CompanyRecord``: company_tickers.json's title,
the submissions' conformed name, ``formerNames`` (those dropped before 2010 as whole names only) and
tickers); the published documents' cover and source names; and a reviewed vocabulary
(``domain/vocabulary/company_names.yaml``) for what no EDGAR source holds: brands ("Google"), abbreviations
("P&G"), a filer's former names where a lake has no submissions of it, a company's businesses ("Ford
Credit", whole names only). A reviewed name that another listed company filed under ("Red Hat") names both.

How a question names a company (:meth:`EntityIndex.find`):

- a name, compared squashed (lower case, accents folded, letters, digits and "&" only, corporate suffixes,
  possessives and parenthesized remarks dropped: "Walt Disney Company (The)" = "WALT DISNEY CO", "Nestlé" =
  "Nestle"), written capitalized;
- a distinctive word of a name ("Honeywell", "Disney", "Smucker", "Colgate"): every company whose names hold
  it, when at most ``MAX_SHARED`` do, unless the vocabulary calls it generic (sector nouns, places, given
  names: "Technologies", "Texas", "Martin"); a word two companies share names both ("Honeywell");
- a short name: a ticker (in capitals), or the leading letters of a name's words ("AmEx", "JnJ");
- a common word that is also a name or ticker ("Apple", "Target", "Visa", "Ford", "Meta", "ALL", "KEY")
  only where the question's words make it one: a possessive ("Target's"), a filing word beside it ("Ford
  10-K", "shares of Visa"), a reported figure after it in a question naming a period ("Apple net income
  2023"), or, for a word, a capital inside a sentence ("Which segments does Meta report?"); never
  otherwise at a sentence's start ("Target margins ...") or in lower case ("meta-analysis"). A ticker
  written alone in capitals also names its company at a sentence's start ("UPS revenue in 2023?"), unless
  it is a word people stress there ("ALL companies ...", the vocabulary's ``emphasis_words``);
- in a question typed without capitals, names in lower case (:meth:`EntityIndex._uncased_name`): a
  company's own whole name and a ticker of three letters or more freely ("nvidia", "aapl"), words and
  brands as common words are, or listed with a company named ("apple and alphabet").

Nothing here is a hard requirement: an unrecognized name leaves the search unfiltered, never empty.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from domain import vocabulary
from domain.periods import names_period, opens_with_code
from domain.rules import as_date
from domain.text import opens_sentence, surface_words, typed_lower
from domain.vocabulary import VocabularyError

SUFFIXES = frozenset({"the", "inc", "incorporated", "corp", "corporation", "company", "co", "plc", "ltd", "limited",
                      "holdings", "holding", "group", "sa", "nv", "ag", "lp", "llc", "class", "common", "stock"})
MAX_SHARED = 2  # a word in more companies' names than this is no company's name alone
MAX_NAME_WORDS = 6  # the longest name a question is read for, in words ("HUNT J B TRANSPORT SERVICES INC")
SEEN_QUESTIONS = 64  # questions whose names' matches an index keeps (a query reads its own six or seven times)
MIN_LEAD = 3  # leading words of a name, in words ("Bank of New York"), that name its company alone
MIN_WORD = 4  # shorter words of a name name nothing alone (tickers and abbreviations do)
GLUED = SUFFIXES | {"health", "bancorp"}  # corporate words a brand glues to its name: "PepsiCo", "PulteGroup"
_CAMEL = re.compile(r"([A-Z]?[a-z]+)([A-Z][a-z]+)")
FORMER_SINCE = dt.date(2010, 1, 1)  # former names used after this still name the company
_REMARK = re.compile(r"\([^)]*\)")  # "(The)", "(Class A)"
_STATE = re.compile(r"\s*/[A-Za-z]{2,3}/?\s*$")  # EDGAR's "NVIDIA CORP/CA", "... /DE/"
# a cover's lines that sit where its company name does when the name is a logo ("Commission File No. 1-10299"
# above "(Exact name of registrant ...)"), or that a layout puts there
_NOT_A_NAME = re.compile(r"commission\s+file|\bfile\s+(?:no\b|number)|\bI\.\s?R\.\s?S\.|exact\s+name|"
                         r"state\s+or\s+other|\bemployer\s+identification", re.I)
_CALENDAR = frozenset(n.lower() for n in (*calendar.month_name[1:], *calendar.day_name))
_SHARE_CLASS = ("class", "series")  # the word before a share class's letter
_JOINERS = frozenset({"and", "&", "or", ",", ", and", "vs", "vs.", "versus"})  # what lists companies
_LIST_WORDS = frozenset({"and", "&", "or", "vs", "versus"})  # no name starts or ends with one


def reads_as_name(line: str) -> bool:
    """Whether a line read off a cover may be a company's name: two letters at least, and not one of the cover's
    other lines a layout puts where the name goes (the file number, the I.R.S. number, the labels)."""
    return sum(c.isalpha() for c in line) >= 2 and not _NOT_A_NAME.search(line)


@functools.lru_cache(maxsize=1 << 16)
def squash(text: str) -> str:
    """Lower case, possessives, remarks in parentheses, EDGAR's state tags and corporate suffixes dropped,
    letters, digits and & only, no spaces. Kept per name: a catalog squashes the same few names often."""
    return "".join(_kept_words(text))


def _kept_words(text: str) -> list[str]:
    """A name's words as :func:`squash` joins them."""
    words = _words(_STATE.sub("", _REMARK.sub(" ", text or "")))
    words = [w for w in words if w not in ("&", "and")] or words  # "Johnson & Johnson" = "Johnson and Johnson"
    return [w for w in words if w not in SUFFIXES] or words


def within_name(written: str, name: str) -> bool:
    """Whether a name as written is the start of the company's name ("Bristol Myers" of "Bristol-Myers Squibb
    Co") or a run of its whole words ("Disney" of "Walt Disney Company (The)"): the company's own name, not a
    brand or a former name."""
    said, full = _kept_words(written), _kept_words(name)
    n = len(said)
    return bool(said) and ("".join(full).startswith("".join(said))
                           or any(full[i:i + n] == said for i in range(len(full) - n + 1)))


def short_name(name: str) -> str:
    """A company's name as a sentence says it, case kept: without remarks in parentheses, commas, a leading
    "The" and trailing corporate words ("The Coca-Cola Company" and "Coca-Cola Company (The)": "Coca-Cola";
    "Apple Inc.": "Apple")."""
    words = _REMARK.sub("", name).replace(",", " ").split()
    while len(words) > 1 and words[-1].lower().strip(".") in SUFFIXES:
        words.pop()
    if len(words) > 1 and words[0].lower() == "the":
        words.pop(0)
    return " ".join(words)


_JOINED_AMPERSAND = re.compile(r"(?<=[A-Za-z])&(?=[A-Za-z])")  # "AT&T", "P&G": written "ATT", "PG"
_INVERTED = re.compile(r"^([A-Za-z]+)\s+((?:[A-Za-z]\.?\s+){1,3})(.*)$")  # EDGAR's "HUNT J B TRANSPORT ..."


_POSSESSIVE_S = re.compile(r"['’]s\b")  # a possessive written as a plain "s": "Lowe's" -> "Lowes"


def variants(name: str) -> list[str]:
    """A name and its spellings as people type them: without the possessive's apostrophe ("Lowe's" ->
    "Lowes", "McDonald's" -> "McDonalds"), without an ampersand between letters ("AT&T" -> "ATT"), and a
    conformed name's surname put back after its initials ("HUNT J B TRANSPORT SERVICES INC" -> "J B HUNT
    TRANSPORT SERVICES INC", "SMUCKER J M CO")."""
    out = [name, _POSSESSIVE_S.sub("s", name), _JOINED_AMPERSAND.sub("", name)]
    inverted = _INVERTED.match(name)
    if inverted:
        out.append(f"{inverted.group(2)}{inverted.group(1)} {inverted.group(3)}")
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Vocabulary:
    """The reviewed lists: names by ticker, words that name nothing alone, words guarded as common."""

    names: dict[str, tuple[str, ...]]
    generic: frozenset[str]
    common: frozenset[str]
    filing_words: frozenset[str]
    abbreviations: frozenset[str] = frozenset()  # what a capitalized word means besides a ticker (COO, EPS)
    places: frozenset[str] = frozenset()  # two leading words that are a place or a phrase first ("Las Vegas")
    former: dict[str, tuple[str, ...]] = field(default_factory=dict)  # names of decades ago, whole names only
    emphasis: frozenset[str] = frozenset()  # words written in capitals at a sentence's start to stress them ("ALL")
    businesses: dict[str, tuple[str, ...]] = field(default_factory=dict)  # subsidiaries, segments: whole names only
    figure_words: frozenset[str] = frozenset()  # a reported figure's first word: "Apple net income", "Visa revenue"
    phrases: frozenset[str] = frozenset()  # names that are a phrase first, squashed: "waste management"
    lower_words: frozenset[str] = frozenset()  # names and tickers that are words in lower case: "gap", "dow"
    filed: dict[str, tuple[str, ...]] = field(default_factory=dict)  # names it filed under: its own, not a brand


def parse_vocabulary(data: dict, source: str = "company_names.yaml") -> Vocabulary:
    names, former, businesses, filed = (_ticker_names(data, key, source)
                                        for key in ("names", "former_names", "business_names", "filed_names"))
    names = {t: names.get(t, ()) + filed.get(t, ()) for t in {**names, **filed}}  # a filed name is a name too
    lists = {}
    for key in ("generic_words", "common_words", "filing_words", "abbreviations", "place_leads", "emphasis_words",
                "figure_words", "ordinary_phrases", "lower_case_words"):
        words = data.get(key) or []
        if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
            raise VocabularyError(f"{source}: '{key}' must be a list of words")
        lists[key] = frozenset(w.lower() for w in words)
    return Vocabulary(names, lists["generic_words"], lists["common_words"], lists["filing_words"],
                      lists["abbreviations"], frozenset(squash(p) for p in lists["place_leads"]), former,
                      lists["emphasis_words"], businesses, lists["figure_words"],
                      frozenset(squash(p) for p in lists["ordinary_phrases"]), lists["lower_case_words"], filed)


def _ticker_names(data: dict, key: str, source: str) -> dict[str, tuple[str, ...]]:
    names = data.get(key) or {}
    if not isinstance(names, dict) or not all(isinstance(v, list) and v for v in names.values()):
        raise VocabularyError(f"{source}: '{key}' must map each ticker to a list of names")
    return {str(t).upper(): tuple(str(n) for n in v) for t, v in names.items()}


@functools.lru_cache(maxsize=1)
def company_vocabulary() -> Vocabulary:
    return parse_vocabulary(vocabulary.load("company_names"))


def edgar_names(record: dict, since: dt.date = FORMER_SINCE) -> list[str]:
    """The names a company directory record gives besides its listed one: company_tickers.json's title,
    the submissions' conformed name, and each former name used on or after ``since``."""
    out = [n for n in (record.get("sec_title"), record.get("edgar_name")) if n]
    for former in record.get("former_names") or []:
        until = former.get("until")
        if former.get("name") and (until is None or as_date(until) >= since):
            out.append(former["name"])
    return out


def old_names(record: dict, since: dt.date = FORMER_SINCE) -> list[str]:
    """The former names a company stopped using before ``since`` ("APPLE COMPUTER INC" until 2007): still how
    people name it in a question about its history, but as whole names only (their words may be another
    company's by now)."""
    return [f["name"] for f in record.get("former_names") or []
            if f.get("name") and f.get("until") is not None and as_date(f["until"]) < since]


@functools.lru_cache(maxsize=1)
def _former_filers() -> dict[int, list[tuple[str, str]]]:
    """CIK -> (ticker, name) of the reviewed former members' lines (``vocabulary/former_tickers.yaml``)."""
    from domain.membership import reviewed_filers

    out: dict[int, list[tuple[str, str]]] = {}
    for filers in reviewed_filers().values():
        for f in filers:
            out.setdefault(f.cik, []).append((f.ticker, f.name))
    return out


def add_directory_record(index: EntityIndex, record: dict) -> str | None:
    """A company directory record's names and tickers (``schemas.companies.CompanyRecord`` as a dict), and the
    reviewed former tickers and names of its CIK ("FB", "Facebook, Inc."; "UTX", "United Technologies")."""
    key = None
    for ticker in dict.fromkeys([record["ticker"], *(record.get("tickers") or [])]):
        key = index.add(record["listed_name"], ticker, extra_names=edgar_names(record), filed=True) or key
    for ticker, name in _former_filers().get(record.get("cik") or -1, []) if key else []:
        index.add(record["listed_name"], ticker, extra_names=[name], filed=True)
    old = old_names(record) if key else []
    if old:
        index.add(record["listed_name"], record["ticker"], extra_names=old, words=False, filed=True)
    return key


def add_vocabulary_names(index: EntityIndex) -> None:
    """The reviewed names of the tickers the index knows (a brand of a company not in it names nothing);
    former names of decades ago and the names of a company's businesses as whole names only, as EDGAR's
    (:func:`old_names`): "Bell Atlantic" names Verizon, "Atlantic" alone nobody; "Ford Credit" names Ford,
    "Credit" nobody."""
    for ticker, names in index.vocab.names.items():
        if ticker in index.tickers:
            index.add(names[0], ticker, extra_names=names[1:], key=index.tickers[ticker])
            # an abbreviation joined by "&" is no word, in lower case too ("p&g", "j&j")
            index.spoken.update(squash(v) for n in names for v in variants(n) if "&" in v)
    index.businesses = {squash(n) for names in index.vocab.businesses.values() for n in names}
    for ticker, names in [*index.vocab.former.items(), *index.vocab.businesses.items()]:
        if ticker in index.tickers:
            key = index.tickers[ticker]
            index.add(index.entities[key].name, ticker, extra_names=names, words=False, key=key)
            # reviewed whole names of two words or more read in lower case too ("ford credit", "bell atlantic")
            index.spoken.update(squash(v) for n in names for v in variants(n) if len(_kept_words(v)) > 1)
    filed = [*index.vocab.former.values(), *index.vocab.filed.values()]
    index.registered.update(squash(v) for names in filed for n in names for v in variants(n))
    index.brands = {squash(v) for t, names in index.vocab.names.items() for n in names
                    if n not in index.vocab.filed.get(t, ()) for v in variants(n)}


@dataclass(frozen=True)
class Entity:
    key: str  # squashed canonical name
    name: str  # display name
    tickers: frozenset[str] = frozenset()


@dataclass
class EntityIndex:
    """Squashed names, distinctive words and tickers -> entity keys."""

    vocab: Vocabulary = field(default_factory=company_vocabulary)
    names: dict[str, str] = field(default_factory=dict)
    tickers: dict[str, str] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    words: dict[str, set[str]] = field(default_factory=dict)  # a distinctive word -> the entities it names
    lower_names: set[str] = field(default_factory=set)  # names their company writes in lower case ("lululemon")
    searchable: set[str] | None = None  # the entities with documents (None: all); others are names only
    name_words: dict[str, list[str]] = field(default_factory=dict)  # entity -> its name's words, for abbreviations
    leads: dict[str, str] = field(default_factory=dict)  # the leading words of one company's names -> the company
    also: dict[str, set[str]] = field(default_factory=dict)  # a name another company's reviewed names share ("Red Hat")
    businesses: set[str] = field(default_factory=set)  # squashed names of a company's businesses ("Ford Credit")
    spoken: set[str] = field(default_factory=set)  # names read in lower case, squashed (no one-word brand, no cover's)
    registered: set[str] = field(default_factory=set)  # squashed names a company filed under, now or before
    brands: set[str] = field(default_factory=set)  # squashed reviewed names that are brands ("Google", "Instagram")
    _written: dict[str, set[str]] = field(default_factory=dict)  # entity -> its names as written
    # entity -> the names its documents give it: name -> (best rank, documents); the display name is chosen
    # over them by a rule (:meth:`_voted_name`), not by which document came first
    _ballots: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    _given: set[str] = field(default_factory=set)  # entities named by data, not by documents (kept as named)
    _words_of: dict[str, set[str]] = field(default_factory=dict)  # entity -> every word of its names
    # question -> its names' matches: every accessor below reads them (a question's analysis asks six or seven
    # times); emptied whenever a name is added or the index finished
    _seen: dict[str, tuple[tuple[str, frozenset[str], int], ...]] = field(default_factory=dict, repr=False)

    def add(self, name: str, ticker: str | None = None, extra_names: Iterable[str] = (),
            words: bool = True, key: str | None = None, filed: bool = False, votes: int = 0,
            rank: int = 0) -> str | None:
        """A company's names (and ticker) under one key: the first variant already known names the entity,
        so a cover's "Adobe Systems Incorporated" joins the universe's "Adobe Inc." through "ADOBE".
        ``words``: whether the names' words may name the company alone; not for names read off a document
        (a cover may be parsed badly). ``key``: the entity they belong
        to when the caller knows it (the reviewed names of a ticker's company), not the first name known: a
        word two companies share ("Raytheon") would join them. ``filed``: names the company filed under
        (EDGAR's), its own when a question writes them (:meth:`own_names`). ``votes``: the number of documents
        giving ``name`` (0: a name from data, which names its entity for good); ``rank``: how well it was read
        (0 a cover's name, 1 a file name's), for :meth:`_voted_name`."""
        self._seen.clear()
        every = [v for n in (name, *extra_names) if n for v in variants(n)]
        known = next((self.names[squash(v)] for v in every if squash(v) in self.names), None)
        given = key
        key = key or known or (self.tickers.get(ticker) if ticker else None) or squash(name)
        if not key:
            return None
        if filed:
            self.registered.update(squash(v) for v in every)
        old = self.entities.get(key)
        tickers = set(old.tickers if old else ()) | ({ticker} if ticker else set())
        self.entities[key] = Entity(key, self._display_name(key, old, name, votes, rank), frozenset(tickers))
        own = self._words_of.setdefault(key, set())
        self._written.setdefault(key, set()).update(every if words else ())
        if words:  # read off data (the universe, EDGAR); a reviewed brand only of two words or more ("red hat")
            self.spoken.update(squash(v) for v in every if given is None or len(_kept_words(v)) > 1)
        for variant in every:
            squashed = squash(variant)
            if squashed:
                self.names.setdefault(squashed, key)
                if given and self.names[squashed] != given:  # a brand that was a filer of its own (Red Hat, IBM's)
                    self.also.setdefault(squashed, set()).add(given)
            kept = [w for w in _name_words(variant) + _glued_stems(variant)
                    if len(w) >= MIN_WORD and w.isalpha()] if words else []
            own.update(kept)
            if squashed and variant == variant.lower() and words:  # the company's own spelling: "lululemon"
                self.lower_names.update(n for n in (squashed, *kept) if n not in self.vocab.common)
        if ticker:
            self.tickers.setdefault(ticker, key)
            self.tickers.setdefault(ticker.split("-")[0], key)  # BRK-B is written "BRK.B": "BRK" then "B"
        return key

    def _display_name(self, key: str, old: Entity | None, name: str, votes: int, rank: int) -> str:
        """The first name from data names the entity; names read off documents are votes, counted whatever
        their order (:meth:`_voted_name`)."""
        if not votes:
            if old is None:
                self._given.add(key)
            return old.name if old else name
        ballot = self._ballots.setdefault(key, {})
        best, count = ballot.get(name, (rank, 0))
        ballot[name] = (min(best, rank), count + votes)
        return old.name if old and key in self._given else self._voted_name(key)

    def withdraw(self, key: str, name: str) -> None:
        """A document giving ``name`` to the entity ``key`` left the corpus (or changed): its vote goes, and the
        display name is chosen again, so a catalog followed release by release names a company as one read
        whole does. A company with no vote left keeps its name (names stay known)."""
        ballot = self._ballots.get(key, {})
        if name not in ballot:
            return
        rank, count = ballot[name]
        if count > 1:
            ballot[name] = (rank, count - 1)
        else:
            del ballot[name]
        old = self.entities[key]
        if ballot and key not in self._given:
            self.entities[key] = Entity(key, self._voted_name(key), old.tickers)
            self._seen.clear()

    def _voted_name(self, key: str) -> str:
        """A cover's name over a file name's, then the name most documents give, then the first in order: the
        same documents name their company the same in any order (a rebuild may order an index's rows anew)."""
        return min(self._ballots[key].items(), key=lambda kv: (kv[1][0], -kv[1][1], kv[0]))[0]

    def finish(self, searchable: Iterable[str] | None = None) -> None:
        """Once all names are in: the distinctive words (module docstring) and each entity's name words,
        for abbreviations ("AmEx"). ``searchable``: the entities that have documents; :meth:`find` reports
        only those (a spun-off company named in passing is not a second subject)."""
        self._seen.clear()
        self.searchable = set(searchable) if searchable is not None else None
        holders: dict[str, set[str]] = {}
        for key, own in self._words_of.items():
            for word in own:
                holders.setdefault(word, set()).add(key)
        self.words = {w: keys for w, keys in holders.items() if len(keys) <= MAX_SHARED and w not in self.vocab.generic}
        self.name_words = {key: _name_words(e.name) for key, e in self.entities.items()}
        self.leads = self._leading_words()

    def _leading_words(self) -> dict[str, str]:
        """Squashed leading words (two or more, short of the whole) of a company's names -> the company, where
        they lead no other company's name and are no name themselves: "Bank of New York" for The Bank of New
        York Mellon, each of whose words alone is a place or a noun. Fewer than ``MIN_LEAD`` words name it
        hyphenated ("Bristol-Myers"), or as two capitalized words the vocabulary does not call a place or a
        phrase (``_two_word_lead``: "Bristol Myers", "United Parcel", not "Las Vegas")."""
        holders: dict[str, set[str]] = {}
        for key, written in self._written.items():
            for name in written:
                words = [w for w in _words(name) if w != "the"]
                for n in range(2, len(words)):
                    lead = squash(" ".join(words[:n]))
                    if lead and lead not in self.names:
                        holders.setdefault(lead, set()).add(key)
        return {lead: next(iter(keys)) for lead, keys in holders.items() if len(keys) == 1}

    def find(self, question: str) -> list[Entity]:
        """Entities with documents a question names, in order of first mention."""
        found = self._mentions(question)
        if self.searchable is not None:
            found = {k: at for k, at in found.items() if k in self.searchable}
        return self._ordered(found)

    def own_names(self, question: str) -> list[str]:
        """The names of companies with documents as the question writes them, where they are the company's
        own name, a name it filed under ("Raytheon Technologies", "Tesla Motors") or its ticker ("Bristol
        Myers Squibb", "Meta", "MRK"), not a brand ("YouTube", "Google", "Facebook"), which also says what is
        asked about. A former name is the company's whole, so as words it would find the part that still
        carries them (RTX's Raytheon segment), not the answer."""
        out = []
        for written, keys, _ in self._matches(question):
            entity = self.entities[next(iter(keys))] if len(keys) == 1 else None
            if entity is None or (self.searchable is not None and entity.key not in self.searchable):
                continue
            filed = squash(_bare(written))
            if within_name(written, entity.name) or _bare(written).upper() in entity.tickers or \
                    (filed in self.registered and filed not in self.brands):
                out.append(written)
            elif squash(written) in self.businesses and (lead := _own_lead(written, entity.name)):
                out.append(lead)  # "Ford Credit": "Ford" says who, "Credit" what is asked about
        return out

    def written(self, question: str) -> list[str]:
        """Every name of a company with documents as the question writes it (its own, a brand, a former name):
        words that say who, which a part of the company asked about ("Raytheon" segment) must not borrow."""
        return [w for w, keys, _ in self._matches(question)
                if self.searchable is None or any(k in self.searchable for k in keys)]

    def unnamed(self, question: str) -> list[str]:
        """Capitalized words inside a sentence that no company's name takes and no reviewed list knows
        ("Humira", "Eliquis"): a product or a brand only the filings' pages print, which a question naming no
        company searches the whole corpus for. No month or weekday, no word in capitals ("GAAP")."""
        v = self.vocab
        known = {w.lower() for written, _, _ in self._matches(question) for w in written.split()} | \
            v.generic | v.common | v.figure_words | v.abbreviations | v.emphasis | _CALENDAR
        out = []
        for word, at in surface_words(question):
            bare = _bare(word)
            if len(bare) >= 3 and bare[0].isupper() and not bare.isupper() and \
                    not opens_sentence(question, at) and bare.lower() not in known:
                out.append(bare)
        return list(dict.fromkeys(out))

    def unnamed_runs(self, question: str) -> list[str]:
        """Each name that holds an :meth:`unnamed` word, as written: the run of capitalized words around it
        ("Solar Turbines", "Bath Iron Works"; "Humira" alone). The filings that print the run, not its one
        unlisted word, are the ones that name it: "Turbines" alone is on every turbine maker's pages."""
        unnamed = set(self.unnamed(question))
        runs: list[list[str]] = []
        end = -1
        for word, at in surface_words(question):
            bare = _bare(word)
            if not bare[:1].isupper():
                end = -1
                continue
            if runs and end >= 0 and question[end:at].isspace():
                runs[-1].append(bare)
            else:
                runs.append([bare])
            end = at + len(word) if bare == word else -1  # a possessive ends the name ("Humira's sales")
        return list(dict.fromkeys(" ".join(r) for r in runs if unnamed & set(r)))

    def unindexed(self, question: str) -> list[Entity]:
        """Companies a question names that have no published document (the universe knows them), by names no
        company with documents shares: "Allergan" names AbbVie too, whose filings answer it."""
        if self.searchable is None:
            return []
        searchable = self.searchable
        return self._ordered(self._mentions(question, lambda keys: not keys & searchable))

    def parents(self, question: str) -> list[tuple[str, Entity]]:
        """(name as written, company) for each company named that has no published document but whose name
        opens with the name of one company that has: a business later spun off under its parent's name
        ("Honeywell Aerospace", "GE HealthCare", "GE Vernova"), which the parent's filings report as a
        segment until then. One company only, the first word or words that name one."""
        if self.searchable is None:
            return []
        out = []
        for written, keys, _ in self._matches(question):
            if keys & self.searchable:
                continue
            words = _bare(written).split()
            for n in range(len(words) - 1, 0, -1):
                lead = " ".join(words[:n])
                found = (self._named(lead, n) if n > 1 else self._listed_name(lead)) & self.searchable
                if found:
                    if len(found) == 1:
                        out.append((_bare(written), self.entities[found.pop()]))
                    break
        return out

    def ambiguous(self, question: str) -> list[tuple[str, list[Entity]]]:
        """(word, the companies it names) for each word of the question that names several."""
        out = []
        for word, keys, _ in self._matches(question):
            if len(keys) > 1:
                indexed = sorted(keys, key=lambda k: (self.searchable is not None and k not in self.searchable, k))
                out.append((word, [self.entities[k] for k in indexed]))
        return out

    def _ordered(self, found: dict[str, int]) -> list[Entity]:
        return [self.entities[k] for k, _ in sorted(found.items(), key=lambda kv: (kv[1], kv[0]))]

    def _mentions(self, question: str, where: Callable[[set[str]], bool] | None = None) -> dict[str, int]:
        """entity key -> where the question first names it (by the names whose keys ``where`` keeps)."""
        found: dict[str, int] = {}
        for _, keys, at in self._matches(question):
            for key in keys if where is None or where(keys) else ():
                found.setdefault(key, at)
        return found

    def _matches(self, question: str) -> tuple[tuple[str, frozenset[str], int], ...]:
        """(words as written, entity keys, offset) of each name in the question, longest names first; read
        once per question (``_seen``: the last ``SEEN_QUESTIONS`` questions)."""
        found = self._seen.get(question)  # read once, kept in a local: another thread's query may empty it
        if found is None:
            found = tuple((w, frozenset(keys), at) for w, keys, at in self._opening_words(question,
                                                                                        self._find_names(question)))
            if len(self._seen) >= SEEN_QUESTIONS:
                self._seen.clear()
            self._seen[question] = found
        return found

    def _opening_words(self, question: str, found: list[tuple[str, set[str], int]]) \
            -> list[tuple[str, set[str], int]]:
        """``found`` without a one-word brand or business that is an ordinary word ("Cruise", "Sky", "Chase")
        opening the sentence, no possessive, when another company is named: "Cruise ship revenue of Royal
        Caribbean" asks of cruises, and its capital is the sentence's; "Cruise's loss" still names GM."""
        others = {k for _, keys, _ in found for k in keys}
        return [(w, keys, at) for w, keys, at in found
                if not (" " not in w and not _possessive(w) and squash(w) in self.vocab.generic
                        and self._reviewed_brand(w) and opens_sentence(question, at)
                        and others - keys)]

    def _find_names(self, question: str) -> list[tuple[str, set[str], int]]:
        tokens = surface_words(question)
        uncased = typed_lower(question)
        out: list[tuple[str, set[str], int]] = []
        spans: list[tuple[int, int]] = []  # the tokens of each name found
        covered = 0  # tokens before this index belong to a name already matched ("Lockheed Martin")
        for i in range(len(tokens)):
            if i < covered:
                continue
            for n in range(MAX_NAME_WORDS, 0, -1):
                if i + n > len(tokens):
                    continue
                if {tokens[i][0], tokens[i + n - 1][0]} & _LIST_WORDS:  # "Johnson & Johnson and": no name's end
                    continue
                written = " ".join(t for t, _ in tokens[i:i + n])
                if n > 1 and any(_possessive(t) for t, _ in tokens[i:i + n - 1]) and not self._owns_possessive(written):
                    continue  # "GE's Aerospace segment": the possessive ends the name (GE), unless the name has it
                if n > 1 and _compound_suffix(question, tokens[i + n - 1]):
                    continue  # "McDonald's company-operated sales": the suffix opens a compound word, no name's end
                if tokens[i][0].islower() and squash(written) not in self.lower_names and \
                        not (uncased and self._uncased_name(question, tokens, i, written)):  # a name holds a capital
                    continue
                keys = self._named(written, n, _hyphenated(question, tokens[i:i + n]), uncased)
                if keys and self._brand_after_name(question, tokens, i, written, keys, out, spans):
                    covered = i + n
                    break
                if keys and (n > 1 or self._stands(question, tokens, i)):
                    out.append((written, keys, tokens[i][1]))
                    spans.append((i, i + n))
                    covered = i + n
                    break
            else:
                short = self._short_name(question, tokens, i, uncased)
                if short:
                    out.append((tokens[i][0], {short}, tokens[i][1]))
                    spans.append((i, i + 1))
        return sorted(out + self._listed_with(question, tokens, spans), key=lambda m: m[2]) if uncased else out

    def _brand_after_name(self, question: str, tokens: list[tuple[str, int]], i: int, written: str,
                          keys: set[str], out: list[tuple[str, set[str], int]],
                          spans: list[tuple[int, int]]) -> bool:
        """Whether ``written``, a reviewed brand or business name, is the tail of the name written just before
        it, with nothing but a space between ("Carnival Cruise Line": Carnival's brand, not GM's Cruise): one
        proper name, whose first words named its company."""
        if not spans or spans[-1][1] != i or not self._reviewed_brand(written) or keys & out[-1][1]:
            return False
        word, at = tokens[i - 1]
        return question[at + len(word):tokens[i][1]].isspace() and not _possessive(word)

    def _reviewed_brand(self, written: str) -> bool:
        """Whether ``written`` is a reviewed brand or business name (``company_names.yaml``), not a company's
        own name: what may be another name's tail or, opening a sentence, an ordinary word."""
        squashed = squash(written)
        return squashed in self.businesses or squashed in self.brands

    def _owns_possessive(self, written: str) -> bool:
        """Whether a name written across a possessive carries it itself ("McDonald's Corp", "Dick's Sporting
        Goods"): then the words after it are the name's, else the possessive ends the name ("GE's Aerospace"
        is GE's segment, not the company GE Aerospace)."""
        kept = squash(_POSSESSIVE_S.sub("s", written))
        return kept in self.names or kept in self.leads

    def _listed_with(self, question: str, tokens: list[tuple[str, int]], spans: list[tuple[int, int]]) \
            -> list[tuple[str, set[str], int]]:
        """In a question typed without capitals, a word that names a company only with a cue (a common word,
        a word of a name, a brand, a ticker) where it is listed with a company named ("apple and alphabet",
        "johnson & johnson and abbott", "gm vs ford"): joined to it by "and", "&", "or", a comma or "vs"."""
        out: list[tuple[str, set[str], int]] = []
        for _ in range(len(tokens)):  # each round may name the next word of a list
            taken = {j for start, end in spans for j in range(start, end)}
            found = next(((i, keys) for i in range(len(tokens)) if i not in taken
                          and (keys := self._listed_name(tokens[i][0]))
                          and any(self._joined(question, tokens, i, span) for span in spans)), None)
            if found is None:
                return out
            i, keys = found
            out.append((tokens[i][0], keys, tokens[i][1]))
            spans.append((i, i + 1))
        return out

    def _listed_name(self, written: str) -> set[str]:
        word = _bare(written).lower()
        squashed = squash(word)
        if not squashed or squashed in self.vocab.generic or len(word) == 2 and word in self.vocab.common:
            return set()
        ticker = self.tickers.get(word.upper()) if len(word) >= 2 else None
        return self._named(word, 1) or ({ticker} if ticker else set())

    @staticmethod
    def _joined(question: str, tokens: list[tuple[str, int]], i: int, span: tuple[int, int]) -> bool:
        start, end = span
        if end <= i:  # the name, then the word
            (word, at), after = tokens[end - 1], tokens[i][1]
            between = question[at + len(word):after]
        elif start > i:  # the word, then the name
            between = question[tokens[i][1] + len(tokens[i][0]):tokens[start][1]]
        else:
            return False
        return " ".join(between.replace(",", " , ").split()) in _JOINERS

    def _uncased_name(self, question: str, tokens: list[tuple[str, int]], i: int, written: str) -> bool:
        """In a question typed without capitals, a name read in lower case: a whole name ("nvidia", "exxon
        mobil", "home depot") unless it is a phrase before it is a name (``ordinary_phrases``: "waste
        management", "principal financial"); a common word ("apple"), a brand, a distinctive word of a name
        ("disney") or a name that is a word in lower case (``lower_case_words``: "gap") only beside a filing
        word or before a reported figure ("apple's revenue in 2023"); a name's two leading words ("bristol
        myers") where a name stands (:meth:`_uncased_lead`)."""
        squashed, one = squash(written), len(_kept_words(written)) == 1  # "the target" is one word
        if squashed in self.vocab.phrases or one and squashed in self.vocab.generic:
            return False
        if one and (squashed in self.vocab.common or squashed in self.vocab.lower_words or squashed not in self.spoken):
            return (squashed in self.words or squashed in self.spoken) and self._figure_or_filing(question, tokens, i)
        return squashed in self.spoken or not one and squashed in self.leads and self._uncased_lead(question, tokens,
                                                                                                    i, written)

    def _uncased_lead(self, question: str, tokens: list[tuple[str, int]], i: int, written: str) -> bool:
        """A name's leading words in lower case ("bristol myers") only where a name stands: a search box's
        first words, a possessive, beside a filing word or before a figure ("the bristol myers case" stays
        words)."""
        words = written.split()
        last = i + len(words) - 1
        return i == 0 and words[0].lower() != "the" or _possessive(tokens[last][0]) or \
            self._figure_or_filing(question, tokens, last)

    def _uncased_ticker(self, question: str, tokens: list[tuple[str, int]], i: int, word: str) -> bool:
        """A ticker in lower case: of three letters or more ("aapl", "ibm"); of two, as a possessive ("gm's"),
        beside a filing word or before a figure ("ge revenue 2023"); a word ("ups") only beside a filing word
        or before a figure, and a two-letter word never ("on")."""
        if word in self.vocab.common or word in self.vocab.lower_words:
            return len(word) >= 3 and self._figure_or_filing(question, tokens, i)
        return len(word) >= 3 or len(word) == 2 and (_possessive(tokens[i][0]) or
                                                     self._figure_or_filing(question, tokens, i))

    def _figure_or_filing(self, question: str, tokens: list[tuple[str, int]], i: int) -> bool:
        return self._beside_filing_word(tokens, i) or self._before_figure(question, tokens, i)

    def _named(self, written: str, n: int, hyphenated: bool = False, uncased: bool = False) -> set[str]:
        squashed = squash(written)
        keys = {self.names[squashed], *self.also.get(squashed, ())} if squashed in self.names else set()
        if n > 1 and not keys and squashed + "s" in self.names:  # the last word's plural dropped: "Texas Instrument"
            keys = {self.names[squashed + "s"]}
        if n > 1:
            leads = squashed in self.leads and (n >= MIN_LEAD or hyphenated or
                                                self._two_word_lead(written, squashed, uncased))
            return keys or ({self.leads[squashed]} if leads else set())
        keys |= self.words.get(squashed, set())
        if not keys and written[:1].isupper() and _CAMEL.match(written) and squashed in self.leads:
            return {self.leads[squashed]}  # leading words written as one: "ThermoFisher", "BristolMyers"
        if not keys and squashed.endswith("s") and len(squashed) > MIN_WORD and written[-1:] == "s" and \
                squashed[:-1] not in self.vocab.common and squashed not in self.vocab.generic:  # "Systems" no "System"
            # a surname-company with a final "s" and no apostrophe: "Smuckers", "Hersheys" for Smucker, Hershey
            stem = squashed[:-1]
            keys = ({self.names[stem]} if stem in self.names else set()) | self.words.get(stem, set())
        return keys

    def _two_word_lead(self, written: str, squashed: str, uncased: bool = False) -> bool:
        """Whether two leading words written apart name their company: two capitalized words (in a question
        typed without capitals, two words), neither an initial ("J P", "U S"), that the vocabulary does not
        know as a place or a phrase first ("Las Vegas", "Palo Alto", "Public Service")."""
        words = [_bare(w) for w in written.split()]  # "Bristol Myers's"
        return len(words) == 2 and all((uncased or w[:1].isupper()) and len(w) > 2 and w.isalpha() for w in words) \
            and squashed not in self.vocab.places and squashed not in self.vocab.phrases

    def _stands(self, question: str, tokens: list[tuple[str, int]], i: int) -> bool:
        """Whether a one-word name stands for its company here: always, unless it is a common word; then
        only as a possessive, beside a filing word, before a reported figure of a period the question names
        ("Apple net income 2023", the terse form that opens a sentence; "Target margins of 5%" stays words),
        or capitalized inside a sentence, and never as a share class's letter ("class A common stock" is no
        Agilent, "Series C" no Citigroup)."""
        word = tokens[i][0]
        if squash(word) not in self.vocab.common:
            return True
        if _share_class(tokens, i):
            return False
        return _possessive(word) or self._beside_filing_word(tokens, i) or \
            self._before_figure(question, tokens, i) or \
            word[:1].isupper() and not opens_sentence(question, tokens[i][1])

    def _capital_ticker(self, question: str, tokens: list[tuple[str, int]], i: int) -> bool:
        """A ticker that is also an English word ("UPS", "CAT", "KEY") written alone in capitals, in a question
        not itself written in capitals, names its company: inside a sentence, and at its start ("UPS revenue
        in 2023?", the terse form) unless the word is one people stress there ("ALL companies ...", "NOW
        ..."); one of two letters only inside a sentence ("What did SO disclose ...", "DE's dealers"; "SO what
        ..." stays a word); the abbreviations people write in capitals ("COO", "EPS", "IT") stay words."""
        word, at = _bare(tokens[i][0]), tokens[i][1]
        inside = not opens_sentence(question, at)
        return (len(word) >= 2 and word.isupper() and word.upper() in self.tickers and not self._shouted(tokens)
                and word.lower() not in self.vocab.abbreviations
                and (inside or len(word) > 2 and word.lower() not in self.vocab.emphasis))

    def _shouted(self, tokens: list[tuple[str, int]]) -> bool:
        """A question written mostly in capitals, read without the words a terse query writes in capitals
        anyway: tickers, period codes and the abbreviations ("HD LOW EPS Q2 2023" names two companies; "ALL
        COMPANIES REPORT ..." is shouted)."""
        rest = [w for w, _ in tokens if not (_bare(w).isupper() and _bare(w) in self.tickers)
                and not opens_with_code(w) and _bare(w).lower() not in self.vocab.abbreviations]
        letters = [c for w in rest for c in w if c.isalpha()]
        return sum(c.isupper() for c in letters) > 0.5 * len(letters)

    def _ticker_before_code(self, question: str, tokens: list[tuple[str, int]], i: int) -> bool:
        """A ticker written in capitals right before a period written as a code ("LOW FY23 SG&A", "V FY24 net
        revenue", "T 2Q23 churn"): an analyst's terminal form, where a one-letter ticker, a word people stress
        ("LOW") and a question mostly in capitals still name the company. A bare year does not count ("ALL
        2023 filings"), nor the abbreviations people write in capitals ("EPS FY23")."""
        word, at = _bare(tokens[i][0]), tokens[i][1]
        return word.isupper() and word in self.tickers and word.lower() not in self.vocab.abbreviations and \
            opens_with_code(question[at + len(tokens[i][0]):])

    def _before_figure(self, question: str, tokens: list[tuple[str, int]], i: int) -> bool:
        """Just before a reported figure in a question naming a period ("apple revenue 2023"); a search box's
        first word, before a figure within three words ("apple services revenue fy24": a segment's words
        between the company and its figure)."""
        ahead = [t.lower() for t, _ in tokens[i + 1:i + (4 if i == 0 else 2)]]
        return bool(self.vocab.figure_words.intersection(ahead)) and names_period(question)

    def _beside_filing_word(self, tokens: list[tuple[str, int]], i: int) -> bool:
        near = [t.lower() for t, _ in tokens[max(0, i - 2):i] + tokens[i + 1:i + 3]]
        pairs = {" ".join(near[j:j + 2]) for j in range(len(near) - 1)}
        return bool(self.vocab.filing_words & (set(near) | pairs))

    def _short_name(self, question: str, tokens: list[tuple[str, int]], i: int, uncased: bool = False) -> str | None:
        """The entity a short name stands for: a ticker, else a unique abbreviation of a name; a word with
        capitals after its first letter ("JPM", "AmEx"; a lone capital as a ticker); common ones guarded. In
        a question typed without capitals, a ticker of three letters or more in lower case ("aapl", "ibm")."""
        written = tokens[i][0]
        word = _bare(written)
        if uncased and word.upper() in self.tickers and word not in self.vocab.abbreviations and \
                not _share_class(tokens, i) and self._uncased_ticker(question, tokens, i, word):
            return self.tickers[word.upper()]
        if not (len(word) >= 2 and any(c.isupper() for c in word[1:]) or len(word) == 1 and word.isupper()):
            return None
        if _share_class(tokens, i):
            return None
        if word.lower() in self.vocab.common and not (_possessive(written) or self._beside_filing_word(tokens, i)
                                                      or self._capital_ticker(question, tokens, i)
                                                      or self._ticker_before_code(question, tokens, i)):
            return None
        if word[0].isupper() and word.upper() in self.tickers:  # "JnJ", "MRNA"; "mRNA" is no ticker
            return self.tickers[word.upper()]
        keys = [k for k, ws in self.name_words.items() if len(ws) > 1 and _abbreviates(word.lower(), ws)]
        return keys[0] if len(keys) == 1 else None


def _own_lead(written: str, name: str) -> str | None:
    """The leading words of a business's name that are its company's own name (:func:`within_name`: "Ford"
    of "Ford Credit" for Ford Motor Company, "Cat" of "Cat Financial" for Caterpillar), if any."""
    words = written.split()
    return next((" ".join(words[:n]) for n in range(len(words) - 1, 0, -1)
                 if within_name(" ".join(words[:n]), name)), None)


def _share_class(tokens: list[tuple[str, int]], i: int) -> bool:
    """Whether the word is a share class's letter ("class A common stock", "Series C"): no company's name."""
    return i > 0 and tokens[i - 1][0].lower() in _SHARE_CLASS


def _compound_suffix(question: str, token: tuple[str, int]) -> bool:
    """Whether a corporate suffix word is the first half of a hyphenated compound ("company-operated",
    "company-wide"): a word of what is said about the company, not the end of its name."""
    word, at = token
    end = at + len(word)
    return word.lower() in SUFFIXES and question[end:end + 1] == "-" and question[end + 1:end + 2].isalpha()


def _hyphenated(question: str, tokens: list[tuple[str, int]]) -> bool:
    """Whether the words are written as one hyphenated compound ("Bristol-Myers")."""
    return len(tokens) > 1 and all(question[at + len(word):at + len(word) + 1] == "-" for word, at in tokens[:-1])


def _glued_stems(name: str) -> list[str]:
    """The brand a name glues a corporate word to, lower case: "PepsiCo" -> "pepsi", "PulteGroup" -> "pulte";
    read from the capital inside the word, so "Costco" keeps its whole."""
    out = []
    for word, _ in surface_words(name):
        camel = _CAMEL.fullmatch(word)
        if camel and camel.group(2).lower() in GLUED:
            out.append(camel.group(1).lower())
    return out


def _possessive(word: str) -> bool:
    return word.endswith(("'s", "’s", "'S"))


def _bare(word: str) -> str:
    """A word without its possessive ("Lowe's" -> "Lowe")."""
    return word.removesuffix("'s").removesuffix("’s")


def _words(text: str) -> list[str]:
    """A name's words as written (``domain.text.surface_words``), lower case, without possessives or
    remarks in parentheses: what :func:`squash` joins and the distinctive words are taken from."""
    return [_bare(w.lower()) for w, _ in surface_words(_REMARK.sub(" ", text))]


def _name_words(name: str) -> list[str]:
    """A name's words, lower case, without corporate suffixes or remarks in parentheses."""
    return [w for w in _words(name) if w not in SUFFIXES]


def _abbreviates(word: str, name_words: list[str]) -> bool:
    """Whether ``word`` is the leading letters (two or more) of each of ``name_words`` in turn."""
    if not name_words:
        return not word
    first, rest = name_words[0], name_words[1:]
    return any(word[:n] == first[:n] and _abbreviates(word[n:], rest)
               for n in range(min(len(word), len(first)), 1, -1))
