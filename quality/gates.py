"""The publish gate: validate every index dataset with its Great Expectations suite before any swap.

The gate derives the columns the suites check (vector width and finiteness, each passage's document page
count, chunks per document, 10-K Item coverage, tree leaves, lexicon weight sums, fact values, periods and
pages, concepts), validates each dataset
in an ephemeral GX context, and reports which expectation failed on which rows (by id). The full GX
results are saved per run under ``runs/quality/<stamp>.json`` in the lake.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernel.reports import StageReport, write_run_report
from quality.suites import CORE_10K_ITEMS, build_suites

log = logging.getLogger(__name__)
EXAMPLES = 10
# Row-level failures hold back the documents they are in, while the rest publishes; more than this share
# of the documents held back means something systematic, and the whole publish is blocked.
MAX_HELD_BACK = 0.05


@dataclass
class Failure:
    dataset: str
    expectation: str
    columns: list[str]
    unexpected: int
    examples: list = field(default_factory=list)  # ids of offending rows (at most 10)
    documents: list[str] = field(default_factory=list)  # every document with an offending row (row-level)

    def __str__(self) -> str:
        return (f"{self.dataset}: {self.expectation}({', '.join(self.columns)}) failed on {self.unexpected} "
                f"row(s), e.g. {self.examples[:3]}")


@dataclass
class GateReport(StageReport):
    stage = "quality"
    passed: bool = True
    rows: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)  # dataset-level: they block the publish
    warnings: list[Failure] = field(default_factory=list)  # tolerated exceptions (``mostly`` expectations)
    row_failures: list[Failure] = field(default_factory=list)  # row-level: their documents are held back
    held_back: dict[str, list[str]] = field(default_factory=dict)  # document -> the row-level failures in it
    saved_to: str | None = None

    def summary(self) -> str:
        head = "quality gate passed" if self.passed else f"quality gate FAILED ({len(self.failures)} expectation(s))"
        rows = ", ".join(f"{k} {v}" for k, v in self.rows.items())
        held = f"; {len(self.held_back)} document(s) held back" if self.held_back else ""
        return (f"{head}: {rows}{held}" + "".join(f"\n  - {f}" for f in self.failures)
                + "".join(f"\n  held back: {d}: {'; '.join(r)}" for d, r in self.held_back.items())
                + "".join(f"\n  warning: {w} (within tolerance)" for w in self.warnings))


def _vector_columns(table: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dims per row, -1 for a null vector; all-finite flag per row; non-zero flag per row: an all-zero
    vector has no direction, so cosine search can never find its row)."""
    vectors = table.column("vector").combine_chunks()
    dims = pc.fill_null(pc.list_value_length(vectors), -1).to_numpy(zero_copy_only=False)
    values = pc.list_flatten(vectors).to_numpy(zero_copy_only=False).astype(np.float64)
    parents = pc.list_parent_indices(vectors).to_numpy(zero_copy_only=False)
    finite = np.ones(table.num_rows, dtype=bool)
    finite[np.unique(parents[~np.isfinite(values)])] = False
    finite[dims < 0] = False
    squares = np.where(np.isfinite(values), values, 0.0) ** 2
    nonzero = np.bincount(parents, weights=squares, minlength=table.num_rows) > 1e-12
    nonzero[~finite] = True  # a null or non-finite vector is vector_finite's failure, not this one's
    return dims, finite, nonzero


def derive_frames(tables: dict[str, pa.Table]) -> dict:
    """pandas frames (without vectors) plus the derived columns the suites check."""
    import pandas as pd

    def frame(name: str) -> pd.DataFrame:
        table = tables[name]
        out = table.drop_columns([c for c in ("vector",) if c in table.column_names]).to_pandas()
        if "vector" in table.column_names:
            out["vector_dims"], out["vector_finite"], out["vector_nonzero"] = _vector_columns(table)
        if "text" in out.columns:  # what BM25 and the evidence show: blank text is no passage
            out["text_chars"] = out["text"].fillna("").str.strip().str.len()
        return out

    frames = {name: frame(name) for name in tables}
    docs, passages = frames.get("documents"), frames.get("passages")
    if docs is not None:
        # Periodic reports need their fiscal year; an 8-K or an earnings release its event date or year.
        docs["period_known"] = [fy == fy and fy is not None if form.startswith("10-")
                                else pe is not None or (fy == fy and fy is not None)
                                for form, fy, pe in zip(docs["form"].fillna(""), docs["fiscal_year"],
                                                        docs["period_end"], strict=True)]
    if docs is not None and passages is not None:
        pages = docs.drop_duplicates("doc_id").set_index("doc_id")["page_count"]
        passages["page_count"] = passages["doc_id"].map(pages).fillna(-1).astype("int64")
        docs["chunk_count"] = docs["doc_id"].map(passages.groupby("doc_id").size()).fillna(0).astype("int64")
        items = passages.groupby("doc_id")["item"].agg(set)
        core = set(CORE_10K_ITEMS)
        exhibits = docs["exhibit_type"].notna() if "exhibit_type" in docs else [False] * len(docs)
        docs["core_items_ok"] = [form != "10-K" or bool(exhibit) or core <= items.get(d, set())
                                 for d, form, exhibit in zip(docs["doc_id"], docs["form"], exhibits, strict=True)]
    facts = frames.get("facts")
    if facts is not None:
        _fact_columns(facts, docs)
    nodes = frames.get("tree_nodes")
    if nodes is not None:
        known = set(passages["chunk_id"]) if passages is not None else set()
        nodes["chunk_id_count"] = nodes["chunk_ids"].map(len)
        nodes["leaves_known"] = nodes["chunk_ids"].map(lambda ids: passages is None or set(ids) <= known)
    lexicon = frames.get("lexicon")
    if lexicon is not None:
        lexicon["weights_ok"] = lexicon["item_weights"].map(_weights_ok)
    return frames


