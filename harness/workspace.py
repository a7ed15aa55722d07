"""Locating the Lake workspace a blueprint file belongs to."""

from __future__ import annotations

from pathlib import Path

LAKEFILES = ("lakefile.lean", "lakefile.toml")


def find_workspace(path: Path) -> Path:
    """The nearest directory at or above ``path`` holding a lakefile; else the file's directory."""
    start = path.resolve()
    if start.is_file() or not start.exists():
        start = start.parent
    for d in (start, *start.parents):
        if any((d / f).is_file() for f in LAKEFILES):
            return d
    return start


def harness_dir(workspace: Path) -> Path:
    """Where the harness keeps its state for a workspace (runs, temporary check files)."""
    return workspace / ".harness"
