"""The facts time series (indexing.facts_job._series) on a real local Spark: the latest filing wins, a
missing Q4 is derived as FY - 9M (or FY - Q1 - Q2 - Q3), a reported Q4 is never replaced, dimensional and
instant facts stay out; and facts numbered by their filer's own fiscal year (_filer_years)."""

from __future__ import annotations

import datetime as dt

import pytest

from indexing.facts_job import _filer_years, _series
from indexing.index.options import IndexOptions
from indexing.spark import spark_session
from kernel.storage import LocalLake, read_parquet
from schemas.base import spark_schema
from schemas.facts import FactIndexRecord

D = dt.date


def _fact(n, ticker, concept, year, period, value, start, end, doc, filed, dims=(), kind="duration"):
    return FactIndexRecord(
        fact_id=f"{doc}#{n}", doc_id=doc, ticker=ticker, form="10-K", filing_date=filed, concept=concept,
        label=concept, kind="numeric", value=value, display=str(value), unit="USD", period_type=kind,
        period_start=start if kind == "duration" else None, period_end=end, fiscal_year=year, fiscal_period=period,
        dimensions=list(dims), dimensional=bool(dims), page=n, end_page=n).model_dump()


@pytest.fixture(scope="module")
def spark():
    session = spark_session(IndexOptions(spark_master="local[1]", shuffle_partitions=1))
    yield session


def test_series_latest_filing_and_derived_q4(spark, tmp_path):
    rows = [
        # A: FY and 9M reported -> Q4 = 100 - 70; the later 10-K restates FY2023 to 110 -> Q4 = 40
        _fact(1, "A", "us-gaap:Revenues", 2023, "FY", 100.0, D(2023, 1, 1), D(2023, 12, 31), "A_2023_10K", D(2024, 2, 1)),
        _fact(2, "A", "us-gaap:Revenues", 2023, "FY", 110.0, D(2023, 1, 1), D(2023, 12, 31), "A_2024_10K", D(2025, 2, 1)),
        _fact(3, "A", "us-gaap:Revenues", 2023, "9M", 70.0, D(2023, 1, 1), D(2023, 9, 30), "A_2023Q3_10Q", D(2023, 11, 1)),
        _fact(4, "A", "us-gaap:Revenues", 2023, "Q3", 25.0, D(2023, 7, 1), D(2023, 9, 30), "A_2023Q3_10Q", D(2023, 11, 1)),
        # B: quarters only -> Q4 = FY - (Q1 + Q2 + Q3)
        *[_fact(10 + q, "B", "us-gaap:Revenues", 2023, f"Q{q}", 10.0 * q, D(2023, 3 * q - 2, 1),
                D(2023, 3 * q, 28), f"B_2023Q{q}_10Q", D(2023, 3 * q + 1, 15)) for q in (1, 2, 3)],
        _fact(14, "B", "us-gaap:Revenues", 2023, "FY", 100.0, D(2023, 1, 1), D(2023, 12, 31), "B_2023_10K", D(2024, 2, 1)),
        # C: Q4 reported: kept, not derived; a segment's figure and a balance sheet instant stay out
        _fact(20, "C", "us-gaap:Revenues", 2023, "FY", 50.0, D(2023, 1, 1), D(2023, 12, 31), "C_2023_10K", D(2024, 2, 1)),
        _fact(21, "C", "us-gaap:Revenues", 2023, "9M", 30.0, D(2023, 1, 1), D(2023, 9, 30), "C_2023Q3_10Q", D(2023, 11, 1)),
        _fact(22, "C", "us-gaap:Revenues", 2023, "Q4", 21.0, D(2023, 10, 1), D(2023, 12, 31), "C_2023_10K", D(2024, 2, 1)),
        _fact(23, "C", "us-gaap:Revenues", 2023, "FY", 9.0, D(2023, 1, 1), D(2023, 12, 31), "C_2023_10K", D(2024, 2, 1),
              dims=["srt:ProductOrServiceAxis=x:Member"]),
        _fact(24, "C", "us-gaap:Assets", 2023, "FY", 500.0, None, D(2023, 12, 31), "C_2023_10K", D(2024, 2, 1),
              kind="instant"),
    ]
    df = spark.createDataFrame(rows, spark_schema(FactIndexRecord))
    lake = LocalLake(tmp_path)
    count, derived = _series(df, lake)
    table = read_parquet(lake, "index/fact_series.parquet").to_pylist()
    got = {(r["ticker"], r["fiscal_period"]): (r["value"], r["derived"], r["doc_id"]) for r in table}
    assert got[("A", "FY")] == (110.0, False, "A_2024_10K")
    assert got[("A", "Q4")] == (40.0, True, "A_2024_10K")
    assert got[("A", "Q3")] == (25.0, False, "A_2023Q3_10Q")
    assert got[("B", "Q4")] == (40.0, True, "B_2023_10K")
    assert got[("C", "Q4")] == (21.0, False, "C_2023_10K")
    assert got[("C", "FY")] == (50.0, False, "C_2023_10K")
    assert not any(r["concept"] == "us-gaap:Assets" for r in table)
    assert ("A", "9M") not in got and derived == 2 and count == len(table)
    q4 = next(r for r in table if (r["ticker"], r["fiscal_period"]) == ("A", "Q4"))
    assert (q4["period_start"], q4["period_end"]) == (D(2023, 10, 1), D(2023, 12, 31))


