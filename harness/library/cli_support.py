"""What `harness index` and `harness search` share: locating the workspace, rich progress."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlite3

from harness.errors import UsageError
from harness.library.integrity import CorruptIndex
from harness.library.sources import discover
from harness.library.store import Progress, changed, index_path
from harness.workspace import LAKEFILES, find_workspace


def workspace_of(path: Path | None) -> Path:
    """The Lake workspace at or above ``path`` (default: the current directory), else exit 2."""
    start = (path or Path.cwd()).resolve()
    if path is not None and not start.exists():
        raise UsageError(f"{path}: no such file or directory")
    ws = find_workspace(start)
    if not any((ws / f).is_file() for f in LAKEFILES):
        raise UsageError(f"{path or start}: not inside a Lake workspace (no lakefile.lean or "
                         "lakefile.toml here or above); pass --workspace DIR")
    return ws


def index_stale(workspace: Path) -> bool:
    """Has a source file changed since the index was built (an edit, a new file, a package)?
    Read-only, size + mtime as a refresh compares them; no index, or an unreadable one: False
    (opening it builds it)."""
    path = index_path(workspace)
    try:
        return path.exists() and changed(path, discover(workspace), workspace)
    except (CorruptIndex, OSError, sqlite3.Error):
        return False


@contextmanager
def build_progress(enabled: bool = True) -> Iterator[Progress | None]:
    """A rich progress bar on stderr, one task per package (silent when not a terminal)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TimeElapsedColumn

    from harness.report.output import err_console

    con = err_console()
    if not con.is_terminal:
        yield None
        return
    tasks: dict[str, int] = {}
    with Bar("[bold]indexing[/] {task.description}", BarColumn(), MofNCompleteColumn(),
             TimeElapsedColumn(), console=con, transient=True) as bar:
        def progress(pkg: str, done: int, total: int) -> None:
            if pkg not in tasks:
                tasks[pkg] = bar.add_task(pkg, total=total)
            bar.update(tasks[pkg], completed=done)

        yield progress
