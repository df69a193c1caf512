"""The Elasticsearch family (Elasticsearch 8.x/9.x, OpenSearch 2.x/3.x), one code path (:mod:`.backend`);
what the two engines spell differently is a :class:`.dialects.Dialect`, and how a version lays its rows
out over one index per filing year is :mod:`.partitions`."""

from kernel.search.elastic.backend import ElasticBackend, mapping_conflicts

__all__ = ["ElasticBackend", "mapping_conflicts"]
