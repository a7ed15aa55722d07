"""Stopping a run on an interrupt (Ctrl-C, or SIGTERM turned into KeyboardInterrupt by the CLI).

Lean runs are children started by :mod:`harness.lean.run` in their own session (so their own
process group). Attempt and gate threads wait on them; a KeyboardInterrupt only reaches the main
thread, so without help those threads — and the Lean trees under them — would run to their
timeouts while the run waits to shut its pools down. :func:`abort` kills every child process
group of this process, repeatedly (a thread may start its next Lean check after the first kill),
until the threads report idle, within a bound. :func:`shield` ignores further SIGINT/SIGTERM
while the run cleans up (a second Ctrl-C must not skip releasing the lock).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

ABORT_S = 15.0  # how long to keep killing Lean runs while the threads wind down


def _procs() -> list[tuple[int, list[str]]]:
    """(pid, stat fields after the command name) of every visible process."""
    out: list[tuple[int, list[str]]] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for e in entries:
        if e.isdigit():
            try:
                out.append((int(e), Path(f"/proc/{e}/stat").read_text().rsplit(")", 1)[1]
                            .split()))
            except (OSError, IndexError):
                continue
    return out


def child_groups() -> list[int]:
    """PIDs of our children that lead their own session (the Lean runs; not git's pipes)."""
    me = os.getpid()
    return [pid for pid, f in _procs()
            if int(f[1]) == me and int(f[3]) == pid and f[0] != "Z"]


_killed: set[int] = set()  # process groups killed by this process


def kill_children() -> int:
    n = 0
    for pid in child_groups():
        try:
            os.killpg(pid, signal.SIGKILL)
            _killed.add(pid)
            n += 1
        except (ProcessLookupError, PermissionError):
            pass
    return n


def _group_left() -> bool:
    """A process of a killed group still running (e.g. a grandchild not yet gone)."""
    return any(int(f[2]) in _killed and f[0] != "Z" for _, f in _procs())


def abort(busy: Callable[[], bool], timeout_s: float = ABORT_S) -> bool:
    """Kill Lean runs until ``busy()`` is False (the threads finished) and the killed groups
    are gone; False on timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        kill_children()
        if not busy() and not _group_left():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


_saved: dict[int, Any] = {}


def stop_interrupted(executor: Any) -> None:
    """After an interrupt in stage 2 (which killed the Lean runs): ignore further signals, wait
    briefly for the attempt threads, and shut the executor down without waiting for more."""
    shield()
    if getattr(executor, "remote", False):  # its attempts run elsewhere (Ray): nothing here to
        executor.abort()  # wait for; cancel them now (their node kills their Lean runs)
        return
    if not abort(lambda: executor.running() > 0):
        getattr(executor, "abort", executor.shutdown)()
    else:
        executor.shutdown()


def shield() -> None:
    """Ignore SIGINT/SIGTERM until :func:`unshield` (main thread only; idempotent)."""
    if threading.current_thread() is not threading.main_thread() or _saved:
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            _saved[sig] = signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def unshield() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    while _saved:
        sig, handler = _saved.popitem()
        try:
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, OSError, TypeError):
            pass
