"""SIGTERM unwinds like Ctrl-C: Lean is killed with its process group, scratch files go away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.fakelean import FAKES, fake_env, make_workspace

ROOT = Path(__file__).resolve().parents[2]
HANG = "theorem h : True := by\n  fake_hang\n"


def fakes_alive(marker: str) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                cmd = (p / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if str(FAKES) in cmd and marker in cmd:
                out.append(int(p.name))
    return out


def test_sigterm_kills_lean_and_cleans_up(tmp_path):
    ws = make_workspace(tmp_path, {"Hang.lean": HANG})
    env = fake_env(base={**os.environ, "PYTHONPATH": str(ROOT)})
    proc = subprocess.Popen([sys.executable, "-m", "harness", "check", str(ws / "Hang.lean"),
                             "--timeout", "60"], cwd=ws, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 30
    seen = 0  # the fake lake execs the fake lean: wait until Lean is up for a few polls
    while seen < 3 and time.monotonic() < deadline and proc.poll() is None:
        seen = seen + 1 if fakes_alive("Hang-") else 0
        time.sleep(0.1)
    if seen < 3:
        proc.kill()
        out, err = proc.communicate(timeout=30)
        raise AssertionError(f"the fake Lean never started: rc={proc.returncode} {err}")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.strip() == "harness: terminated" and "Traceback" not in err
    deadline = time.monotonic() + 10
    while fakes_alive("Hang-") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fakes_alive("Hang-") == []
    assert list((ws / ".harness" / "tmp").glob("*.lean")) == []
