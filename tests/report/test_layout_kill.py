"""A layout child that outlives its SIGKILL (issue: `communicate()` after `killpg` had no
timeout): a process that left the group keeps the output pipe open, so reading to EOF would wait
for it. The wait is bounded; the layout falls back to the layered engine and says why. Real
subprocesses: a fake `dot` whose grandchild starts its own session (setsid)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from harness.report import layout as layout_mod
from harness.report.layout import StuckChild, layout
from harness.report.layoutdata import NodeBox

pytestmark = pytest.mark.skipif(shutil.which("setsid") is None, reason="no `setsid` (util-linux)")


def _escaping_dot(tmp: Path) -> tuple[Path, Path]:
    """A `dot` that never answers; its background `sleep` has its own session (out of reach of
    the group's SIGKILL) and inherits stdout/stderr. Returns (script, the sleep's pid file)."""
    pid = tmp / "escaped.pid"
    dot = tmp / "dot"
    dot.write_text(f"#!/bin/sh\necho $$ > {tmp / 'child.pid'}\nsetsid sleep 300 &\n"
                   f"echo $! > {pid}\nexec sleep 300\n")
    dot.chmod(0o755)
    return dot, pid


def _reap(pid_file: Path) -> None:
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _in_thread(fn):
    """Run ``fn`` with a hang guard: a regression hangs for the escaped sleep's 300 s."""
    out: dict = {}

    def go() -> None:
        try:
            out["value"] = fn()
        except BaseException as err:  # noqa: BLE001 — handed to the test
            out["error"] = err

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(120)
    assert not t.is_alive(), "the layout still waits on a pipe held by an escaped process"
    return out


def test_run_gives_up_on_a_pipe_held_after_sigkill(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(layout_mod, "KILL_WAIT_S", 0.5)
    dot, pid = _escaping_dot(tmp_path)
    try:
        out = _in_thread(lambda: layout_mod._run(str(dot), b"digraph {}", 2.0))
        assert isinstance(out.get("error"), StuckChild), out
        assert out["error"].timeout == 2.0
        escaped = int(pid.read_text())
        os.kill(escaped, 0)  # the escaped process is alive: the pipe really was held
    finally:
        _reap(pid)
    assert _gone(tmp_path / "child.pid")  # the direct child was killed and reaped


def test_layout_falls_back_and_says_why(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(layout_mod, "KILL_WAIT_S", 0.5)
    dot, pid = _escaping_dot(tmp_path)
    monkeypatch.setenv("HARNESS_DOT", str(dot))
    boxes = [NodeBox(k, 50.0, 28.0) for k in "abc"]
    try:
        out = _in_thread(lambda: layout(boxes, [("a", "b"), ("b", "c")], timeout_s=2.0))
    finally:
        _reap(pid)
    lay = out.get("value")
    assert lay is not None, out
    assert lay.engine == "layered" and set(lay.centres) == {"a", "b", "c"}
    assert "timed out after 2 s" in lay.note and "after SIGKILL" in lay.note, lay.note


def test_plain_timeout_still_reaps_the_whole_group(tmp_path, monkeypatch) -> None:
    """No escape: the group dies with SIGKILL, the pipes close, a plain TimeoutExpired."""
    monkeypatch.setattr(layout_mod, "KILL_WAIT_S", 0.5)
    dot = tmp_path / "dot"
    dot.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'child.pid'}\n"
                   f"sleep 300 &\necho $! > {tmp_path / 'bg.pid'}\nexec sleep 300\n")
    dot.chmod(0o755)
    out = _in_thread(lambda: layout_mod._run(str(dot), b"digraph {}", 1.0))
    err = out.get("error")
    assert isinstance(err, subprocess.TimeoutExpired) and not isinstance(err, StuckChild), out
    assert _gone(tmp_path / "child.pid")  # killed and reaped
    assert _gone(tmp_path / "bg.pid", reaped=False)  # killed with its group


def _gone(pid_file: Path, reaped: bool = True) -> bool:
    """The process is gone: no /proc entry (reaped); ``reaped=False``: dead, a zombie until
    its parent (here init, the script's background job) collects it, is gone too."""
    try:
        stat = Path(f"/proc/{int(pid_file.read_text())}/stat").read_text()
    except FileNotFoundError:
        return True
    return not reaped and stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
