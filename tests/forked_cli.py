"""``secplat`` commands in processes of their own, forked from a warm server (multiprocessing's forkserver, the
CLI and the publish path imported once): each is a real process, killed by SIGKILL like any other, without
paying the imports (Great Expectations alone: about three seconds) at every kill point of a fault test. The
command's own code is the CLI's ``main``; a fault test still runs the installed ``secplat`` once, for its
trace."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PRELOAD = ["shell.cli", "shell.runner", "indexing.publish.stage", "quality.gates", "kernel.search", "great_expectations",
           "lancedb", "opensearchpy"]
_context = None


@dataclass
class Done:
    """What a forked command left: its exit code (-9: killed by SIGKILL) and its output."""

    returncode: int
    stdout: str
    stderr: str


def _server():
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
    return _context


def _main(args: list[str], env: dict, out: str, err: str) -> None:
    """The child: the environment the command would get, its output to files, its exit code as the process's."""
    os.environ.clear()
    os.environ.update(env)
    with open(out, "w") as o, open(err, "w") as e:
        os.dup2(o.fileno(), 1)
        os.dup2(e.fileno(), 2)
    from shell.cli import main

    code = main(list(args)) or 0
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run(args: list[str], env: dict, logs: Path, timeout: float = 300) -> Done:
    """``secplat ARGS`` with ``env`` in a forked process; its output is kept under ``logs``."""
    logs.mkdir(parents=True, exist_ok=True)
    n = len(list(logs.glob("*.out")))
    out, err = logs / f"{n}.out", logs / f"{n}.err"
    proc = _server().Process(target=_main, args=(args, env, str(out), str(err)))
    proc.start()
    proc.join(timeout)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
        raise subprocess.TimeoutExpired(["secplat", *args], timeout)
    return Done(proc.exitcode, out.read_text(), err.read_text())
