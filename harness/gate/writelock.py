"""An exclusive advisory lock per blueprint file, held around "re-read, compare, gate, write".

Two writers of one file (two `harness prove --apply`, say) that each base their write on the text
they read earlier lose one of the two changes. Whoever writes a blueprint takes this lock
(``fcntl.flock`` on ``<workspace>/.harness/locks/<name>-<hash>.lock``), re-reads the file under it
and writes only a text derived from what it just read. The lock is advisory: a writer that does
not take it is caught by comparing the file once more right before the write.

API::

    with blueprint_write_lock(workspace, path, timeout_s=600):   # WriteLockTimeout (exit 1)
        ...
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import ExitCode, HarnessError, UsageError
from harness.workspace import harness_dir

POLL_S = 0.05


class WriteLockTimeout(HarnessError):
    """Another writer held the file's lock for longer than we were willing to wait."""

    exit_code = ExitCode.FINDINGS


def lock_file_for(workspace: Path, path: Path) -> Path:
    """One lock file per real file: the same path reached through a symlink shares it."""
    real = str(Path(path).resolve())
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:60]
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return harness_dir(workspace) / "locks" / f"{safe}-{digest}.lock"


@contextmanager
def blueprint_write_lock(workspace: Path, path: Path, *, timeout_s: float) -> Iterator[Path]:
    lock_path = lock_file_for(workspace, path)
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise UsageError(f"{lock_path}: cannot create the write lock: "
                         f"{err.strerror or err}") from None
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise WriteLockTimeout(
                        f"{path}: another writer held its lock ({lock_path}) for more than "
                        f"{timeout_s:g} s; nothing written") from None
                time.sleep(POLL_S)
        try:
            yield lock_path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)  # the file stays: unlinking a lock file others may hold open races
