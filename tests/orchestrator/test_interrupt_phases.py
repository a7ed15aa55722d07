"""A ^C or SIGTERM at any phase of `run`, before its session has started too (reading the
blueprint, the preflight, LeanArchitect's edges, taking the lock), leaves `result.json` saying
the run was interrupted and in which phase: exit 130 / 143, one line, no traceback, nothing
merged, no child left (harness/orchestrator/runguard.py).

The process is held at a phase for real: a `lake` in front of the fake one (tests/fakes) that
hangs on one command line, or a project big enough to take a second to read. A ^C is pressed on
a pty (the tty driver signals the whole foreground process group); SIGTERM goes to the whole
process group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.orchestrator.state import run_dir
from tests.orchestrator.support import FAKES, fake_env, workspace
from tests.support.processes import held_lake
from tests.support.terminal import interrupt_in_terminal

PREFLIGHT = '"env lean --version"'  # the toolchain probe of the preflight
EDGES = '"build :blueprintJson"'  # LeanArchitect's edges, after the preflight
STAGE1 = '"env lean --json .harness/tmp/Demo-"*'  # stage 1's compile of the record


def _env(lake: Path) -> dict[str, str]:
    return fake_env({"HARNESS_LAKE": str(lake), "HARNESS_UNSAFE_NO_SANDBOX": "1"})


def _gone(pid: int) -> bool:
    """Dead (a zombie is dead: its parent, the harness, has exited, init reaps it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _setup(tmp: Path, pattern: str) -> tuple[Path, Path, Path, Path]:
    f = workspace(tmp)
    ws = f.parent.parent
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["omega"]\n')
    lake, mark = held_lake(tmp, pattern)
    return f, ws, lake, mark


def _result(ws: Path, target: Path) -> dict:
    d = run_dir(ws, target)
    assert not (d / "lock.json").exists()  # released
    assert [p.name for p in d.glob(".*.tmp")] == []  # nothing half-written
    return json.loads((d / "result.json").read_text())


def _one_line(output: str, word: str = "interrupted") -> None:
    assert "Traceback" not in output, output
    assert output.count(f"harness: {word}") == 1, output
    assert output.rstrip().endswith(f"harness: {word}"), output[-500:]


def _pressed_at(args: list[str], ws: Path, env: dict[str, str], mark: Path):
    out = interrupt_in_terminal(args, cwd=ws, env=env, ready=lambda _: mark.exists(),
                                timeout=90)
    held = int(mark.read_text()) if mark.exists() else None
    deadline = time.monotonic() + 10
    while held is not None and not _gone(held) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert held is None or _gone(held), "the held lake was left running"
    return out


@pytest.mark.parametrize("pattern,phase,target", [
    (PREFLIGHT, "preflight", "file"),
    (EDGES, "reading LeanArchitect's dependencies (lake build :blueprintJson)", "file"),
    (PREFLIGHT, "preflight", "project"),
])
def test_ctrl_c_before_the_session_leaves_the_record(tmp_path, pattern, phase, target) -> None:
    f, ws, lake, mark = _setup(tmp_path, pattern)
    t = f if target == "file" else f.parent  # a directory: the project run
    out = _pressed_at(["run", str(t)], ws, _env(lake), mark)
    assert out.pressed and out.status == 130, out.output
    _one_line(out.output)
    res = _result(ws, t)
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == 130
    assert res["phase"] == phase
    assert res["final_commit"] is None and "nothing was merged" in res["notes"][0]
    assert not (ws / ".git").exists()  # no repository, no commit made
    # the next run is not held back by the interrupted one: it runs (and proves) as usual
    lake.write_text(f"#!/bin/sh\nexec {FAKES / 'lake'} \"$@\"\n")
    again = subprocess.run([sys.executable, "-m", "harness", "run", str(t), "--json"], cwd=ws,
                           env=_env(lake), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["counts"]["proved"] == 14


def test_ctrl_c_while_reading_a_big_project_leaves_the_record(tmp_path) -> None:
    from harness.blueprint.genproject import generate_project

    root = tmp_path / "gen"
    generate_project(root, n_files=600)  # about a second and a half to read
    out = interrupt_in_terminal(["run", str(root)], cwd=root, env=fake_env(),
                                ready=lambda o: "reading the blueprint" in o, timeout=90)
    assert out.pressed and out.status == 130, out.output
    _one_line(out.output)
    res = _result(root, root)
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == 130
    assert res["phase"] == "reading the blueprint"


def test_sigterm_to_the_group_in_the_preflight_is_143_with_the_record(tmp_path) -> None:
    f, ws, lake, mark = _setup(tmp_path, PREFLIGHT)
    p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(f), "--json"], cwd=ws,
                         env=_env(lake), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), p.communicate()
        os.killpg(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 143, err
    assert err.strip() == "harness: terminated"
    res = _result(ws, f)
    assert json.loads(out) == res  # --json: the record on stdout, as a session's is
    assert res["exit_code"] == 143 and res["phase"] == "preflight"
    assert _gone(int(mark.read_text()))


def test_an_interrupt_in_stage_1_keeps_its_phase_and_the_next_one_keeps_the_nodes(
        tmp_path) -> None:
    """Inside the session its own record says the phase; a later interrupt before the session
    keeps what that record knew (the nodes, the sessions) and says where it stopped."""
    f, ws, lake, mark = _setup(tmp_path, STAGE1)
    out = _pressed_at(["run", str(f), "--plain"], ws, _env(lake), mark)
    assert out.status == 130, out.output
    _one_line(out.output)
    first = _result(ws, f)
    assert first["phase"] == "stage 1" and first["counts"]["open"] == 14
    mark.unlink()
    lake, mark = held_lake(tmp_path, PREFLIGHT)
    out = _pressed_at(["run", str(f), "--plain"], ws, _env(lake), mark)
    assert out.status == 130, out.output
    again = _result(ws, f)
    assert again["phase"] == "preflight" and again["stop_reason"] == "interrupted"
    assert again["nodes"] == first["nodes"] and again["sessions"] == first["sessions"]
    assert again["final_commit"] == first["final_commit"] is not None


def test_a_live_run_s_record_is_never_written_over(tmp_path) -> None:
    """Another `run` of the same file is live (it holds the run lock): the interrupted one
    writes nothing — the live run's result.json is its own."""
    import socket

    from harness.orchestrator.runguard import RunGuard
    from harness.orchestrator.state import _proc_start

    f = workspace(tmp_path)
    ws = f.parent.parent
    guard = RunGuard(ws, f)
    guard.dir.mkdir(parents=True)
    (guard.dir / "result.json").write_text("theirs")
    (guard.dir / "lock.json").write_text(json.dumps({
        "pid": os.getppid(), "host": socket.gethostname(), "start": _proc_start(os.getppid())}))
    assert guard.write(130) is None
    assert (guard.dir / "result.json").read_text() == "theirs"
    assert (guard.dir / "lock.json").exists()  # still theirs
    (guard.dir / "lock.json").unlink()  # gone: now it writes, over an unreadable record
    res = guard.write(143)
    assert res is not None and res.exit_code == 143 and res.phase == "starting"
    assert json.loads((guard.dir / "result.json").read_text())["stop_reason"] == "interrupted"
    assert not (guard.dir / "lock.json").exists()
