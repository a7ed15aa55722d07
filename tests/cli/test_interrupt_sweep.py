"""The sweep: every long command under a real terminal (a pty), ^C pressed early (the CLI still
loading) and in the middle of its work → exit 130, one "harness: interrupted", no traceback, and
no process left of its session or of the Lean runs it started (their own sessions).

"Middle" is held for real where a command waits on Lean (a `lake` that hangs on one command
line: run's and doctor's toolchain probe, check's compile; index's exact pass hangs in the fake
Lean); for the readers (plan, status, graph) a 1 200-file generated project keeps them reading
for seconds; search is pressed while it builds the library index it needs.

16 runs of `python -m harness`, about 12 s in all here (so part of the suite; marker `sweep`
selects it). HARNESS_TEST_SEED varies the early moments."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from tests.library.conftest import lib_ws  # noqa: F401 - the fixture
from tests.orchestrator.support import fake_env, workspace
from tests.support.processes import held_lake, session_members
from tests.support.terminal import interrupt_in_terminal

pytestmark = pytest.mark.sweep

COMMANDS = ["run", "plan", "status", "graph", "search", "index", "check", "doctor"]


def _session_left(sid: int) -> list[str]:
    """Processes still in the command's session (pty.fork made it a session leader)."""
    return [f"{pid} {state}" for pid, state in session_members(sid)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _case(command: str, tmp: Path, lib: Path, big: Path):
    """(args, cwd, env, held-pid marker or None, a ready-in-the-middle predicate)."""
    f = workspace(tmp)
    ws = f.parent.parent
    env = fake_env({"HARNESS_UNSAFE_NO_SANDBOX": "1"})
    if command in ("run", "doctor", "check"):
        pattern = '"env lean --json"*' if command == "check" else '"env lean --version"'
        lake, mark = held_lake(tmp, pattern)
        env["HARNESS_LAKE"] = str(lake)
        args = {"run": ["run", str(f)], "doctor": ["doctor", str(ws)],
                "check": ["check", str(f)]}[command]
        return args, ws, env, mark, lambda _: mark.exists()
    if command == "index":
        m = lib / ".lake" / "packages" / "mathlib"
        (m / "Mathlib.lean").write_text("import Mathlib.Analysis.Exp\n")
        olean = m / ".lake" / "build" / "lib" / "lean" / "Mathlib.olean"
        olean.parent.mkdir(parents=True, exist_ok=True)
        olean.write_text("olean bytes")
        pidfile = tmp / "pids"
        env.update({"FAKE_EXPORT": "hang", "FAKE_LEAN_PIDFILE": str(pidfile)})
        return ["index"], lib, env, None, lambda _: pidfile.exists()
    if command == "search":  # pressed while it indexes the workspace it searches
        return ["search", "exp", "pos"], lib, env, None, lambda o: "indexing" in o
    t0 = time.monotonic()  # the readers: seconds into a 1 200-file project
    args = {"plan": ["plan", str(big)], "status": ["status", str(big)],
            "graph": ["graph", str(big), "-o", str(tmp / "g.html")]}[command]
    ready = (lambda o: "analysing" in o) if command == "graph" else (
        lambda _: time.monotonic() - t0 > 1.5)
    return args, big, env, None, ready


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    from harness.blueprint.genproject import generate_project

    root = tmp_path_factory.mktemp("big")
    generate_project(root, n_files=1200, nodes_per_file=6, seed=3)
    return root


@pytest.mark.parametrize("when", ["early", "middle"])
@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_is_130_one_line_and_leaves_nothing_running(command, when, tmp_path, big,
                                                           request) -> None:
    lib = request.getfixturevalue("lib_ws") if command in ("search", "index") else tmp_path
    args, cwd, env, mark, middle = _case(command, tmp_path / "case", lib, big)
    seed = os.environ.get("HARNESS_TEST_SEED", "0")
    delay = random.Random(f"{command}{seed}").uniform(0.05, 0.6)
    for _try in range(4):  # an early moment after a fast machine's answer: press sooner
        if when == "early":  # the interpreter and the CLI still loading
            t0 = time.monotonic()
            ready = lambda _, t0=t0, d=delay: time.monotonic() - t0 > d  # noqa: E731
        else:
            ready = middle
        pid_box: list[int] = []
        out = interrupt_in_terminal(args, cwd=cwd, env=env, ready=ready, timeout=120,
                                    on_start=pid_box.append)
        if out.pressed or when != "early":
            break
        assert out.status == 0 and "Traceback" not in out.output, out.output[-2000:]
        delay /= 3
    assert out.pressed, f"{command} ended before ^C: {out.output[-500:]}"
    assert out.status == 130, out.output[-2000:]
    assert "Traceback" not in out.output and "Exception ignored" not in out.output, out.output
    assert out.output.count("harness: interrupted") == 1, out.output[-2000:]
    deadline = time.monotonic() + 10
    while (_session_left(pid_box[0]) or (mark and mark.exists()
                                         and _alive(int(mark.read_text())))) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_left(pid_box[0]) == []
    assert not (mark and mark.exists() and _alive(int(mark.read_text()))), "Lean left running"
