"""The wire format of our own Lean programs (``gate/lean/AuditModule.lean``,
``library/lean/ExportDecls.lean``): one JSON object per line, the last one ``{"done": N}`` with N
the number of records, so an answer cut short is told from a complete one. One reader for a
captured text and for a stream; what a record means is the caller's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple


class Line(NamedTuple):
    n: int  # 1-based, blank lines counted: the number an editor shows
    text: str  # stripped
    obj: dict[str, Any] | None  # None: not a JSON object (garbage, or a piece of a long line)


def read_lines(lines: Iterable[str | bytes]) -> Iterator[Line]:
    """The non-blank lines of the output, each parsed; bytes are decoded as UTF-8 (invalid
    bytes replaced: they make the line garbage, not the reader crash)."""
    for n, raw in enumerate(lines, 1):
        text = (raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw).strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        yield Line(n, text, obj if isinstance(obj, dict) else None)


def done_count(obj: dict[str, Any]) -> int | None:
    """N for the closing ``{"done": N}`` line, None for any other object; ValueError when N is
    not a count."""
    if set(obj) != {"done"}:
        return None
    n = obj["done"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"`done` is not a count: {n!r}")
    return n
