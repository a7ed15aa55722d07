"""A command under a real terminal (a pty), and ^C pressed on it.

``pty.fork()`` gives the child its own session with the pty as controlling terminal, so the
child is the terminal's foreground process group. Writing ``\\x03`` to the master makes the tty
driver send SIGINT to that whole group — the harness and every child left in its group — as a
user's ^C does (not a signal to one pid).
"""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass
class TerminalRun:
    status: int  # os.waitstatus_to_exitcode: the exit code, or -signal
    output: str  # everything the terminal showed (stdout and stderr)
    pressed: bool  # ^C was pressed (``ready`` became true before the command ended)


def _read(fd: int, wait: float) -> bytes | None:
    """What the pty has; b"" when nothing came within ``wait``; None at its end (EIO)."""
    r, _, _ = select.select([fd], [], [], wait)
    if not r:
        return b""
    try:
        return os.read(fd, 65536) or None
    except OSError:  # Linux: EIO once the slave side is closed
        return None


def interrupt_in_terminal(args: list[str], *, cwd: Path, env: dict[str, str],
                          ready: Callable[[str], bool], timeout: float = 120,
                          keys: bytes = b"\x03",
                          on_start: Callable[[int], None] | None = None) -> TerminalRun:
    """Run ``python -m harness ARGS`` in a pty; press ``keys`` once ``ready(output so far)``;
    wait for it to end. The child is killed (and the test fails) after ``timeout`` seconds."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a shell's job would have the default SIGINT disposition
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "harness", *args], env)
        finally:
            os._exit(127)
    if on_start is not None:  # the child's pid: also its session's and process group's id
        on_start(pid)
    buf, pressed, status = b"", False, None
    deadline = time.monotonic() + timeout
    try:
        while status is None and time.monotonic() < deadline:
            chunk = _read(fd, 0.05)
            buf += chunk or b""
            if not pressed and ready(buf.decode("utf-8", "replace")):
                os.write(fd, keys)
                pressed = True
            wpid, st = os.waitpid(pid, os.WNOHANG)
            if wpid:
                status = os.waitstatus_to_exitcode(st)
        while (chunk := _read(fd, 0.2)):  # what it printed last
            buf += chunk
        if status is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            raise AssertionError(f"still running after {timeout} s:\n"
                                 + buf.decode("utf-8", "replace")[-3000:])
    finally:
        os.close(fd)
    return TerminalRun(status=status, output=buf.decode("utf-8", "replace"), pressed=pressed)
