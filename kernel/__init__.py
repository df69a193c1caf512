"""The kernel: what every stage stands on and nothing else.

Settings and the domain rules they validate (``settings``), lake storage (``storage``) and the lake layout
(``layout``), the stage report type (``reports``), and the clients: embedding models (``models``,
``embedder``), the search engines (``search``) and the optional LLM (``llm``). The kernel imports no stage
(``etl``, ``indexing``, ``quality``, ``query``) and no shell; ``tests/unit/test_layers.py`` checks it.
"""