def test_a_documents_part_written_before_a_list_column_was_added_reads_it_empty(spark, tmp_path):
    """An older lake indexes after an upgrade: ``absent_items`` (added to DocumentRecord) is an empty list
    where a part does not hold it, not a null the non-null index column refuses at write time."""
    import pyarrow as pa

    from indexing.spark import read_parts
    from kernel.storage import LocalLake, write_parquet
    from schemas.documents import DocumentRecord

    lake = LocalLake(tmp_path)
    row = {"doc_id": "A", "source_kind": "pdf", "metadata_source": "text", "page_count": 1, "page_basis": "pdf",
           "rendered_page_count": 1, "cover_summary": "A", "pdf_key": "pdf/a.pdf", "source_key": "a.pdf",
           "source_sha256": "0", "extract_seconds": 0.0, "processed_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}
    write_parquet(lake, "datasets/documents/a.parquet", pa.Table.from_pylist([row]))
    docs = read_parts(spark, lake, "documents", ["a"], DocumentRecord).collect()
    assert docs[0]["absent_items"] == [] and docs[0]["doc_part"] == "a"


def test_facts_take_the_fiscal_year_their_filer_gives_its_document(spark):
    """Home Depot's 10-K for the year ending 2024-01-28 says DocumentFiscalYearFocus 2023, where the calendar
    rule says 2024: every fact of that document moves back a year (fiscal 2022's comparative to 2022);
    a document whose focus agrees, or has none, keeps the rule's years."""
    from schemas.facts import FactRecord

    def fact(doc, seq, concept, year, display="1", kind="numeric"):
        return FactRecord(doc_id=doc, seq=seq, concept=concept, kind=kind, display=display, context_id="c",
                          period_type="duration", text_chars=1, fiscal_year=year, fiscal_period="FY", page=0,
                          end_page=0
                          ).model_dump()

    rows = [fact("HD_2023_10K", 0, "dei:DocumentFiscalYearFocus", 2024, "2023", "text"),
            fact("HD_2023_10K", 1, "us-gaap:Revenues", 2024), fact("HD_2023_10K", 2, "us-gaap:Revenues", 2023),
            fact("WMT_2024_10K", 0, "dei:DocumentFiscalYearFocus", 2024, "2024", "text"),
            fact("WMT_2024_10K", 1, "us-gaap:Revenues", 2024), fact("X_2024_10K", 1, "us-gaap:Revenues", 2024)]
    df = spark.createDataFrame(rows, spark_schema(FactRecord))
    got = {(r.doc_id, r.seq): r.fiscal_year for r in _filer_years(df).collect()}
    assert got == {("HD_2023_10K", 0): 2023, ("HD_2023_10K", 1): 2023, ("HD_2023_10K", 2): 2022,
                   ("WMT_2024_10K", 0): 2024, ("WMT_2024_10K", 1): 2024, ("X_2024_10K", 1): 2024}
