"""Companies as people name them, over the whole universe: the company index built as the crawl and the
catalog build it (the universe CSV, SEC's company_tickers.json, the mirror's submissions JSONs through the
crawl's company directory, the reviewed vocabulary) finds every company by each of its names; common words
that are also names or tickers name nobody in neutral sentences."""

from __future__ import annotations

import csv
import datetime as dt
import json

import pytest

from domain.companies import FORMER_SINCE, EntityIndex, add_directory_record, add_vocabulary_names
from etl.crawl.companies import merged
from etl.crawl.discovery import filer_names
from etl.crawl.universe import SecTickerMap, build_universe


@pytest.fixture(scope="module")
def universe(edgar_mirror, universe_csv):
    with open(universe_csv, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    sec = SecTickerMap.from_json(json.loads((edgar_mirror / "www.sec.gov/files/company_tickers.json").read_text()))
    companies, _ = build_universe(rows, sec)
    filers = {int(d["cik"]): filer_names(d) for d in
              (json.loads(p.read_text()) for p in (edgar_mirror / "data.sec.gov/submissions").glob("CIK*.json"))}
    records = [merged(None, c, filers.get(c.cik), dt.date(2026, 11, 26)) for c in companies]
    idx = EntityIndex()
    for row in rows:  # as the catalog: the universe, the directory, the vocabulary
        idx.add(row["Security"], row["Symbol"].replace(".", "-"))
    for record in records:
        add_directory_record(idx, record.model_dump())
    add_vocabulary_names(idx)
    idx.finish()
    return rows, {r.cik: r for r in records}, {t: c for c in companies for t in c.tickers}, idx


def _names_of(row, records, by_ticker) -> dict[str, list[str]]:
    symbol = row["Symbol"].replace(".", "-")
    record = records.get(by_ticker[symbol].cik) if symbol in by_ticker else None
    out = {"listed": [row["Security"]], "ticker": [row["Symbol"]]}
    if record:
        out["EDGAR"] = [n for n in (record.sec_title, record.edgar_name) if n]
        out["former"] = [f.name for f in record.former_names if f.until is None or f.until >= FORMER_SINCE]
    return out


def test_every_universe_company_is_found_by_each_of_its_names(universe):
    rows, records, by_ticker, idx = universe
    asked: dict[str, int] = {}
    missed: dict[str, list] = {}
    for row in rows:
        symbol = row["Symbol"].replace(".", "-")
        for kind, names in _names_of(row, records, by_ticker).items():
            for name in names:
                question = (f"What was {name}'s revenue in fiscal 2023?" if kind == "ticker" else
                            f"What did {name} report as revenue in its latest 10-K?")
                asked[kind] = asked.get(kind, 0) + 1
                if not any(symbol in e.tickers for e in idx.find(question)):
                    missed.setdefault(kind, []).append((symbol, name))
    share = 1 - sum(map(len, missed.values())) / sum(asked.values())
    print(f"names asked {asked}, found {share:.4f}, missed {missed}")
    assert asked["listed"] == len(rows) and asked["EDGAR"] >= len(rows) and asked["former"] >= 1
    assert share >= 0.99, missed


def test_tickers_written_bare_in_prose_find_their_companies_unless_they_are_words(universe):
    rows, _, _, idx = universe
    bare = [r["Symbol"] for r in rows if r["Symbol"].lower() not in idx.vocab.common]
    missed = [t for t in bare if not any(t.replace(".", "-") in e.tickers
                                         for e in idx.find(f"Which segments does {t} report?"))]
    print(f"bare tickers: {len(bare) - len(missed)} of {len(bare)}; missed {missed}")
    assert len(missed) <= 0.01 * len(bare), missed


# 30 common English words that are also a listed company's name, distinctive word or ticker
NEUTRAL = [
    "Target margins of 5% are common in retail.", "Meta-analysis of operating margins across sectors.",
    "Apple orchards are not a segment here.", "Visa requirements for staff rose.", "Ford the river in the plan.",
    "Block trades settled in two days.", "Ball bearings are inventory.", "Snap judgments about liquidity are risky.",
    "Carrier fees were higher than planned.", "Delta hedging reduced the exposure.",
    "Progressive tax rates apply to the income.", "Principal payments on debt were made.",
    "Southern states grew faster than the rest.", "Monster truck sales were flat.", "Cadence of orders slowed.",
    "Quest for growth continued.", "Regions with higher prices grew.", "Travelers insurance is a cost.",
    "Waters rose around the plant.", "Zebra crossings are municipal assets.", "Booking revenue early is a risk.",
    "Flex time for staff was extended.", "Mosaic of suppliers across regions.", "Crown jewels of the portfolio.",
    "ALL segments reported growth.", "IT spending rose 5%.", "KEY metrics are in the appendix.",
    "NOW compare the two years.", "ON a per-share basis, earnings rose.", "LOW inventory levels persisted.",
]


def test_common_words_that_are_names_or_tickers_name_nobody_in_neutral_sentences(universe):
    *_, idx = universe
    assert len(NEUTRAL) == 30
    named = {s: [e.name for e in idx.find(s)] for s in NEUTRAL}
    assert {s: n for s, n in named.items() if n} == {}


# Typed into a search box: lower case, the company first, a segment's or a measure's words, then the figure
SEARCH_BOX = {
    "apple services revenue fy24": "AAPL", "visa payments volume 2023": "V", "ford model e ebit 2023 q2": "F",
    "travelers catastrophe losses q3 2023": "TRV", "coke unit case volume 2023": "KO",
    "gm north america ebit-adjusted 2023": "GM", "exxon upstream earnings q2 2023": "XOM",
    "dow packaging net sales q2 2023": "DOW",
}
# The same words not at a search box's start, or with no period: words
SEARCH_BOX_NEUTRAL = ["what apple orchards revenue in 2023", "apple services revenue", "the target operating margin"]


def test_a_search_box_query_names_its_company_by_its_first_word(universe):
    *_, idx = universe
    found = {q: sorted(t for e in idx.find(q) for t in e.tickers) for q in SEARCH_BOX}
    assert {q: t for q, t in SEARCH_BOX.items() if t not in found[q]} == {}, found
    assert {q: n for q in SEARCH_BOX_NEUTRAL if (n := [e.name for e in idx.find(q)])} == {}
