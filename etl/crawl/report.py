"""What a crawl run did (CrawlReport) and what a window gives a crawl to do (CrawlWork, the pre-check)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernel.reports import DETAIL, StageReport
from schemas.filings import FilingRecord


@dataclass
class CrawlReport(StageReport):
    stage = "crawl"
    companies: int = 0
    discovered: int = 0
    fetched: int = 0
    skipped: int = 0
    missing: int = 0
    failed: int = 0
    outside_membership: int = 0  # filings of the window whose company was not a member on their period's end
    resumed: int = 0  # files of interrupted filings read back from the lake, not asked of EDGAR again
    records: list[FilingRecord] = field(default_factory=list, metadata=DETAIL)  # the manifest holds them
    planned: list[str] = field(default_factory=list)  # a dry run's discoveries, nothing downloaded
    undiscovered: list[str] = field(default_factory=list)  # tickers whose submissions could not be read
    index_filings: int | None = None  # filings the full index listed for a historical window (None: not used)
    http: dict = field(default_factory=dict)  # request statistics of the run's EDGAR client
    dry_run: bool = False  # discovery only: nothing fetched, nothing recorded

    @property
    def recorded(self) -> bool:
        return not self.dry_run

    def summary(self) -> str:
        return (
            f"{self.companies} companies, {self.discovered} filings discovered"
            + (f" ({self.outside_membership} more outside S&P 500 membership)" if self.outside_membership else "")
            + f": {self.fetched} fetched, "
            f"{self.skipped} already present, {self.missing} missing (404), {self.failed} failed"
            + (f" ({self.resumed} file(s) of interrupted filings kept, not fetched again)" if self.resumed else "")
            + f"; {len(self.problems)} problem(s)"
        )


@dataclass
class CrawlWork(StageReport):
    """Which companies a window gives a crawl something to do (the pre-check before per-company crawl tasks)."""

    stage = "crawl-check"
    tickers: list[str] = field(default_factory=list)  # one per company: filings to fetch, or a failed check
    pending: int = 0  # filings in the window that the lake does not hold complete
    checked: int = 0  # companies whose submissions were read

    @property
    def recorded(self) -> bool:
        return False  # a plan, not a change to the lake

    def summary(self) -> str:
        return (f"{len(self.tickers)} of {self.checked} companies to crawl: {self.pending} filing(s) in the window "
                f"not in the lake yet; {len(self.problems)} problem(s)")
