"""The conversion stage's options, from the settings (plain values)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from kernel.run_policy import check_batch
from kernel.settings import ConfigError, Settings

STAGE = "convert"


@dataclass
class ConvertOptions:
    timeout_s: float = 180.0
    memory_mb: int = 4096
    workers: int = 2
    max_html_bytes: int = 40 * 1024 * 1024  # larger primary documents are quarantined, not rendered
    find_tables: bool = False  # PyMuPDF's table finder for PDFs that arrive as PDFs
    llm_summary: bool = False  # the LLM (passed to run) adds a sentence to the deterministic cover summary
    pdf_dirs: tuple[Path, ...] = ()  # folders of PDFs that arrive as PDFs (converted besides the crawled filings)
    progress: Callable[[Iterable, str, int], Iterable] | None = None
    batch: tuple[int, int] | None = None  # (index, count): only the companies of that batch (domain.rules)
    redo: bool = False  # convert every document again, its source unchanged too (after a converter fix)

    @classmethod
    def from_settings(cls, settings: Settings, pdf_dirs: Iterable[str | Path] = (), progress=None,
                      batch: tuple[int, int] | None = None, redo: bool = False) -> ConvertOptions:
        return cls(timeout_s=settings.convert_timeout, memory_mb=settings.convert_memory_mb,
                   workers=settings.convert_workers, max_html_bytes=int(settings.convert_max_html_mb * 1024 * 1024),
                   find_tables=settings.pdf_find_tables,
                   llm_summary=settings.cover_summary_llm,
                   pdf_dirs=check_pdf_dirs(pdf_dirs), progress=progress, batch=check_batch(batch), redo=redo)


def check_pdf_dirs(dirs: Iterable[str | Path]) -> tuple[Path, ...]:
    """Folders of PDFs to convert; one that does not exist is a usage error (ConfigError), never "0 converted"."""
    out = tuple(Path(d) for d in dirs)
    for d in out:
        if not d.is_dir():
            raise ConfigError(f"--pdf-dir {d}: {'not a directory' if d.exists() else 'no such directory'}")
    return out
