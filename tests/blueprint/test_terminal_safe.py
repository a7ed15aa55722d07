"""Labels and names from a blueprint reach the terminal without their escapes (a label may carry
ESC sequences that clear the screen or rewrite what a reviewer reads)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVIL = "lem:\x1b[2Jx\u202e"


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                                "PATH": "/usr/bin:/bin"})


def test_plan_and_status_print_no_escape(tmp_path: Path) -> None:
    f = tmp_path / "E.lean"
    f.write_text(f'@[blueprint "{EVIL}"]\ntheorem t : True := by\n  sorry\n'
                 f'@[blueprint "lem:y" (uses := ["{EVIL}", "lem:nowhere\x1b]0;t\x07"])]\n'
                 'theorem y : True := by\n  sorry\n', encoding="utf-8")
    for cmd in ("plan", "status"):
        r = harness(cmd, str(f), cwd=tmp_path)
        assert r.returncode in (0, 1), r.stderr
        out = r.stdout + r.stderr
        assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
        assert "\\x1b[2Jx" in out  # shown, not sent
