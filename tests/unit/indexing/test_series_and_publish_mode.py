"""Pure rules of the index side on literal rows: the Q4 derivation of the facts series and the publish mode."""

from __future__ import annotations

import datetime as dt

import pytest

from indexing.facts_job import series_rows
from indexing.publish.stage import publish_mode

D = dt.date


def _row(period, value, start=None, end=None, unit="USD", doc="K", page=1, year=2023):
    return {"ticker": "A", "concept": "Revenues", "unit": unit, "fiscal_year": year, "fiscal_period": period,
            "value": value, "period_start": start, "period_end": end, "doc_id": doc, "page": page}


def _q4(rows):
    return [r for r in series_rows(rows) if r["derived"]]


def test_q4_is_fy_minus_nine_months_from_the_day_after():
    rows = [_row("FY", 100.0, D(2023, 1, 1), D(2023, 12, 31), doc="10K", page=50),
            _row("9M", 70.0, D(2023, 1, 1), D(2023, 9, 30), doc="10Q3")]
    (q4,) = _q4(rows)
    assert (q4["value"], q4["period_start"], q4["period_end"], q4["doc_id"], q4["page"]) == \
        (30.0, D(2023, 10, 1), D(2023, 12, 31), "10K", 50)
    assert [r["fiscal_period"] for r in series_rows(rows) if not r["derived"]] == ["FY"]  # 9M is no series period


def test_q4_from_three_quarters_needs_all_three_and_sums_in_value_order():
    quarters = [_row("Q1", 0.1, end=D(2023, 3, 31)), _row("Q2", 0.2, end=D(2023, 6, 30)),
                _row("Q3", 0.3, end=D(2023, 9, 30))]
    (q4,) = _q4([_row("FY", 1.0, end=D(2023, 12, 31)), *quarters])
    assert q4["value"] == 1.0 - ((0.0 + 0.1) + 0.2 + 0.3) and q4["period_start"] == D(2023, 10, 1)
    assert _q4([_row("FY", 1.0), *quarters[:2]]) == []
    assert _q4([_row("FY", 1.0), *reversed(quarters)])[0]["value"] == q4["value"]  # row order does not matter


@pytest.mark.parametrize("rows", [
    [_row("FY", 100.0), _row("9M", 70.0), _row("Q4", 31.0)],  # reported Q4 kept, none derived
    [_row("FY", 100.0, unit=None), _row("9M", 70.0, unit=None)],  # a key with an unknown part
    [_row("9M", 70.0)],  # no FY
])
def test_no_q4_is_derived(rows):
    assert _q4(rows) == []


@pytest.mark.parametrize(("args", "mode"), [
    ((True, False, True, True, True), "unchanged"),
    ((True, False, True, True, False), "upsert"),
    ((True, False, False, True, False), "rebuild"),  # a whole-corpus index whose bytes changed
    ((False, False, True, True, True), "rebuild"),  # another model, width or schema
    ((True, True, True, True, True), "rebuild"),  # asked for
    ((True, False, True, False, True), "rebuild"),  # the live target holds parts we do not know
])
def test_publish_mode(args, mode):
    same_shape, rebuild, per_document, known, same_parts = args
    assert publish_mode(same_shape, rebuild, per_document, known, same_parts) == mode
