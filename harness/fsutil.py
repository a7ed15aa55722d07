"""Atomic file replacement: a reader (or a process killed mid-write) sees the old file or the new
one, never half of one. Used for every file the harness writes over: results, locks, the
record's working file, the graph, `prove --apply`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Write a temporary file beside ``path``, then rename it over ``path``.

    ``durable`` also fsyncs the file and its directory (the rename survives a power cut);
    without it the write is still atomic for readers and against kill -9. Text is written as
    UTF-8 exactly as given (no newline translation).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        try:
            dfd = os.open(path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)
