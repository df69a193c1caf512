"""The reviewed word lists: one format, one loader, each list read by its user."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from domain import vocabulary
from domain.companies import company_vocabulary
from domain.membership import reviewed_filers
from indexing.lexicon_job import curated_terms
from query.concepts import concept_map
from query.facts import synonyms
from query.plan import printed_nouns
from query.region_pins import region_names


def test_every_list_loads_through_the_one_loader():
    assert {p.stem for p in vocabulary.DIR.glob("*.yaml")} == {"concepts", "fact_synonyms", "financial_lexicon",
                                                               "company_names", "former_tickers", "word_forms",
                                                               "short_forms", "regions"}
    assert company_vocabulary().names["META"][0] == "Facebook" and "on" in company_vocabulary().common
    assert len(curated_terms()) >= 140 and curated_terms()["gross margin"] == "profitability"
    assert synonyms()["capex"][0] == "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
    assert concept_map().concepts
    assert reviewed_filers()["FB"][0].cik == 1326801
    assert printed_nouns("how many did it deliver") == ["deliveries"]
    assert ("north", "america") in region_names()


def test_a_list_that_does_not_read_is_one_line_naming_it(tmp_path, monkeypatch):
    (tmp_path / "broken.yaml").write_text("a: [unclosed\n")
    monkeypatch.setattr(vocabulary, "DIR", tmp_path)
    with pytest.raises(vocabulary.VocabularyError, match=r"^broken.yaml: not valid YAML") as err:
        vocabulary.load("broken")
    assert "\n" not in str(err.value)


def test_every_reviewed_filer_says_its_source_and_no_two_claim_one_day():
    lines = [line for line in (vocabulary.DIR / "former_tickers.yaml").read_text().splitlines()
             if line.lstrip().startswith("- {")]
    assert len(lines) >= 100 and all("} " in line and line.split("}", 1)[1].strip().startswith("# ") for line in lines)
    for ticker, filers in reviewed_filers().items():
        spans = sorted((f.start or dt.date.min, f.end or dt.date.max) for f in filers)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), (ticker, spans)
