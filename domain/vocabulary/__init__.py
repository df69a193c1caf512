"""The reviewed word lists, in one format (YAML) with one loader: the analyst concept map
(``concepts.yaml``: cues, evidence, statements and notes), the fact synonyms (``fact_synonyms.yaml``: analyst
terms -> us-gaap concepts), FLAM's curated lexicon (``financial_lexicon.yaml``: category -> terms), and
the names people use for companies that no EDGAR source holds (``company_names.yaml``, each with its
source), and the filers of S&P 500 membership periods that today's ticker map no longer names
(``former_tickers.yaml``, each with its source), and the nouns filings print for verbs a question asks with
(``word_forms.yaml``: "deliver" -> "deliveries"), and the words filings print for the short forms analysts type
(``short_forms.yaml``: "rev" -> "revenue"), and the names filings label a company's regions with
(``regions.yaml``: "North America", "EMEA", "Other International"). Besides those names, generic knowledge
only: no document or question is named in them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DIR = Path(__file__).parent


class VocabularyError(ValueError):
    """A word list that does not read (one line, naming the file)."""


def path_of(name: str) -> Path:
    return DIR / f"{name}.yaml"


def load(name: str) -> Any:
    """The list ``name`` (``concepts``, ``fact_synonyms``, ``financial_lexicon``, ``company_names``) as YAML
    data, a fresh copy each call (callers cache what they build from it)."""
    path = path_of(name)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise VocabularyError(f"{path.name}: not valid YAML ({' '.join(str(exc).split())[:200]})") from None
