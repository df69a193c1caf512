"""The embedded engine (the default): LanceDB tables on local disk, no server (:mod:`.backend`), searched
from memory through caches of what each Lance fragment holds:

- :mod:`.fragment_arrays`: one fragment's ids, unit vectors and filter postings as flat arrays;
- :mod:`.fragment_bm25`: BM25 over one fragment's row-term postings (search inside chosen documents);
- :mod:`.fragment_cache`: those arrays on disk, computed once per fragment by the publisher;
- :mod:`.table_version`: one table version as the fragments it holds, less the rows it deleted;
- :mod:`.version_cache`: the table versions a process has opened, sharing their fragments.
"""

from kernel.search.embedded.backend import EmbeddedBackend

__all__ = ["EmbeddedBackend"]
