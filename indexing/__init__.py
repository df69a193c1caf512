"""The index and publish stages (``indexing.index``, ``indexing.publish``): Spark jobs over the lake's
chunks, then the indexes published to a search engine."""
