"""What every HTML document goes through: rendered and paged, checked for lost text, warned about, and
its deterministic cover summary extended by an LLM sentence when one is configured."""

from __future__ import annotations

import tempfile
import time

from etl import conservation as conserved
from etl.convert.html_prepare import PreparedHtml
from etl.convert.options import ConvertOptions
from etl.convert.pdf_pages import PagedPdf, page_pdf
from etl.convert.pdf_render import RenderResult, render_pdf
from kernel.llm import LlmError, TextModel

SUMMARY_SYSTEM = ("You summarize the cover page of an SEC filing for a search index. Answer with one or two "
                  "factual sentences naming the company, form, period and business; no speculation.")


def render_paged(prepared: PreparedHtml, options: ConvertOptions, started: float) -> tuple[RenderResult, PagedPdf,
                                                                                          float]:
    """Render prepared HTML in the sandbox and cut it into EDGAR pages, each with its HTML tables; the
    seconds since ``started`` (preparation included)."""
    with tempfile.TemporaryDirectory(prefix="secplat-render-") as workdir:
        rendered = render_pdf(prepared.html, workdir, timeout=options.timeout_s, memory_mb=options.memory_mb)
    render_s = time.perf_counter() - started
    paged = page_pdf(rendered.pdf, prepared.page_breaks, rendered=True)
    if paged.page_basis == "edgar":
        for p in paged.pages:
            p.tables = prepared.tables.get(p.page, [])
    return rendered, paged, render_s


def html_warnings(prepared: PreparedHtml, rendered: RenderResult, paged: PagedPdf) -> list[str]:
    """What a rendered HTML document's record warns of: blocked resources, text the pages lost (the
    conservation check), bytes that were invalid in its encoding."""
    kept = conservation(prepared.visible_chars, paged)
    warnings = list(rendered.warnings) + ([kept] if kept else [])
    if prepared.replaced_bytes:
        warnings.append(f"{prepared.replaced_bytes} byte(s) invalid in {prepared.encoding}, each replaced by U+FFFD "
                        "where it stood")
    if prepared.encoding_override:
        warnings.append(f"encoding: {prepared.encoding_override}")
    return warnings


def conservation(visible_chars: int, paged: PagedPdf) -> str | None:
    """What was read (the HTML's visible characters) against what was extracted (the page text)."""
    return conserved.check(sum(conserved.visible(p.text) for p in paged.pages), visible_chars,
                           "page text holds {kept} of the HTML's {read} visible characters")


def with_llm_summary(model: TextModel | None, summary: str, cover_text: str,
                      warnings: list[str]) -> tuple[str, str]:
    """The deterministic summary, plus the LLM's sentence when one is configured (never instead of it)."""
    if model is None:
        return summary, "deterministic"
    try:
        extra = model.complete(SUMMARY_SYSTEM, f"{summary}\n\nCover page:\n{cover_text[:6000]}", max_tokens=160)
    except LlmError as exc:
        warnings.append(f"LLM summary skipped: {exc}")
        return summary, "deterministic"
    return f"{summary}\n{extra}", f"llm:{model.name}"
