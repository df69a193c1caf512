"""What a conversion run did: counts, warnings, per-document timings (statistics in the run report)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernel.reports import DETAIL, StageReport


@dataclass
class ConvertReport(StageReport):
    stage = "convert"
    converted: int = 0
    skipped: int = 0
    quarantined: int = 0
    warnings: int = 0
    content_warnings: list[str] = field(default_factory=list)  # "<doc_id>: ..." where text may be missing
    shared_names: list[str] = field(default_factory=list)  # filings whose LOFin name another filing holds
    reflagged: list[str] = field(default_factory=list)  # documents whose sp500_member a corrected membership changed
    revised: list[str] = field(default_factory=list)  # documents converted again whose record or pages changed
    # doc_id, pages, render, extract, iXBRL facts seconds; the run report carries their statistics (details())
    timings: list[tuple[str, int, float, float, float]] = field(default_factory=list, metadata=DETAIL)
    facts: int = 0  # iXBRL facts extracted
    fact_problems: list[str] = field(default_factory=list)  # "<doc_id>: n numeric fact(s) without a value"

    def summary(self) -> str:
        return (f"{self.converted} converted, {self.skipped} unchanged, {self.quarantined} quarantined, "
                f"{self.warnings} with warnings" + (f", {len(self.reflagged)} re-flagged" if self.reflagged else "")
                + (f", {len(self.revised)} changed by a conversion of the same source" if self.revised else ""))

    def details(self) -> dict:
        return {"timings": self.stats()}

    def stats(self) -> dict:
        """Median/p95 seconds per document for rendering and extraction, and pages per second of each."""
        if not self.timings:
            return {}
        pages = sum(t[1] for t in self.timings)
        render, extract = sorted(t[2] for t in self.timings), sorted(t[3] for t in self.timings)
        facts = sum(t[4] for t in self.timings)

        def pct(values: list[float], q: float) -> float:
            return round(values[min(len(values) - 1, round(q * (len(values) - 1)))], 3)

        return {"documents": len(self.timings), "pages": pages,
                "render_s": {"median": pct(render, 0.5), "p95": pct(render, 0.95), "total": round(sum(render), 1)},
                "extract_s": {"median": pct(extract, 0.5), "p95": pct(extract, 0.95), "total": round(sum(extract), 1)},
                "pages_per_s_render": round(pages / sum(render), 1) if sum(render) else None,
                "pages_per_s_extract": round(pages / sum(extract), 1) if sum(extract) else None,
                "facts_s": {"total": round(facts, 1),  # iXBRL extraction, part of render_s (same parse)
                            "share": round(facts / (sum(render) + sum(extract) - facts), 3) if sum(render) else None}}
