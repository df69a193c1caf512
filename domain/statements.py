"""The primary statements and the notes as both sides know them: the title printed at the head of each
(and as a question may name it), the words that find its pages (BM25), and for a statement the line that
closes it. Reviewed data in ``domain/vocabulary/concepts.yaml`` (``statements:``, ``notes:``); the Items
that hold the statements are ``domain.sec_items.STATEMENT_ITEMS``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from domain import vocabulary
from domain.vocabulary import VocabularyError


@dataclass(frozen=True)
class Section:
    """A primary statement or a note."""

    name: str
    title: re.Pattern  # matched on page text, case-insensitively
    query: str  # the words that find its pages
    closing: re.Pattern | None = None  # a statement's closing line: a page without it continues on the next


def _pattern(pattern: str, where: str) -> re.Pattern:
    try:
        return re.compile(pattern, re.I)
    except (re.error, TypeError) as exc:
        raise VocabularyError(f"{where}: bad pattern {pattern!r}: {exc}") from None


def _sections(entries: dict | None, kind: str, source: str) -> dict[str, Section]:
    sections = {}
    for name, entry in (entries or {}).items():
        where = f"{source} {kind} {name}"
        if not isinstance(entry, dict) or not entry.get("title") or not entry.get("query"):
            raise VocabularyError(f"{where}: needs a title and a query")
        closing = _pattern(entry["closing"], where) if entry.get("closing") else None
        sections[name] = Section(name, _pattern(entry["title"], where), entry["query"], closing)
    return sections


def parse(data: dict, source: str = "concepts.yaml") -> tuple[dict[str, Section], dict[str, Section]]:
    """(statements, notes) from the vocabulary's data, in the file's order."""
    return _sections(data.get("statements"), "statement", source), _sections(data.get("notes"), "note", source)


@functools.lru_cache(maxsize=1)
def _definitions() -> tuple[dict[str, Section], dict[str, Section]]:
    return parse(vocabulary.load("concepts"))


def statements() -> dict[str, Section]:
    """balance sheet, income statement, cash flow statement -> their definitions."""
    return _definitions()[0]


def notes() -> dict[str, Section]:
    """note name -> its definition."""
    return _definitions()[1]
