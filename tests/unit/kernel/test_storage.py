

def test_a_partition_written_before_a_column_was_added_reads_with_it_empty(tmp_path):
    import pyarrow as pa

    from kernel.storage import LocalLake, read_partition, write_parquet

    lake = LocalLake(tmp_path)
    write_parquet(lake, "index/documents/doc_part=a/part-0.parquet", pa.table({"doc_id": ["A"]}))
    schema = pa.schema([pa.field("doc_id", pa.string()), pa.field("absent_items", pa.list_(pa.string()), False),
                        pa.field("note", pa.string())])
    table = read_partition(lake, ["index/documents/doc_part=a/part-0.parquet"], schema)
    assert table.to_pylist() == [{"doc_id": "A", "absent_items": [], "note": None}]
