"""What differs between the Elasticsearch-family engines, on literal inputs: the product check, the OpenSearch
mapping and k-NN body, and the mapping-conflict rule an upsert is refused by."""

from __future__ import annotations

from kernel.search.elastic import mapping_conflicts
from kernel.search.elastic.dialects import ElasticDialect, OpenSearchDialect, product_problem
from schemas.base import es_mapping
from schemas.index import INDEXES

OS_2_19 = {"version": {"distribution": "opensearch", "number": "2.19.1"}}
KNN = ["org.opensearch.knn.plugin.KNNPlugin"]


def test_opensearch_with_knn_passes_and_each_gap_is_named():
    assert product_problem(OS_2_19, KNN, "opensearch") is None
    assert product_problem({"version": {"distribution": "opensearch", "number": "3.1.0"}}, ["opensearch-knn"],
                           "opensearch") is None
    assert "no k-NN plugin" in product_problem(OS_2_19, ["org.opensearch.painless.PainlessPlugin"], "opensearch")
    for number in ("1.3.13", "2.3.0", "4.0.0"):
        problem = product_problem({"version": {"distribution": "opensearch", "number": number}}, KNN, "opensearch")
        assert f"OpenSearch {number} is not a version this code speaks" in problem
    assert "not OpenSearch" in product_problem({"version": {"number": "8.15.0"}}, [], "opensearch")


def test_elasticsearch_majors_and_the_wrong_setting_are_named():
    assert product_problem({"version": {"number": "8.15.0", "build_flavor": "default"}}, [], "elasticsearch") is None
    assert product_problem({"version": {"number": "9.0.1"}}, [], "elasticsearch") is None
    assert "7.17.0 is not a version" in product_problem({"version": {"number": "7.17.0"}}, [], "elasticsearch")
    assert "set OPENSEARCH_URL" in product_problem(OS_2_19, KNN, "elasticsearch")


def test_opensearch_maps_vectors_to_lucene_knn_and_maps_to_flat_objects():
    base = es_mapping(INDEXES["passages"].model, 384, {"model": "m"})
    mapped = OpenSearchDialect(None, "u").mapping(base, 384)
    assert mapped["properties"]["vector"] == {"type": "knn_vector", "dimension": 384, "method": {
        "name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}}
    assert base["properties"]["vector"]["type"] == "dense_vector"  # the schema's mapping is not changed
    lexicon = OpenSearchDialect(None, "u").mapping(es_mapping(INDEXES["lexicon"].model, 8), 8)["properties"]
    assert lexicon["item_weights"] == {"type": "flat_object"}
    assert OpenSearchDialect(None, "u").index_settings(1, 1)["index.knn"] is True
    assert "index.knn" not in ElasticDialect(None, "u").index_settings(1, 1)


def test_knn_bodies_carry_the_filters_each_engine_reads():
    term = [{"term": {"ticker": {"value": "KO"}}}]
    body = OpenSearchDialect(None, "u").knn_body([1, 0], 5, term)
    assert body == {"query": {"knn": {"vector": {"vector": [1.0, 0.0], "k": 5,
                                                 "filter": {"bool": {"filter": term}}}}}}
    assert "filter" not in OpenSearchDialect(None, "u").knn_body([1, 0], 5, [])["query"]["knn"]["vector"]
    es = ElasticDialect(None, "u").knn_body([1, 0], 5, term)["knn"]
    assert es["filter"] == term and es["num_candidates"] == 100 and es["k"] == 5


def test_mapping_conflicts_name_type_width_and_missing_fields():
    wanted = {"properties": {"company": {"type": "text", "analyzer": "english"}, "ticker": {"type": "keyword"},
                             "vector": {"type": "knn_vector", "dimension": 384,
                                        "method": {"space_type": "cosinesimil"}}}}
    assert mapping_conflicts(wanted, wanted) == []
    served = {"properties": {"company": {"type": "keyword"},
                             "vector": {"type": "knn_vector", "dimension": 768,
                                        "method": {"space_type": "cosinesimil"}}}}
    found = mapping_conflicts(served, wanted)
    assert found[0].startswith("company with type keyword (this code: text)")
    assert "no field ticker" in found and any("dimension 768" in f for f in found)
