"""Publish the indexes when new index-ready data lands (the ``secplat_index_ready`` asset).

The quality gate (Great Expectations) runs first; a failing suite fails the task, names the expectations
and rows, and leaves the aliases on the previous versions. Then the live indexes are upserted (or, with
``rebuild``, new versions are built and the aliases swapped atomically), and a query through the aliases
checks that they serve evidence. With ``PAGE_RANKER=learned`` the release's page ranker is trained beside it
(a release without one is ranked by the rules).
"""

from __future__ import annotations

from airflow.sdk import Param, dag, task

from dags.common import INDEX_READY, dag_settings
from shell import tasks


@dag(
    dag_id="secplat_publish",
    schedule=[INDEX_READY],
    **dag_settings("publish", __doc__, retries=2),
    params={"rebuild": Param(False, type="boolean", description="Build new versions and swap the aliases")},
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

    published = publish()
    published >> check_serving()
    published >> train_ranker()


secplat_publish()
