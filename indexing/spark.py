"""The Spark session the indexing jobs run in, and how they read and write the lake through it.

``SPARK_MASTER`` is ``local[*]`` unless set (``spark://host:7077``, ``yarn``, ``k8s://...`` run the same
jobs on a cluster). A local lake is read and written by Spark's own Parquet source (keys become ``file://``
URIs through ``kernel.layout.spark_uri``); an S3 lake by the executors themselves, through the project's
Lake (boto3), because Spark's S3 file system needs hadoop-aws jars that PyPI does not ship. Executors use
their own AWS credentials (environment or instance role): none travel in the Spark configuration.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel.layout import PART_PATTERN, PARTITION_COLUMN, dataset_key, spark_uri
from kernel.storage import Lake, LocalLake, open_lake, read_parquet, read_parquet_footer, write_parquet
from schemas.base import spark_schema

if TYPE_CHECKING:  # the index stage's package imports the jobs, which import this module
    from indexing.index.options import IndexOptions

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXECUTOR_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "SENTENCE_TRANSFORMERS_HOME")


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


def python_udf(func: Callable, return_type):
    """A row-at-a-time Python UDF, Arrow-batched (Spark 4's default, ``spark.sql.execution.pythonUDF.arrow
    .enabled``) said explicitly: left to infer it, PySpark reads the function's type hints (``str``, not pandas
    types), cannot place them, and warns at every job start."""
    from pyspark.sql import functions as F

    return F.udf(func, return_type, useArrow=True)


def read_parts(spark, lake: Lake, dataset: str, parts: list[str], model):
    """Some documents' parts of a lake dataset with the dataset's schema, plus a ``doc_part`` column naming
    the part each row came from (read back from the file name by the layout's own pattern). A list column a
    part written before the schema gained it does not hold reads as an empty list (an older lake indexes)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType

    schema = spark_schema(model)
    if not isinstance(lake, LocalLake):
        df = _read_objects(spark, lake, [dataset_key(dataset, p) for p in parts],
                           spark_schema(model).add(PARTITION_COLUMN, "string"))
    else:
        df = (spark.read.schema(schema)
              .parquet(*[spark_uri(lake, dataset_key(dataset, p)) for p in parts])
              .withColumn(PARTITION_COLUMN, F.regexp_extract(F.input_file_name(), PART_PATTERN, 1)))
    for column in schema.fields:
        if isinstance(column.dataType, ArrayType) and not column.nullable:
            df = df.withColumn(column.name, F.coalesce(F.col(column.name), F.array().cast(column.dataType)))
    return df


def read_dataset(spark, lake: Lake, key: str, parts: list[str] | None = None):
    """A dataset the jobs wrote (``<key>/doc_part=<part>/...``) with its partition columns; only some
    documents' partitions with ``parts``."""
    from pyspark.sql import functions as F

    if isinstance(lake, LocalLake):
        df = spark.read.parquet(spark_uri(lake, key))
        return df.where(F.col(PARTITION_COLUMN).isin(parts)) if parts is not None else df
    prefixes = [f"{key}/{PARTITION_COLUMN}={p}/" for p in parts] if parts is not None else [key + "/"]
    files = sorted(k for prefix in prefixes for k in lake.list(prefix) if k.endswith(".parquet"))
    if not files:
        raise FileNotFoundError(f"{lake.uri(key)}: no Parquet files")
    from pyspark.sql.pandas.types import from_arrow_schema

    columns = [c.split("=", 1)[0] for c in files[0][len(key) + 1:].split("/")[:-1]]
    data = from_arrow_schema(read_parquet_footer(lake, files[0]).schema.to_arrow_schema())
    for name in columns:
        data = data.add(name, "string")
    return _read_objects(spark, lake, files, data, partitions_of=key)


def read_texts(spark, lake: Lake, rows: list[tuple[str, str]]):
    """(doc_part, value): each lake object's whole text, for ``(part, key)`` rows."""
    from pyspark.sql import functions as F

    if isinstance(lake, LocalLake):
        paths = spark.createDataFrame([(p, spark_uri(lake, k)) for p, k in rows], "doc_part string, path string")
        text = (spark.read.option("wholetext", "true").text([spark_uri(lake, k) for _, k in rows])
                .withColumn("path", F.input_file_name()))
        return text.join(F.broadcast(paths), "path").select("doc_part", "value")
    ref = _LakeRef.of(lake)

    def read(batches):
        import pyarrow as pa

        opened = ref.open()
        for batch in batches:
            parts, keys = batch.column(0).to_pylist(), batch.column(1).to_pylist()
            values = [opened.read_bytes(k).decode("utf-8", "replace") for k in keys]
            yield pa.record_batch([pa.array(parts, pa.string()), pa.array(values, pa.string())],
                                  names=["doc_part", "value"])
    keys = spark.createDataFrame(rows, "doc_part string, key string")
    return keys.repartition(_tasks(spark, len(rows))).mapInArrow(read, "doc_part string, value string")


def write_partitions(df, lake: Lake, key: str, *columns: str) -> None:
    """Overwrite only the partitions ``df`` holds (dynamic partition overwrite): a rerun for some documents
    replaces theirs and leaves every other document's output alone."""
    if isinstance(lake, LocalLake):
        (df.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy(*columns)
         .parquet(spark_uri(lake, key)))
        return
    _write_objects(df, lake, key, columns)


# -- a lake Spark's own file systems do not reach (S3 without hadoop-aws, which PyPI does not ship): the
# executors read and write its objects themselves, through the project's Lake (boto3)

@dataclass(frozen=True)
class _LakeRef:
    """What an executor needs to open the lake (credentials come from its environment, as boto3 reads)."""

    root: str
    endpoint_url: str | None
    region: str | None

    @classmethod
    def of(cls, lake: Lake) -> _LakeRef:
        return cls(lake.root, getattr(lake, "endpoint_url", None), getattr(lake, "region", None))

    def open(self) -> Lake:
        return open_lake(self.root, self.endpoint_url, self.region)


def _tasks(spark, items: int) -> int:
    return max(1, min(items, 2 * spark.sparkContext.defaultParallelism))


def _read_objects(spark, lake: Lake, keys: list[str], schema, partitions_of: str | None = None):
    """The rows of these Parquet objects in ``schema`` (a column the object lacks is null): ``doc_part``
    from each object's name (a document part), or with ``partitions_of`` every ``column=value`` folder
    between that dataset key and the object."""
    from pyspark.sql.pandas.types import to_arrow_schema

    ref, target = _LakeRef.of(lake), to_arrow_schema(schema, timezone="UTC")  # the session time zone

    def read(batches):
        import pyarrow as pa

        opened = ref.open()
        for batch in batches:
            for key in batch.column(0).to_pylist():
                table = read_parquet(opened, key)
                given = _key_columns(key, partitions_of)
                arrays = [pa.array([given[f.name]] * table.num_rows, f.type) if f.name in given
                          else table.column(f.name).cast(f.type) if f.name in table.column_names
                          else pa.nulls(table.num_rows, f.type) for f in target]
                yield from pa.Table.from_arrays(arrays, schema=target).to_batches()
    names = spark.createDataFrame([(k,) for k in keys], "key string")
    return names.repartition(_tasks(spark, len(keys))).mapInArrow(read, schema)


def _key_columns(key: str, dataset: str | None) -> dict[str, str]:
    if dataset is None:
        return {PARTITION_COLUMN: re.search(PART_PATTERN, key).group(1)}
    return dict(part.split("=", 1) for part in key[len(dataset) + 1:].split("/")[:-1])


def _write_objects(df, lake: Lake, key: str, columns: tuple[str, ...]) -> None:
    """One object per partition and task under ``<key>/<column>=<value>/``; then, per partition written,
    the objects an earlier run left there are deleted (a reader sees the old rows or the new, plus both for
    the moment between)."""
    import uuid

    ref, run = _LakeRef.of(lake), uuid.uuid4().hex[:12]

    def write(batches):
        import pyarrow as pa
        from pyspark import TaskContext

        opened = ref.open()
        tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
        if not tables:
            return
        table = pa.concat_tables(tables)
        values = list(zip(*(table.column(c).to_pylist() for c in columns), strict=True))
        keep = [c for c in table.column_names if c not in columns]
        task = TaskContext.get().partitionId()
        for group in sorted(set(values)):
            rows = pa.array([v == group for v in values])
            folder = "/".join(f"{c}={v}" for c, v in zip(columns, group, strict=True))
            name = f"{key}/{folder}/part-{task:05d}-{run}.parquet"
            write_parquet(opened, name, table.filter(rows).select(keep))
            yield pa.record_batch([pa.array([f"{key}/{folder}/"]), pa.array([name])], names=["folder", "name"])
    written = df.repartition(*columns).mapInArrow(write, "folder string, name string").collect()
    new = {r.name for r in written}
    for folder in sorted({r.folder for r in written}):
        for old in lake.list(folder):
            if old not in new:
                lake.delete(old)
