"""Publish the indexes when new index-ready data lands (the ``secplat_index_ready`` asset).

The quality gate (Great Expectations) runs first; a failing suite fails the task, names the expectations
and rows, and leaves the previous release served. Then the indexes are upserted (or, with ``rebuild``,
new versions are built) and one release naming them all goes live; the train stage writes that release's
page ranker (``PAGE_RANKER=learned``, the default: readers rank by the rules until it is there, and look for
it again), and a query of the live release checks that it serves evidence.
"""

from __future__ import annotations

from airflow.sdk import Param, dag, task

from dags.common import INDEX_READY, dag_settings
from shell import tasks


@dag(
    dag_id="secplat_publish",
    schedule=[INDEX_READY],
    **dag_settings("publish", __doc__, retries=2),
    params={"rebuild": Param(False, type="boolean", description="Build new versions (not upserts) for the release")},
)
def secplat_publish():
    @task
    def publish(params=None) -> dict:
        return tasks.publish_indexes(rebuild=bool((params or {}).get("rebuild")))

    @task
    def train_ranker() -> dict:
        return tasks.train_ranker()

    @task
    def check_serving() -> dict:
        return tasks.check_serving()

    publish() >> train_ranker() >> check_serving()


secplat_publish()
