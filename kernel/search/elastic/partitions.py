"""How the Elasticsearch backend lays a version out: one index per filing year under the version's alias, so
an upsert copies only the years it changes (the usual shape of a growing corpus in Elasticsearch).

A version ``<prefix>-<index>-v<stamp>`` is an alias over partition indices ``<version>-y<fiscal year>`` (and
``<version>-ynone`` for rows without one, which every version has from its creation). A version made for an
upsert starts as a second alias over the same partitions as the live one (no copy); the upsert copies a
partition into one of its own (``_reindex`` of that partition only) the first time it writes to it, so the
served version is never written and the new one shares every year it did not change. Readers search the
alias: one name per index, whatever the partitions. An index made before partitions (a plain index named
like a version) is read as a version of one partition; the first upsert copies it whole into its ``ynone``.
Pure functions here; the requests are the backend's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

NONE = "ynone"
PARTITION_FIELD = "fiscal_year"


def partition_key(row: Mapping, field: str | None) -> str:
    """The partition a row belongs to: its fiscal year's, or ``ynone``."""
    value = row.get(field) if field else None
    return f"y{int(value)}" if value is not None else NONE


def partition_index(version: str, key: str) -> str:
    return f"{version}-{key}"


def version_pattern(alias: str) -> re.Pattern:
    """A version's alias (or a pre-partition version index) of the logical index ``alias``."""
    return re.compile(rf"^{re.escape(alias)}-v\d{{17}}$")


def versions_of(indices: Mapping[str, Iterable[str]], alias: str) -> dict[str, list[str]]:
    """version -> its partition indices, from each index's aliases (``GET /<alias>-v*``); an index named like
    a version is a pre-partition version of its own."""
    pattern = version_pattern(alias)
    out: dict[str, list[str]] = {}
    for index, aliases in sorted(indices.items()):
        if pattern.match(index):
            out.setdefault(index, []).append(index)
        for name in aliases:
            if pattern.match(name):
                out.setdefault(name, []).append(index)
    return {v: sorted(members) for v, members in sorted(out.items())}


def own(version: str, index: str) -> bool:
    """Whether a partition index was made for this version (else it is shared with the one it came from)."""
    return index.startswith(version + "-y")


def key_of(index: str) -> str:
    """A partition index's key (``y2023``); a pre-partition version index holds every year: ``ynone``."""
    tail = index.rsplit("-", 1)[-1]
    return tail if tail.startswith("y") and (tail == NONE or tail[1:].isdigit()) else NONE


def plan_writes(version: str, members: Iterable[str], keys: Iterable[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """What a write to these partition keys needs first: (shared partitions to copy into the version's own,
    as (source, destination)), and the new partitions to create (keys the version has no partition for)."""
    by_key: dict[str, str] = {}
    for index in members:
        by_key.setdefault(key_of(index), index)
        if own(version, index):
            by_key[key_of(index)] = index
    copies, creates = [], []
    for key in sorted(set(keys)):
        index = by_key.get(key)
        target = partition_index(version, key)
        if index is None:
            creates.append(target)
        elif index != target:
            copies.append((index, target))
    return copies, creates


def alias_moves(alias: str, current: Iterable[str], wanted: Iterable[str]) -> list[dict]:
    """``update_aliases`` actions that make ``alias`` name exactly ``wanted``."""
    current, wanted = set(current), set(wanted)
    return [*({"remove": {"index": i, "alias": alias}} for i in sorted(current - wanted)),
            *({"add": {"index": i, "alias": alias}} for i in sorted(wanted - current))]
