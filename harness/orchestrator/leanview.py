"""What Lean said about the text at hand: the clean axiom reports of the record's head.

Lean's word counts for the exact text it compiled. A `certified` event names its commit; a
node it found clean is proved at that commit only (a rewound branch brings its `sorry` back).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def clean_at(events: Iterable[dict[str, Any]], head: str | None) -> set[str]:
    """The node keys the latest certification of commit ``head`` found clean (none: empty)."""
    out: set[str] = set()
    if head is None:
        return out
    for e in events:
        if e.get("kind") == "certified" and e.get("commit") == head:
            out = set(e.get("clean", []))
        elif e.get("kind") == "reopened" and e.get("commit") == head:
            out.discard(e.get("node"))
    return out
