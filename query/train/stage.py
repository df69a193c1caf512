"""Training the learned page ranker for the live release: the corpus's own questions
(``index/ranker_pairs``, made by the index stage) asked of the retriever with the rules, the question's
page as the positive among the rules' candidates (``query.ranker``). Same release, same pairs: same model
bytes. The model is written beside the release (``kernel.layout.ranker_key``); a query with
``ranker="learned"`` (the default) reads its release's, and until it exists ranks by the rules and looks
again (``Snapshot.ranker``).

The ``train`` stage (:func:`run`) follows ``publish`` in ``secplat run`` and in the publish DAG: it trains
when ``PAGE_RANKER=learned`` and the live release has no model yet (a rerun does nothing); a corpus that
teaches nothing is a problem of the report, not a failed run (the rules serve that release).
"""

from __future__ import annotations

import dataclasses
import time

from kernel.layout import INDEX_DATASETS, ranker_key
from kernel.storage import Lake, dataset_partitions, read_partition
from query.ranker import CANDIDATES, PageRanker, TrainingError, fit, training_rows
from query.retrieve import Retriever
from query.train.options import TrainOptions
from query.train.report import TrainReport


def run(lake: Lake, options: TrainOptions, retriever: Retriever) -> TrainReport:
    """The stage: the live release's model, unless it has one (or the rules are configured). ``retriever``:
    the live release's, which asks the training questions."""
    if options.ranker == "rules":
        return TrainReport(outcome="rules")
    release = retriever.snapshot().id
    report = TrainReport(release=release)
    if release is not None and not options.force and lake.exists(ranker_key(release)):
        report.outcome, report.key = "present", lake.uri(ranker_key(release))
        return report
    started = time.perf_counter()
    try:
        model, key = train(retriever, lake, options.limit, options.progress)
    except TrainingError as exc:
        report.outcome, report.problems = "failed", [f"page ranker not trained: {exc}"]
        return report
    report.outcome, report.key, report.trained = "trained", lake.uri(key), model.trained
    report.seconds = round(time.perf_counter() - started, 1)
    return report


def load_pairs(lake: Lake, limit: int | None = None) -> list[dict]:
    """The training questions, in pair-id order; ``limit`` keeps an evenly spaced share of them."""
    parts = dataset_partitions(lake, INDEX_DATASETS["ranker_pairs"])
    pairs = sorted((row for keys in parts.values() for row in read_partition(lake, keys).to_pylist()),
                   key=lambda p: p["pair_id"])
    if limit and len(pairs) > limit:
        step = len(pairs) / limit
        pairs = [pairs[int(i * step)] for i in range(limit)]
    return pairs


def train(retriever: Retriever, lake: Lake, limit: int | None = None, progress=None) -> tuple[PageRanker, str]:
    """The ranker for the live release, trained and written: (model, the lake key it was written to)."""
    snap = retriever.snapshot()
    if snap.id is None:
        raise TrainingError("nothing is published: run `secplat publish` first")
    pairs = [p for p in load_pairs(lake, limit) if p["doc_id"] in snap.catalog.docs]
    if not pairs:
        raise TrainingError(f"no training questions in {lake.uri(INDEX_DATASETS['ranker_pairs'])}: "
                            "run `secplat index` first")
    options = dataclasses.replace(retriever.options, mode="hierarchical", ranker="rules", curate=False)

    def search(question: str):
        result = retriever.search(question, CANDIDATES, options=options)
        if result.release != snap.id:
            raise TrainingError(f"release {snap.id} was replaced by {result.release} during training: rerun")
        return result.question, result.plan, result.documents, [e.as_dict() for e in result.evidence]

    page_counts = {d.doc_id: d.page_count for d in snap.catalog.docs.values()}
    rows, labels, trained = training_rows(pairs, search, page_counts, progress)
    if not any(labels) or all(labels):
        raise TrainingError(f"the rules' candidates held no usable training question ({trained})")
    model = fit(rows, labels, snap.id, {**trained, "rows": len(rows)})
    key = ranker_key(snap.id)
    lake.write_bytes(key, model.to_json())
    return model, key
