"""Shared output helpers: JSON on stdout for machines, rich on stderr/stdout for people."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from harness.gate.sanitize import printable


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout (pydantic models and dataclasses welcome)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False, default=_default)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _default(o: Any) -> Any:
    if hasattr(o, "model_dump"):
        return o.model_dump(mode="json")
    if hasattr(o, "value"):
        return o.value
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    return str(o)


# Not a terminal (a pipe, a file, CI): plain text, and wide enough that tables are not cut.
PLAIN_WIDTH = 200


class SafeConsole(Console):
    """A rich Console whose printed strings cannot carry terminal escapes: labels, names and Lean
    messages come from user files (rich itself strips only BEL/BS/VT/FF/CR; see
    harness/gate/sanitize.py). Tables fill their cells through :func:`safe`."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(printable(o) if isinstance(o, str) else o for o in objects), **kwargs)


def safe(text: Any) -> str:
    """A value from user input, made printable (for plain `print` and ``markup=False``)."""
    return printable(str(text))


def esc(text: Any) -> str:
    """A value from user input inside rich markup (a table cell, an f-string with `[bold]`):
    printable, and its brackets are text (a label `lem:[/draft]` crashed `plan` with a
    MarkupError; `[a, b]` in a docstring vanished)."""
    return escape(printable(str(text)))


def console() -> Console:
    """Console for human output on stdout (plain text when not a terminal)."""
    c = SafeConsole(highlight=False, soft_wrap=True)
    if not c.is_terminal:
        c = SafeConsole(highlight=False, soft_wrap=True, width=PLAIN_WIDTH)
    return c


def err_console() -> Console:
    c = SafeConsole(stderr=True, highlight=False, soft_wrap=True)
    if not c.is_terminal:
        c = SafeConsole(stderr=True, highlight=False, soft_wrap=True, width=PLAIN_WIDTH)
    return c


LIST_LIMIT = 20  # a long listing shows this many, then says how many more (`--all`: all)


def clipped(items: list[str], limit: int | None, sep: str = ", ") -> str:
    """``items`` joined, cut after ``limit`` (None: all) with a count of the rest."""
    if limit is None or len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + f"{sep}… (+{len(items) - limit} more)"
