"""The change ledger: what each index job and each publish last committed, and what changed since.

One record per job in ``index/state/<job>.json``: ``{"docs": {part: fingerprint}, ...}`` plus whatever
else the job must remember (the lexicon's term batches). A job plans once (:class:`Plan`: the fingerprints
of its inputs now against the ones it last committed), does the work, and commits at its end, so a run
killed half-way redoes that job's work and nothing is marked done that was not written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from kernel.layout import state_key
from kernel.storage import Lake, read_json


def changed_parts(now: dict[str, str], done: dict[str, str]) -> list[str]:
    """The parts whose fingerprint now differs from the one last committed (new parts included), sorted."""
    return sorted(p for p, fp in now.items() if done.get(p) != fp)


@dataclass
class Plan:
    """One job's work: its inputs' fingerprints now, the ones it last committed, what else it remembers."""

    job: str
    now: dict[str, str]
    done: dict[str, str] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)
    forced: bool = False  # work besides changed documents (documents gone, new curated terms, other words)

    @property
    def changed(self) -> list[str]:
        return changed_parts(self.now, self.done)

    @property
    def removed(self) -> list[str]:
        """Parts committed before and gone now (tables over the whole corpus must be redone)."""
        return sorted(set(self.done) - set(self.now))

    @property
    def has_work(self) -> bool:
        return self.forced or bool(self.changed)

    @property
    def after(self) -> dict[str, str]:
        """What the job's record holds once it committed every change (kept parts never removed)."""
        return {**self.done, **self.now}


class Ledger:
    """Reads and commits the jobs' records in one lake (the one place their shape is known)."""

    def __init__(self, lake: Lake):
        self.lake = lake

    def read(self, job: str) -> dict:
        """A record as written (``{}`` before the first commit)."""
        return read_json(self.lake, state_key(job), {})

    def record(self, job: str) -> dict:
        """A job's whole record; ``{"docs": {}}`` before its first commit. A record written before the
        ledger as a bare ``part -> fingerprint`` map (embeddings, trees) reads as its ``docs``."""
        record = self.read(job)
        if "docs" not in record or not isinstance(record["docs"], dict):
            record = {"docs": record}
        return record

    def plan(self, job: str, now: dict[str, str]) -> Plan:
        record = self.record(job)
        return Plan(job, now, record.pop("docs"), record)

    def commit(self, plan: Plan, docs: dict[str, str] | None = None, **memo) -> None:
        """The job's record after its work: ``docs`` (the plan's ``now`` unless given) and its memo."""
        self.write(plan.job, {"docs": plan.now if docs is None else docs, **memo})

    def write(self, job: str, record: dict) -> None:
        self.lake.write_bytes(state_key(job), json.dumps(record, indent=1, sort_keys=True).encode())
