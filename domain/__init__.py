"""The SEC filing domain both sides must agree on: the text normalizer (``domain.text``), forms, periods
and rules (``domain.rules``), and the SEC Items (``domain.sec_items``). Imports nothing of the project:
the kernel, the stages and the query side all build on it."""
