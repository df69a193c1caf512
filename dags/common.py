"""What both DAGs share: the asset between them and the task defaults (retries for transient errors only)."""

from __future__ import annotations

import pendulum
from airflow.sdk import Asset, ExceptionRetryPolicy, RetryAction, RetryRule

from shell import tasks

INDEX_READY = Asset(name=tasks.INDEX_READY_ASSET)
START_DATE = pendulum.datetime(1994, 1, 1, tz="UTC")  # EDGAR's first year: backfills may reach any date


def dag_settings(tag: str, doc: str | None, retries: int) -> dict:
    """What every secplat DAG sets alike: one run at a time, no catch-up (backfills are explicit), tags,
    docs, and the task defaults below."""
    return {"start_date": START_DATE, "catchup": False, "max_active_runs": 1, "tags": ["secplat", tag],
            "doc_md": doc, "default_args": default_args(retries)}


def default_args(retries: int) -> dict:
    """Up to ``retries`` retries with exponential backoff, and only for the errors
    ``shell.tasks.TRANSIENT_ERRORS`` lists (SEC's block: after the block, ``BLOCK_RETRY_DELAY_S``): a bad
    config or a failed quality gate fails at once. The first delay is ``TASK_RETRY_DELAY`` (read when the DAG
    file is parsed, so the scheduler's and the dag-processor's environment sets it)."""
    return {
        "owner": "data-platform",
        "retries": retries,
        "retry_delay": pendulum.duration(seconds=tasks.retry_delay_s()),
        "retry_exponential_backoff": True,
        "retry_policy": ExceptionRetryPolicy(
            rules=[RetryRule(exception=tasks.BLOCK_ERRORS, action=RetryAction.RETRY, reason="EDGAR block",
                             retry_delay=pendulum.duration(seconds=tasks.BLOCK_RETRY_DELAY_S)),
                   RetryRule(exception=tasks.TRANSIENT_ERRORS, action=RetryAction.RETRY, reason="transient")],
            default=RetryAction.FAIL),
    }
