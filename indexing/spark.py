"""The Spark session the indexing jobs run in: local by default, any master by configuration.

``SPARK_MASTER`` is ``local[*]`` unless set (``spark://host:7077``, ``yarn``, ``k8s://...`` run the same
jobs on a cluster). Lake paths become URIs Spark can read: a local lake as ``file://``, an S3 lake as
``s3a://`` (which needs hadoop-aws on the cluster's classpath; see the README).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from schemas.base import spark_schema
from secplat.config import Settings


def lake_uri(settings: Settings, key: str) -> str:
    root = settings.lake_root.rstrip("/")
    if root.startswith("s3://"):
        return "s3a://" + root.removeprefix("s3://") + "/" + key
    return Path(root).resolve().joinpath(key).as_uri()


def spark_session(settings: Settings, app: str = "secplat-indexing"):
    """A SparkSession configured from settings (created once per process, reused after)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers use this interpreter and its packages
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.appName(app)
        .master(settings.spark_master)
        .config("spark.driver.memory", settings.spark_driver_memory)
        .config("spark.sql.shuffle.partitions", str(settings.spark_shuffle_partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "256")
        .config("spark.python.worker.reuse", "true")  # keeps each worker's loaded model across tasks
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if settings.s3_endpoint_url:
        builder = (builder.config("spark.hadoop.fs.s3a.endpoint", settings.s3_endpoint_url)
                   .config("spark.hadoop.fs.s3a.path.style.access", "true"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session


def read_parts(spark, settings: Settings, dataset: str, parts: list[str], model):
    """Some documents' parts of a lake dataset (``datasets/<dataset>/<part>.parquet``) with the dataset's
    schema, plus a ``doc_part`` column naming the part each row came from."""
    from pyspark.sql import functions as F

    return (spark.read.schema(spark_schema(model))
            .parquet(*[lake_uri(settings, f"datasets/{dataset}/{p}.parquet") for p in parts])
            .withColumn("doc_part", F.regexp_extract(F.input_file_name(), r"([^/]+)\.parquet$", 1)))


def write_partitions(df, uri: str, *columns: str) -> None:
    """Overwrite only the partitions ``df`` holds (dynamic partition overwrite): a rerun for some documents
    replaces theirs and leaves every other document's output alone."""
    df.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy(*columns).parquet(uri)
