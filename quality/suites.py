"""The expectation suites (Great Expectations 1.x, defined in code) that gate publishing.

Each suite runs on a pandas frame of one index dataset plus derived columns the gate computes first
(``vector_dims``, ``vector_finite``, ``vector_nonzero``, ``text_chars``, ``page_count``, ``chunk_count``, ...), because GX checks columns, not
list contents or joins. ``id_column`` names the column a failure report lists for the offending rows.
"""

from __future__ import annotations

from dataclasses import dataclass

# Items a 10-K must have for its segmentation to count as covering the filing.
CORE_10K_ITEMS = ("1", "1A", "7", "8")
CORE_ITEMS_MOSTLY = 0.9


@dataclass(frozen=True)
class SuiteSpec:
    dataset: str
    id_column: str
    expectations: list  # GX expectation objects


def build_suites(dims: int) -> list[SuiteSpec]:
    import great_expectations.expectations as gxe

    def vector_checks() -> list:
        return [gxe.ExpectColumnValuesToBeInSet(column="vector_dims", value_set=[dims]),
                gxe.ExpectColumnValuesToBeInSet(column="vector_finite", value_set=[True]),
                gxe.ExpectColumnValuesToBeInSet(column="vector_nonzero", value_set=[True])]

    def ids(column: str) -> list:
        return [gxe.ExpectColumnValuesToNotBeNull(column=column), gxe.ExpectColumnValuesToBeUnique(column=column)]

    return [
        SuiteSpec("documents", "doc_id", [
            *ids("doc_id"),
            *vector_checks(),
            # cover metadata present
            gxe.ExpectColumnValuesToNotBeNull(column="company"),
            gxe.ExpectColumnValuesToNotBeNull(column="form"),
            gxe.ExpectColumnValuesToBeInSet(column="period_known", value_set=[True]),
            gxe.ExpectColumnValuesToNotBeNull(column="cover_summary"),
            gxe.ExpectColumnValuesToBeBetween(column="page_count", min_value=1),
            # every document has at least one chunk
            gxe.ExpectColumnValuesToBeBetween(column="chunk_count", min_value=1),
            # 10-Ks: the core Items were found (other forms pass). Real filings have legitimate exceptions
            # (Intel's cross-reference-index 10-K, Items 7/8 incorporated from an Exhibit 13), so a few may
            # miss them (reported as warnings); systematic segmentation breakage fails.
            gxe.ExpectColumnValuesToBeInSet(column="core_items_ok", value_set=[True], mostly=CORE_ITEMS_MOSTLY),
        ]),
        SuiteSpec("passages", "chunk_id", [
            *ids("chunk_id"),
            gxe.ExpectColumnValuesToNotBeNull(column="doc_id"),
            gxe.ExpectColumnValuesToNotBeNull(column="text"),
            gxe.ExpectColumnValuesToBeBetween(column="text_chars", min_value=1),  # a text for every vector
            *vector_checks(),
            gxe.ExpectColumnValuesToBeBetween(column="page_start", min_value=0),
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="page_end", column_B="page_start", or_equal=True),
            # page span within the document (0-based pages): page_end < page_count
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="page_count", column_B="page_end"),
            gxe.ExpectColumnValuesToBeBetween(column="token_count", min_value=1),
        ]),
        SuiteSpec("tree_nodes", "node_id", [
            *ids("node_id"),
            *vector_checks(),
            gxe.ExpectColumnValuesToBeInSet(column="tree", value_set=["summary", "question"]),
            gxe.ExpectColumnValuesToBeBetween(column="text_chars", min_value=1),
            gxe.ExpectColumnValuesToBeBetween(column="chunk_id_count", min_value=1),
            gxe.ExpectColumnValuesToBeInSet(column="leaves_known", value_set=[True]),
        ]),
        SuiteSpec("facts", "fact_id", [
            *ids("fact_id"),
            gxe.ExpectColumnValuesToNotBeNull(column="concept"),
            gxe.ExpectColumnValuesToBeInSet(column="value_ok", value_set=[True]),  # numeric: a finite value
            gxe.ExpectColumnValuesToBeInSet(column="period_ok", value_set=[True]),  # a dated, ordered period
            gxe.ExpectColumnValuesToBeBetween(column="page", min_value=0),
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="end_page", column_B="page", or_equal=True),
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="page_count", column_B="end_page"),
        ]),
        SuiteSpec("concepts", "concept", [
            *ids("concept"),
            gxe.ExpectColumnValuesToBeBetween(column="fact_count", min_value=1),
        ]),
        SuiteSpec("lexicon", "term", [
            *ids("term"),
            gxe.ExpectColumnValuesToBeBetween(column="total_count", min_value=0),
            gxe.ExpectColumnValuesToBeInSet(column="weights_ok", value_set=[True]),
        ]),
    ]
