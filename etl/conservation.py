"""The conservation rule shared by conversion and segmentation: what a stage extracted must hold (nearly)
every visible character of what it read, or the run says so.

Below ``WARN`` the document goes on with a warning in the run report; below ``QUARANTINE`` it is
quarantined with the reason (content was lost). Both stages count non-space characters, so layout
(line breaks, table cell separators' spacing) never counts as loss.
"""

from __future__ import annotations

import re

WARN, QUARANTINE = 0.9, 0.5
_SPACE = re.compile(r"\s+")


class ContentLost(ValueError):
    """A stage kept less than QUARANTINE of what it read."""


def visible(text: str) -> int:
    """Non-space characters: what both sides of the rule count."""
    return len(_SPACE.sub("", text))


def check(kept: int, read: int, what: str) -> str | None:
    """None when ``kept`` holds at least WARN of ``read``; a warning line below it; ContentLost below
    QUARANTINE. ``what`` names the two sides, e.g. "page text holds {kept} of the HTML's {read} visible
    characters"."""
    if not read:
        return None
    share = kept / read
    message = f"{what.format(kept=f'{kept:,}', read=f'{read:,}')} ({share:.0%})"
    if share < QUARANTINE:
        raise ContentLost(f"content lost: {message}")
    return f"content may be missing: {message}" if share < WARN else None
