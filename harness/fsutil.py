"""Atomic file replacement: a reader (or a process killed mid-write) sees the old file or the new
one, never half of one. Used for every file the harness writes over: results, locks, the
record's working file, the graph, `prove --apply`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from harness.errors import UsageError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def user_output(path: Path) -> Path:
    """A file the user named (``-o``): its directory must exist already. A typo in the path must
    not create a directory tree (as cp, tar, curl -o and gcc -o refuse); checked before any work,
    so a long analysis does not end in "cannot write". Internal files (``.harness/…``) go through
    :func:`atomic_write`, which creates their directories."""
    parent = path.parent
    if not parent.is_dir():
        why = (f"{parent} is not a directory" if parent.exists()
               else f"directory {parent} does not exist (create it first)")
        raise UsageError(f"{path}: cannot write: {why}")
    return path


def atomic_write(path: Path | str, data: str | bytes, *, durable: bool = True) -> None:
    """Write a temporary file beside the target, then rename it over the target.

    - a symlink is written through: its target is replaced, the link stays;
    - an existing file keeps its permission bits; a new one gets 0666 minus the umask;
    - ``durable`` also fsyncs the file and its directory (the rename survives a power cut);
      without it the write is still atomic for readers and against kill -9;
    - text is written as UTF-8 exactly as given (no newline translation);
    - a path that cannot be written raises UsageError (``PATH: cannot write: reason``, exit 2).
    """
    shown = Path(path)
    target = Path(os.path.realpath(shown))
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as err:
        raise UsageError(f"{shown}: cannot write: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{shown}: cannot write: {err.strerror or err}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        try:
            dfd = os.open(target.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)
