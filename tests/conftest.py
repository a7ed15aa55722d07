"""Suite-wide guard: no zombie, no stray Lean-double and no Ray process may outlive the tests."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

FAKES = str(Path(__file__).resolve().parent / "fakes")
# The Lean doubles write call logs and pid files next to the test (FAKE_LEAN_LOG, …), which the
# sandbox (harness/lean/sandbox.py) would make vanish: the suite runs Lean unboxed by default and
# the sandbox's own tests (tests/lean/test_sandbox.py) switch it back on.
os.environ.setdefault("HARNESS_UNSAFE_NO_SANDBOX", "1")
RAY_TMP = "/tmp/hray"  # the test clusters' temp dirs (tests/orchestrator/ray_cluster.py)


def _processes() -> list[tuple[int, int, str, str]]:
    """(pid, ppid, state, cmdline) of every process we can see."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        rest = stat.rsplit(")", 1)[1].split()
        out.append((int(entry.name), int(rest[1]), rest[0], cmd))
    return out


def leaks() -> list[str]:
    """Zombie children, and Lean doubles that are our descendants or orphans (a session run in
    parallel by someone else keeps its own, parented processes)."""
    me = os.getpid()
    procs = _processes()
    parent = {pid: ppid for pid, ppid, _, _ in procs}

    def ours(pid: int) -> bool:
        seen = set()
        while pid > 1 and pid not in seen:
            seen.add(pid)
            pid = parent.get(pid, 0)
            if pid == me:
                return True
        return False

    found = []
    for pid, ppid, state, cmd in procs:
        if pid == me:
            continue
        if ppid == me and state == "Z":
            found.append(f"zombie child {pid}")
        elif (FAKES in cmd or RAY_TMP in cmd or cmd.startswith("ray::")) \
                and (ppid == 1 or ours(pid)):
            what = "Lean double" if FAKES in cmd else "Ray process"
            found.append(f"stray {what} {pid}: {cmd.strip()[:120]}")
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    return found


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not Path("/proc").is_dir():
        return
    found = leaks()
    if found:
        print("\nprocess leak after the test suite:\n  " + "\n  ".join(found))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
