"""The Elasticsearch mappings derived from schemas/ (no cluster needed: this is the request body)."""

from __future__ import annotations

from schemas.base import es_mapping
from schemas.index import INDEXES


def test_passage_mapping_has_explicit_vector_and_analyzed_text():
    mapping = es_mapping(INDEXES["passages"].model, 384, {"model": "all-MiniLM-L6-v2"})
    props = mapping["properties"]
    assert props["vector"] == {"type": "dense_vector", "dims": 384, "index": True, "similarity": "cosine",
                               "index_options": {"type": "int8_hnsw"}}
    assert props["text"]["type"] == "text" and props["company"]["type"] == "text"
    assert props["ticker"] == {"type": "keyword"} and props["chunk_id"] == {"type": "keyword"}
    assert props["fiscal_year"] == {"type": "long"} and props["period_end"] == {"type": "date"}
    assert mapping["dynamic"] == "strict" and mapping["_meta"]["secplat"]["model"] == "all-MiniLM-L6-v2"
    assert set(props) == set(INDEXES["passages"].model.model_fields)


def test_lexicon_and_tree_mappings():
    lexicon = es_mapping(INDEXES["lexicon"].model, 384)["properties"]
    assert lexicon["item_weights"] == {"type": "flattened"} and "vector" not in lexicon
    tree = es_mapping(INDEXES["tree_nodes"].model, 768)["properties"]
    assert tree["children"] == {"type": "keyword"} and tree["vector"]["dims"] == 768
