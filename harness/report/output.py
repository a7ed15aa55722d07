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


def console() -> Console:
    """Console for human output on stdout (plain text when not a terminal)."""
    return Console(highlight=False, soft_wrap=True)


def err_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)
