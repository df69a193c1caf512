"""Dataset schemas are pydantic models; Arrow/Parquet and Spark schemas are derived from them.

A model is the single source of a dataset's columns: its field annotations give the types (``X | None``
makes a column nullable), and ``Field(json_schema_extra=...)`` carries what the type alone cannot say
(``{"dims": 384}`` for a fixed-size vector, ``{"es": "text"}`` for the search mapping).
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from collections.abc import Iterable
from typing import Any

import pyarrow as pa
from pydantic import BaseModel


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(inner type, nullable) for ``X | None`` / ``Optional[X]``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union {annotation}")
        return args[0], True
    return annotation, False


def _arrow_type(annotation: Any) -> pa.DataType:
    origin = typing.get_origin(annotation)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return pa.list_(_arrow_type(item))
    if origin is dict:
        key, value = typing.get_args(annotation)
        return pa.map_(_arrow_type(key), _arrow_type(value))
    mapping = {
        str: pa.string(),
        int: pa.int64(),
        float: pa.float64(),
        bool: pa.bool_(),
        dt.date: pa.date32(),
        dt.datetime: pa.timestamp("us", tz="UTC"),
    }
    if annotation in mapping:
        return mapping[annotation]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):  # a nested record: a struct
        return pa.struct(list(arrow_schema(annotation)))
    raise TypeError(f"no Arrow type for {annotation}")


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    fields = []
    for name, info in model.model_fields.items():
        inner, nullable = _unwrap(info.annotation)
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        atype = pa.list_(pa.float32()) if "dims" in extra else _arrow_type(inner)
        fields.append(pa.field(name, atype, nullable=nullable))
    return pa.schema(fields, metadata={"dataset": model.__name__})


def spark_schema(model: type[BaseModel]):
    """The Spark StructType of a dataset (imports pyspark lazily)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema(model))


META_KEY = "secplat"  # the mapping's _meta entry holding the dataset, model, dims and creation time


def es_mapping(model: type[BaseModel], dims: int, meta: dict[str, Any] | None = None,
               similarity: str = "cosine", index_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Elasticsearch mapping of a dataset: keyword unless ``{"es": "text"}``, ``dense_vector`` for vectors
    (explicit dims and similarity), ``flattened`` for maps; ``dynamic: strict`` so a stray field is an error."""
    scalar = {str: "keyword", int: "long", float: "double", bool: "boolean", dt.date: "date", dt.datetime: "date"}
    properties: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        inner, _ = _unwrap(info.annotation)
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        origin = typing.get_origin(inner)
        if "dims" in extra:
            properties[name] = {"type": "dense_vector", "dims": dims, "index": True, "similarity": similarity,
                                "index_options": index_options or {"type": "int8_hnsw"}}
        elif extra.get("es") == "text":
            properties[name] = {"type": "text", "analyzer": "english"}
        elif origin is dict:
            properties[name] = {"type": "flattened"}
        elif origin is list:
            (item,) = typing.get_args(inner)
            properties[name] = {"type": scalar[item]}
        else:
            properties[name] = {"type": scalar[inner]}
    # _meta values must be objects (Elastic's API specification): ours sit under one key
    return {"dynamic": "strict", "_meta": {META_KEY: {"dataset": model.__name__, **(meta or {})}},
            "properties": properties}


def to_table(model: type[BaseModel], rows: Iterable[BaseModel | dict]) -> pa.Table:
    """Validate rows against the model and build an Arrow table with the dataset's exact schema."""
    records = []
    for row in rows:
        obj = row if isinstance(row, model) else model.model_validate(row)
        records.append(obj.model_dump())
    schema = arrow_schema(model)
    return pa.Table.from_pylist(records, schema=schema)
