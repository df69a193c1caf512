"""What a publish did: the gate's verdict, each index's outcome, the release made live."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernel.reports import StageReport
from quality.gates import GateReport


class PublishError(RuntimeError):
    """Nothing to publish, or a rollback without a previous version."""


@dataclass
class IndexOutcome:
    index: str
    mode: str  # rebuild | upsert | unchanged
    version: str
    rows: int = 0  # rows written (loaded or upserted)
    deleted_documents: int = 0


@dataclass
class PublishReport(StageReport):
    stage = "publish"
    backend: str = ""
    gate: GateReport | None = None
    indexes: list[IndexOutcome] = field(default_factory=list)
    release: str | None = None  # the release live after this publish
    dropped: list[str] = field(default_factory=list)  # versions no kept release reads (a dead publisher's too)
    swept: list[str] = field(default_factory=list)  # half-written cache entries of a killed publish, removed

    @property
    def blocked(self) -> bool:
        return self.gate is not None and not self.gate.passed

    def summary(self) -> str:
        if self.blocked:
            return f"publish BLOCKED by the quality gate; the previous release is still served\n{self.gate.summary()}"
        parts = [f"{o.index}: {o.mode} {o.version} ({o.rows} rows written"
                 + (f", {o.deleted_documents} documents removed" if o.deleted_documents else "") + ")"
                 for o in self.indexes]
        warnings = "".join(f"\nquality warning: {w}" for w in (self.gate.warnings if self.gate else []))
        held = "".join(f"\nheld back (quarantine/publish/): {d}: {'; '.join(r)}"
                       for d, r in (self.gate.held_back if self.gate else {}).items())
        swept = (f"\nremoved {len(self.swept)} half-written cache entr{'y' if len(self.swept) == 1 else 'ies'} "
                 f"left by a killed publish: {', '.join(self.swept)}") if self.swept else ""
        return (f"published to {self.backend} as release {self.release}: " + "; ".join(parts) + warnings + held
                + swept)
