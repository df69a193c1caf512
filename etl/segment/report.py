"""What a segmentation run did: documents segmented, chunks made, what needs a look."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernel.reports import DETAIL, StageReport


@dataclass
class SegmentReport(StageReport):
    stage = "segment"
    segmented: int = 0
    skipped: int = 0
    quarantined: int = 0
    chunks: int = 0
    no_items: list[str] = field(default_factory=list)  # documents whose structure was not recognized
    content_warnings: list[str] = field(default_factory=list)  # "<doc_id>: ..." where chunks miss page text
    unfinished: list[str] = field(default_factory=list)  # "<doc_id>: ..." whose conversion a kill interrupted
    seconds: list[float] = field(default_factory=list, metadata=DETAIL)

    def summary(self) -> str:
        return (f"{self.segmented} segmented ({self.chunks} chunks), {self.skipped} unchanged, "
                f"{self.quarantined} quarantined, {len(self.no_items)} without recognizable items"
                + (f", {len(self.content_warnings)} with content warnings" if self.content_warnings else "")
                + (f", {len(self.unfinished)} left until their conversion finishes" if self.unfinished else ""))

    def details(self) -> dict:
        secs = sorted(self.seconds)
        return {"ms_per_document_median": round(1000 * secs[len(secs) // 2], 1) if secs else None}
