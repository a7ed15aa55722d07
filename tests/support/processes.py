"""Processes as the interrupt tests see them: a `lake` held at one command line, and who is
still in a session (`/proc/<pid>/stat`: field 3 after the command name is the state, field 6
the session id)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.fakelean import FAKES


def held_lake(tmp: Path, pattern: str) -> tuple[Path, Path]:
    """A `lake` that, on a command line matching the shell ``case`` pattern, writes its pid to
    the marker and hangs; every other call is the fake lake's. (lake, marker)."""
    bin_ = tmp / "bin"
    bin_.mkdir(exist_ok=True)
    mark = tmp / "held.pid"
    lake = bin_ / "lake"
    lake.write_text(f"#!/bin/sh\ncase \"$*\" in\n  {pattern}) echo $$ > {mark}; exec sleep 600;;"
                    f"\nesac\nexec {FAKES / 'lake'} \"$@\"\n")
    lake.chmod(0o755)
    return lake, mark


def session_members(sid: int, *, zombies: bool = True) -> list[tuple[int, str]]:
    """(pid, state) of every process in session ``sid`` (zombies too unless told not)."""
    found = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                f = Path(f"/proc/{e}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(f[3]) == sid and (zombies or f[0] != "Z"):
                found.append((int(e), f[0]))
    return found
