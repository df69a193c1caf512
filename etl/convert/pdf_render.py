"""HTML to PDF with wkhtmltopdf (command line built by pdfkit), run in a sandbox.

pdfkit builds the wkhtmltopdf command from options; we run it ourselves because pdfkit's own runner has
no timeout, no memory cap and no way to cut the network. The sandbox:

* ``--disable-local-file-access`` and ``--disable-javascript``; the HTML arrives on stdin, so relative
  URLs have no base to resolve against;
* every network load goes to a proxy on a closed loopback port, and when the kernel allows it the process
  runs in its own network namespace (``unshare -n``) with no interface up at all;
* a wall-clock timeout (the whole process group is killed) and an address-space cap (RLIMIT_AS).

wkhtmltopdf exits 1 when it blocked a resource (e.g. ``ProtocolUnknownError``) yet wrote the PDF: that is
a warning returned with the result, not a failure.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
from dataclasses import dataclass, field

import pdfkit

DEFAULT_OPTIONS = {
    "encoding": "utf-8",
    "page-size": "A4",
    "margin-top": "0",
    "margin-bottom": "0",
    "margin-left": "0",
    "margin-right": "0",
    "disable-local-file-access": None,
    "disable-javascript": None,
    "disable-external-links": None,
    "disable-internal-links": None,
    "proxy": "http://127.0.0.1:9",  # the discard port: nothing listens, every fetch fails at once
    "load-error-handling": "ignore",
    "load-media-error-handling": "ignore",
    "quiet": None,
}


class RenderError(RuntimeError):
    """wkhtmltopdf produced no usable PDF."""


@dataclass
class RenderResult:
    pdf: bytes
    warnings: list[str] = field(default_factory=list)
    sandboxed_network: bool = False


def wkhtmltopdf_binary() -> str:
    path = os.environ.get("WKHTMLTOPDF") or shutil.which("wkhtmltopdf")
    if not path:
        raise RenderError("wkhtmltopdf is not installed (make install puts Debian's package in place)")
    return path


@functools.lru_cache(maxsize=1)
def network_namespace_available() -> bool:
    unshare = shutil.which("unshare")
    if not unshare:
        return False
    try:
        return subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def build_command(output: str, options: dict | None = None) -> list[str]:
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    config = pdfkit.configuration(wkhtmltopdf=wkhtmltopdf_binary())
    kit = pdfkit.PDFKit("", "string", options={k: ("" if v is None else v) for k, v in opts.items()},
                        configuration=config)
    return [arg for arg in kit.command(output) if arg != ""]


def render_pdf(html: bytes, workdir: str, *, timeout: float = 180.0, memory_mb: int = 4096,
               options: dict | None = None) -> RenderResult:
    """Render UTF-8 HTML to PDF bytes inside the sandbox."""
    out = os.path.join(workdir, "out.pdf")
    cmd = build_command(out, options)
    sandboxed = network_namespace_available()
    if sandboxed:
        cmd = [shutil.which("unshare") or "unshare", "-n", *cmd]
    limit = memory_mb * 1024 * 1024

    def limits() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "XDG_RUNTIME_DIR": workdir, "HOME": workdir,
           "QT_QPA_PLATFORM": "offscreen", "LANG": "C.UTF-8"}
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=workdir, env=env, preexec_fn=limits)
    try:
        _, stderr = proc.communicate(html, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RenderError(f"wkhtmltopdf timed out after {timeout:g}s") from None
    message = " ".join(line for line in stderr.decode("utf-8", "replace").splitlines()
                       if line.strip() and "XDG_RUNTIME_DIR" not in line)[:500]
    if proc.returncode < 0:
        raise RenderError(f"wkhtmltopdf killed by signal {-proc.returncode} (memory cap {memory_mb} MB?) {message}")
    if not os.path.exists(out) or os.path.getsize(out) == 0:
        raise RenderError(f"wkhtmltopdf exited {proc.returncode} without a PDF: {message or 'no message'}")
    warnings = []
    if proc.returncode != 0:
        warnings.append(f"wkhtmltopdf exit {proc.returncode} (blocked resource, PDF written): {message}")
    with open(out, "rb") as fh:
        pdf = fh.read()
    os.unlink(out)
    return RenderResult(pdf=pdf, warnings=warnings, sandboxed_network=sandboxed)
