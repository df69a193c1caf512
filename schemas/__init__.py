"""Dataset schemas: pydantic models that are the single source for Parquet, Spark and index mappings."""
