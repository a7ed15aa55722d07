"""run.py: timeouts kill the whole process group and reap it; the memory cap bites."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from harness.lean.run import run
from tests.support.fakelean import FAKE_LAKE, fake_env, make_workspace


def _state(pid: int) -> str | None:
    """Process state letter from /proc (None: no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _wait_dead(pid: int, deadline_s: float = 20.0) -> str | None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        st = _state(pid)
        if st in (None, "Z", "X"):
            return st
        time.sleep(0.05)
    return _state(pid)


def test_plain_run(tmp_path: Path) -> None:
    res = run([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"],
              cwd=tmp_path, timeout_s=60)
    assert res.ok and res.stdout == "out\n" and res.stderr == "err\n" and not res.timed_out
    missing = run([str(tmp_path / "nope")], cwd=tmp_path, timeout_s=5)
    assert missing.returncode == 127 and "cannot run" in missing.stderr


def test_timeout_kills_whole_group_and_leaves_no_zombie(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, {"H.lean": "theorem h : 1 = 1 := by\n  fake_hang\n"})
    pidfile = tmp_path / "pids"
    env = fake_env(FAKE_LEAN_PIDFILE=str(pidfile))
    res = run([str(FAKE_LAKE), "env", "lean", "--json", "H.lean"], cwd=ws, timeout_s=3, env=env,
              mem_mb=None)
    assert res.timed_out and res.returncode is None and not res.memory_exceeded
    assert pidfile.exists(), "the fake lean reached its hang and spawned a grandchild"
    lean_pid, grandchild = map(int, pidfile.read_text().split())
    # `lake env lean` execs lean in place, so lean is our direct child: reaped by run()
    assert _state(lean_pid) is None
    with_children = os.waitpid(-1, os.WNOHANG) if _has_children() else (0, 0)
    assert with_children == (0, 0)
    # the grandchild was in the same process group: killed (its reaping is init's job)
    assert _wait_dead(grandchild) in (None, "Z", "X")


def _has_children() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def test_memory_cap_is_enforced(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, {"M.lean": "theorem m : 1 = 1 := by\n  fake_oom\n"})
    res = run([str(FAKE_LAKE), "env", "lean", "--json", "M.lean"], cwd=ws, timeout_s=60,
              mem_mb=300, env=fake_env())
    assert res.returncode == 1 and res.memory_exceeded and not res.timed_out
    assert "out of memory" in res.stderr


def test_crash_is_not_mistaken_for_memory(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, {"C.lean": "theorem c : 1 = 1 := by\n  fake_crash\n"})
    res = run([str(FAKE_LAKE), "env", "lean", "--json", "C.lean"], cwd=ws, timeout_s=60,
              env=fake_env())
    assert res.returncode == 134 and "PANIC" in res.stderr and not res.memory_exceeded
