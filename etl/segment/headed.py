"""Documents without SEC Item headings, divided by their own (a release's sections, an annual report's
Items): each section runs from the first heading line of its kind to the next section's, and what comes
before the first is the lead section, so every character stays in a span. The callers say which headings
are theirs (``release_sections``, ``annual_report``)."""

from __future__ import annotations

import re
from collections.abc import Callable

from etl.segment.items import ItemSpan, Position

# (key, heading line, the line after it, the rest of its page, where it starts) -> whether it opens ``key``
Accept = Callable[[str, str, str, str, Position], bool]


def headed_spans(pages: list[str], patterns: list[tuple[str, re.Pattern]], max_chars: int, accept: Accept,
                 lead: ItemSpan, title: Callable[[str], str]) -> list[ItemSpan]:
    """``lead`` (its start and end set here) and, in text order, one span per key whose pattern opens a
    heading line (at most ``max_chars``) that ``accept`` takes: the first such line of each key."""
    end = Position(len(pages) - 1, len(pages[-1])) if pages else Position(0, 0)
    starts: dict[str, tuple[Position, str]] = {}
    for page, text in enumerate(pages):
        lines = text.split("\n")
        offset = 0
        for n, line in enumerate(lines):
            heading = line.strip()
            if heading and len(heading) <= max_chars:
                at, following, after = Position(page, offset), lines[n + 1] if n + 1 < len(lines) else "", None
                for key, pattern in patterns:
                    if key not in starts and pattern.match(heading):
                        after = text[offset + len(line):] if after is None else after
                        if accept(key, heading, following, after, at):
                            starts[key] = (at, heading)
                            break
            offset += len(line) + 1
    found = sorted(starts.items(), key=lambda kv: kv[1][0])
    lead.start, lead.end = Position(0, 0), found[0][1][0] if found else end
    spans = [lead]
    for n, (key, (pos, heading)) in enumerate(found):
        spans.append(ItemSpan(key, title(key), pos, found[n + 1][1][0] if n + 1 < len(found) else end, heading))
    return spans
