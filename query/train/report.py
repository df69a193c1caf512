"""What a train run did: the release's model, or why the rules serve it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernel.reports import StageReport


@dataclass
class TrainReport(StageReport):
    stage = "train"
    release: str | None = None
    outcome: str = ""  # trained | present | rules | failed
    key: str | None = None
    trained: dict = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self) -> str:
        if self.outcome == "trained":
            t = self.trained
            return (f"page ranker for release {self.release}: {t['used']} of {t['questions']} training questions "
                    f"used ({t['not_in_candidates']} not among the rules' candidates), {t['rows']} candidate pages, "
                    f"{self.seconds:.0f} s -> {self.key}")
        if self.outcome == "present":
            return f"page ranker for release {self.release} already trained ({self.key})"
        if self.outcome == "rules":
            return "PAGE_RANKER=rules: no page ranker to train"
        return f"no page ranker for release {self.release}: the rules rank its pages ({'; '.join(self.problems)})"

    @property
    def recorded(self) -> bool:
        return self.outcome in ("trained", "failed")
