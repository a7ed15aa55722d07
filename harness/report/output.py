"""Shared output helpers: JSON on stdout for machines, rich on stderr/stdout for people."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console


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


def console() -> Console:
    """Console for human output on stdout (plain text when not a terminal)."""
    c = Console(highlight=False, soft_wrap=True)
    if not c.is_terminal:
        c = Console(highlight=False, soft_wrap=True, width=PLAIN_WIDTH)
    return c


def err_console() -> Console:
    c = Console(stderr=True, highlight=False, soft_wrap=True)
    if not c.is_terminal:
        c = Console(stderr=True, highlight=False, soft_wrap=True, width=PLAIN_WIDTH)
    return c
