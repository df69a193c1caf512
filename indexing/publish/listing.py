"""What ``secplat list-versions`` shows: what is served, counted as it is served.

A version's row count is read at the target a release reads (on the embedded engine a table version,
``<table>@<n>``), never at the version's latest state: a publish killed after writing leaves rows that no
release serves (a newer table version, or a whole version no release names), and those are listed apart
with what the next publish does with them (it drops versions no kept release reads and starts an upsert
from the table version the live release reads).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from kernel.search import SearchBackend
from kernel.search.base import Release, physical_of
from schemas.index import INDEXES

NEXT_PUBLISH = ("the next publish drops versions no kept release reads and upserts from the table version the "
                "live release reads")


@dataclass(frozen=True)
class ListedVersion:
    name: str  # the physical version
    index: str
    created: str
    model: str | None
    live: bool  # the live release reads it
    releases: list[str] = field(default_factory=list)  # kept releases reading it, newest first
    target: str | None = None  # what the live (else the newest) release naming it reads
    count: int | None = None  # rows at ``target`` (at the version itself when no release names it)
    unreleased_count: int | None = None  # rows of a later state of it that no release reads (a killed write)


@dataclass(frozen=True)
class Listing:
    live: Release | None
    releases: list[Release]  # oldest first
    versions: dict[str, list[ListedVersion]]  # per index: versions some kept release reads
    unreleased: list[ListedVersion]  # versions no release names, and released ones with later unread rows

    def as_json(self) -> dict:
        return {"live": self.live.id if self.live else None, "releases": [r.to_json() for r in self.releases],
                "versions": {k: [asdict(v) for v in vs] for k, vs in self.versions.items()},
                "unreleased": [asdict(v) for v in self.unreleased], "next_publish": NEXT_PUBLISH}


def listing(backend: SearchBackend) -> Listing:
    """Releases and versions as they are served (see the module docstring)."""
    releases, live = backend.releases(), backend.live_release()
    newest_first = sorted(releases, key=lambda r: r.id, reverse=True)
    if live is not None:
        newest_first = [live, *(r for r in newest_first if r.id != live.id)]
    versions: dict[str, list[ListedVersion]] = {}
    unreleased: list[ListedVersion] = []
    for index, spec in INDEXES.items():
        versions[index] = []
        for v in backend.versions(spec, counts=False):
            naming = [r for r in newest_first if r.physical(index) == v.name]
            base = {"name": v.name, "index": index, "created": v.created, "model": v.meta.get("model"),
                    "live": bool(live and live.physical(index) == v.name), "releases": [r.id for r in naming]}
            if not naming:
                unreleased.append(ListedVersion(**base, count=backend.count(v.name)))
                continue
            target = naming[0].targets[index]
            latest = backend.pin(v.name)
            listed = ListedVersion(**base, target=target, count=backend.count(target))
            versions[index].append(listed)
            if latest != target and all(latest != r.targets[index] for r in naming):
                unreleased.append(ListedVersion(**{**base, "live": False, "releases": []}, target=latest,
                                                unreleased_count=backend.count(latest)))
    return Listing(live, releases, versions, unreleased)


def render(found: Listing) -> list[str]:
    """The text form: releases (live starred), then each index's versions with the rows served, then what
    no release reads."""
    live = found.live
    lines = ["releases:" + ("" if found.releases else " (none: nothing published)")]
    for r in reversed(found.releases):
        changed = ", ".join(f"{i} {m}" for i, m in sorted(r.modes.items()) if m != "unchanged") or "no change"
        lines.append(f"  {'*' if live and r.id == live.id else ' '} {r.id}  created {r.created[:19]}  ({changed})")
    for index, vs in found.versions.items():
        lines.append(f"{index}:" + ("" if vs else " (none)"))
        for v in vs:
            lines.append(f"  {'*' if v.live else ' '} {v.target}  {v.count:>8} rows  model={v.model}  "
                         f"created {v.created[:19]}  (release {', '.join(v.releases)})")
    if found.unreleased:
        lines.append(f"not served by any release (left by a publish that did not finish; {NEXT_PUBLISH}):")
        for v in found.unreleased:
            if v.unreleased_count is not None:
                lines.append(f"    {v.index}: {v.target}  {v.unreleased_count:>8} rows  (a later state of "
                             f"{physical_of(v.target or v.name)} than its releases read)")
            else:
                lines.append(f"    {v.index}: {v.name}  {v.count:>8} rows  created {v.created[:19]}")
    return lines