def _fact_columns(facts, docs) -> None:
    """A numeric fact has a finite value unless nil (its display was checked when extracted); a period has
    its end (an instant's date) and starts no later; pages lie within the document."""
    import pandas as pd

    numeric = facts["kind"] == "numeric"
    values = pd.to_numeric(facts["value"], errors="coerce")
    facts["value_ok"] = ~numeric | facts["nil"] | (values.notna() & np.isfinite(values.fillna(0.0)))
    kinds = facts["period_type"].isin(["instant", "duration", "forever"])
    dated = facts["period_end"].notna() | (facts["period_type"] == "forever")
    ordered = facts["period_start"].isna() | (facts["period_start"] <= facts["period_end"])
    facts["period_ok"] = kinds & dated & ordered & ((facts["period_type"] != "duration") | facts["period_start"].notna())
    pages = docs.drop_duplicates("doc_id").set_index("doc_id")["page_count"] if docs is not None else {}
    facts["page_count"] = facts["doc_id"].map(pages).fillna(-1).astype("int64")


def _weights_ok(weights) -> bool:
    """Per form, FLAM weights are non-negative and sum to 1 (or the term has none)."""
    sums: dict[str, float] = {}
    for key, value in (weights or []):
        if not np.isfinite(value) or value < 0:
            return False
        form = key.split(":", 1)[0]  # "<form>:<item>"; an item key may hold a colon (release:outlook)
        sums[form] = sums.get(form, 0.0) + value
    return all(abs(s - 1.0) < 1e-4 for s in sums.values())  # weights are stored to 6 decimals


def _row_level(failure: Failure, kwargs: dict, frame) -> bool:
    """Whether a failure is about some documents' rows (they can be held back) rather than the dataset: not
    uniqueness, not the vector width (a model change), not a ``mostly`` share, and rows that name their
    document."""
    return ("doc_id" in frame.columns and "mostly" not in kwargs and failure.columns != ["vector_dims"]
            and failure.expectation != "expect_column_values_to_be_unique")


def _documents_of(frame, id_column: str, ids: list) -> list[str]:
    """The documents the offending rows (by id) belong to."""
    wanted = set(ids)
    return sorted(set(frame.loc[frame[id_column].isin(wanted), "doc_id"].dropna().astype(str)))


def run_gates(tables: dict[str, pa.Table], dims: int, lake=None) -> GateReport:
    """Validate the datasets present in ``tables``; save the GX results to the lake when given one."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    frames = derive_frames(tables)
    # GX sets this module's logger to INFO to say it made a temporary docs folder: not the operator's news
    logging.getLogger("great_expectations.data_context.types.base").setLevel(logging.WARNING)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = context.data_sources.add_pandas("lake")
    report = GateReport(passed=True, rows={name: len(df) for name, df in frames.items()})
    saved = {}
    for suite_spec in build_suites(dims):
        df = frames.get(suite_spec.dataset)
        if df is None:
            continue
        suite = gx.ExpectationSuite(name=f"secplat_{suite_spec.dataset}")
        for expectation in suite_spec.expectations:
            suite.add_expectation(expectation)
        batch = (source.add_dataframe_asset(suite_spec.dataset).add_batch_definition_whole_dataframe("all")
                 .get_batch(batch_parameters={"dataframe": df}))
        result = batch.validate(suite, result_format={"result_format": "COMPLETE",
                                                      "unexpected_index_column_names": [suite_spec.id_column]})
        saved[suite_spec.dataset] = result.to_json_dict()
        for r in result.results:
            unexpected = int(r.result.get("unexpected_count") or 0)
            if r.success and not unexpected:
                continue
            kwargs = r.expectation_config.kwargs
            columns = [kwargs[k] for k in ("column", "column_A", "column_B") if k in kwargs]
            examples = [row.get(suite_spec.id_column) for row in (r.result.get("unexpected_index_list") or [])]
            unique_examples = list(dict.fromkeys(str(e) for e in examples))[:EXAMPLES]
            failure = Failure(suite_spec.dataset, r.expectation_config.type, columns, unexpected, unique_examples)
            if r.success:
                report.warnings.append(failure)
            elif _row_level(failure, kwargs, df):
                failure.documents = _documents_of(df, suite_spec.id_column, examples)
                report.row_failures.append(failure)
                for doc in failure.documents:
                    report.held_back.setdefault(doc, []).append(f"{failure.dataset}: {failure.expectation}"
                                                                f"({', '.join(columns)})")
            else:
                report.failures.append(failure)
    documents = frames["documents"]["doc_id"].nunique() if "documents" in frames else 0
    if report.held_back and len(report.held_back) > MAX_HELD_BACK * max(1, documents):
        report.failures.append(Failure("documents", "held_back_share", ["doc_id"], len(report.held_back),
                                       sorted(report.held_back)[:EXAMPLES]))
    report.passed = not report.failures
    report.problems = [f"quality gate: {f}" for f in report.failures] + \
        [f"held back: {d}: {'; '.join(r)}" for d, r in report.held_back.items()]
    if lake is not None:
        report.saved_to = lake.uri(write_run_report(lake, report, results=saved))
    return report
