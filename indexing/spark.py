"""The Spark session the indexing jobs run in, and how they read and write the lake through it.

``SPARK_MASTER`` is ``local[*]`` unless set (``spark://host:7077``, ``yarn``, ``k8s://...`` run the same
jobs on a cluster). Lake keys become Spark URIs through ``kernel.layout.spark_uri`` (a local lake as
``file://``, an S3 lake as ``s3a://``, which needs hadoop-aws on the cluster's classpath; see the README).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kernel.layout import PART_PATTERN, PARTITION_COLUMN, dataset_key, spark_uri
from kernel.models import EmbeddingSpec
from kernel.settings import Settings
from kernel.storage import Lake
from schemas.base import spark_schema

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXECUTOR_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "SENTENCE_TRANSFORMERS_HOME")


@dataclass(frozen=True)
class IndexOptions:
    """What the index jobs need: the embedding model and where Spark runs."""

    embedding: EmbeddingSpec = field(default_factory=EmbeddingSpec)
    spark_master: str = "local[*]"
    driver_memory: str = "4g"
    shuffle_partitions: int = 4
    s3_endpoint_url: str | None = None
    progress: Callable[[Iterable, str, int], Iterable] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, progress=None) -> IndexOptions:
        return cls(settings.embedding(), settings.spark_master, settings.spark_driver_memory,
                   settings.spark_shuffle_partitions, settings.s3_endpoint_url, progress)


def spark_session(options: IndexOptions, app: str = "secplat-indexing"):
    """A SparkSession configured from the options (created once per process, reused after)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers use this interpreter and its packages
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.appName(app)
        .master(options.spark_master)
        .config("spark.driver.memory", options.driver_memory)
        .config("spark.sql.shuffle.partitions", str(options.shuffle_partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "256")
        .config("spark.python.worker.reuse", "true")  # keeps each worker's loaded model across tasks
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if not options.spark_master.startswith("local"):
        builder = _for_cluster(builder)
    if options.s3_endpoint_url:
        builder = (builder.config("spark.hadoop.fs.s3a.endpoint", options.s3_endpoint_url)
                   .config("spark.hadoop.fs.s3a.path.style.access", "true"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session


def _for_cluster(builder):
    """Executors on a cluster run this interpreter (the same path on every worker: an image or a venv laid out
    alike) with the project importable and the model hub switched off as here."""
    builder = builder.config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
    path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    builder = builder.config("spark.executorEnv.PYTHONPATH", path)
    for name in EXECUTOR_ENV:
        if name in os.environ:
            builder = builder.config(f"spark.executorEnv.{name}", os.environ[name])
    return builder


def read_parts(spark, lake: Lake, dataset: str, parts: list[str], model):
    """Some documents' parts of a lake dataset with the dataset's schema, plus a ``doc_part`` column naming
    the part each row came from (read back from the file name by the layout's own pattern)."""
    from pyspark.sql import functions as F

    return (spark.read.schema(spark_schema(model))
            .parquet(*[spark_uri(lake, dataset_key(dataset, p)) for p in parts])
            .withColumn(PARTITION_COLUMN, F.regexp_extract(F.input_file_name(), PART_PATTERN, 1)))


def write_partitions(df, uri: str, *columns: str) -> None:
    """Overwrite only the partitions ``df`` holds (dynamic partition overwrite): a rerun for some documents
    replaces theirs and leaves every other document's output alone."""
    df.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy(*columns).parquet(uri)
