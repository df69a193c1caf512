"""Named points in long writes where a test may kill the process (SIGKILL, as a crash or an OOM kill would).

``point("publish:loaded documents")`` does nothing unless the environment asks: ``SECPLAT_FAULT_TRACE``
names a file each point passed is appended to (how a test finds every write point of a real run), and
``SECPLAT_KILL_AT`` names the point at which the process kills itself. Nothing else reads these variables.
"""

from __future__ import annotations

import os
import signal

KILL_AT = "SECPLAT_KILL_AT"
TRACE = "SECPLAT_FAULT_TRACE"


def point(name: str) -> None:
    trace = os.environ.get(TRACE)
    if trace:
        with open(trace, "a", encoding="utf-8") as fh:
            fh.write(name + "\n")
    if os.environ.get(KILL_AT) == name:
        os.kill(os.getpid(), signal.SIGKILL)
