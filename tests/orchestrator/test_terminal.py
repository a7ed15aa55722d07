"""^C in a real terminal, `timeout -s INT` and a SIGTERM to every process: the harness exits
130 / 143 with its record, whatever its child processes made of the same signal.

Under a pty the tty driver signals the whole foreground process group: the harness, and any
child still in its group (gitpython's `git cat-file` helpers used to be; their death turned the
interrupt into a BrokenPipeError and exit 0). Real subprocesses, the fake Lean, real git."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import PY, harness
from tests.orchestrator.test_run_stops import _fake_procs
from tests.library.conftest import lib_ws  # noqa: F401 - the fixture
from tests.support.terminal import interrupt_in_terminal


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _procs_in(ws: Path, word: str) -> list[int]:
    """Live processes working in ``ws`` whose command line holds ``word``."""
    out = []
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{e}/cwd")
            cmd = Path(f"/proc/{e}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        st = _stat(int(e))
        if st and st[0] != "Z" and cwd.startswith(str(ws)) and word in cmd:
            out.append(int(e))
    return out


def _hanging(ws: Path) -> Path:
    """Every attempt hangs in the fake Lean until it is killed (no LLM: the tactic portfolio)."""
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["fake_hang"]\n')
    return ws


def _mid_run(ws: Path) -> bool:
    """Attempts hang in Lean and the record's git helpers are up: the moment to interrupt."""
    return len(_fake_procs(ws)) >= 2 and bool(_procs_in(ws, "cat-file"))


def _kill_leftovers(ws: Path) -> list[int]:
    left = _fake_procs(ws)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def _check_interrupted(ws: Path, f: Path, code: int) -> dict:
    d = run_dir(ws, f)
    res = json.loads((d / "result.json").read_text())
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == code
    assert res["phase"] == "stage 2"  # where it was stopped
    assert res["counts"] == {"proved": 0, "open": 14, "blocked": 0}
    assert (d / "report.html").is_file()
    assert not (d / "lock.json").exists()
    assert read_events(d / "events.jsonl").events[-1]["kind"] == "run_finished"
    return res


def _resume(ws: Path, f: Path) -> None:
    """The next session takes over cleanly and finishes the run."""
    (ws / "harness.toml").write_text('[tactics]\ntactics = ["omega"]\n')
    again = harness(["run", str(f), "--json"], ws)
    assert "took over a stale run lock" not in again.stdout + again.stderr
    assert again.returncode == 0, again.stderr
    res = json.loads(again.stdout)
    assert res["sessions"] == 2 and res["counts"]["proved"] == 14


def test_ctrl_c_in_a_terminal_interrupts_run(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = _hanging(f.parent.parent)
    try:
        out = interrupt_in_terminal(["run", str(f), "--plain"], cwd=ws, env=fake_env(),
                                    ready=lambda _: _mid_run(ws))
    finally:
        left = _kill_leftovers(ws)
    assert out.pressed, out.output
    assert out.status == 130, out.output
    assert "harness: interrupted" in out.output and "Traceback" not in out.output
    assert left == []
    _check_interrupted(ws, f, 130)
    _resume(ws, f)


def test_timeout_sigint_interrupts_run(tmp_path) -> None:
    """`timeout -s INT` signals its whole process group (coreutils' timeout.c: send_sig(0, …)
    unless --foreground), git helpers included."""
    f = workspace(tmp_path)
    ws = _hanging(f.parent.parent)
    p = subprocess.Popen(["timeout", "-s", "INT", "600", PY, "-m", "harness", "run", str(f),
                          "--json"], cwd=ws, env=fake_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait(lambda: _mid_run(ws), p)
        timeout_pid = p.pid
        os.kill(timeout_pid, signal.SIGINT)  # as when its time is up: it relays to the group
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        left = _kill_leftovers(ws)
    assert left == []
    assert p.returncode == 130, err
    assert json.loads(out) == _check_interrupted(ws, f, 130)
    _resume(ws, f)


def test_sigterm_to_every_process_is_a_termination(tmp_path) -> None:
    """A Slurm / Ray stop: SIGTERM to the harness and every process below it at once (git's
    helpers too, whatever group they are in)."""
    f = workspace(tmp_path)
    ws = _hanging(f.parent.parent)
    p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--json"], cwd=ws,
                         env=fake_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        _wait(lambda: _mid_run(ws), p)
        tree = [p.pid, *_procs_in(ws, "cat-file"), *_fake_procs(ws)]
        for pid in tree:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        _kill_leftovers(ws)
    assert p.returncode == 143, err
    assert "harness: terminated" in err and "Traceback" not in err
    assert json.loads(out) == _check_interrupted(ws, f, 143)
    _resume(ws, f)


def _wait(cond, p: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None and not cond():
        time.sleep(0.05)
    assert p.poll() is None and cond(), "the command ended before it was interrupted"


# ---- the other long commands under a terminal ------------------------------------------------

def _pids(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def test_ctrl_c_in_a_terminal_interrupts_prove(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = _hanging(f.parent.parent)
    before = f.read_bytes()
    try:
        out = interrupt_in_terminal(["prove", str(f), "lem:sum-to-succ", "--tactics", "--apply"],
                                    cwd=ws, env=fake_env(), ready=lambda _: bool(_fake_procs(ws)))
    finally:
        left = _kill_leftovers(ws)
    assert out.pressed and out.status == 130, out.output
    assert "harness: interrupted" in out.output and "Traceback" not in out.output
    assert left == []  # the Lean run (its own session) was killed, not left hanging
    assert f.read_bytes() == before
    assert list((ws / ".harness" / "tmp").glob("*")) == []


def test_ctrl_c_in_a_terminal_interrupts_index(lib_ws: Path, tmp_path: Path) -> None:  # noqa: F811
    """^C while Lean's exact pass runs (it hangs): 130; the next `index` builds the index."""
    m = lib_ws / ".lake" / "packages" / "mathlib"
    (m / "Mathlib.lean").write_text("import Mathlib.Analysis.Exp\n")
    olean = m / ".lake" / "build" / "lib" / "lean" / "Mathlib.olean"
    olean.parent.mkdir(parents=True)
    olean.write_text("olean bytes")
    pidfile = tmp_path / "pids"
    env = fake_env({"FAKE_EXPORT": "hang", "FAKE_LEAN_PIDFILE": str(pidfile)})
    out = interrupt_in_terminal(["index"], cwd=lib_ws, env=env,
                                ready=lambda _: bool(_pids(pidfile)))
    assert out.pressed and out.status == 130, out.output
    assert "harness: interrupted" in out.output and "Traceback" not in out.output
    assert not [p for p in _pids(pidfile) if _alive(p)]  # the hanging Lean group is gone
    env.pop("FAKE_EXPORT")
    again = subprocess.run([PY, "-m", "harness", "index", "--json"], cwd=lib_ws, env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    rep = json.loads(again.stdout)
    assert rep["decls"] > 10 and rep["exact"]["ran"]


def test_ctrl_c_in_a_terminal_interrupts_graph(tmp_path) -> None:
    from harness.blueprint.genproject import generate_project

    generate_project(tmp_path, n_files=400, nodes_per_file=8, seed=1)  # seconds of analysis
    out_file = tmp_path / "graph.html"
    out = interrupt_in_terminal(["graph", str(tmp_path), "-o", str(out_file)], cwd=tmp_path,
                                env=fake_env(), ready=lambda o: "analysing" in o)
    assert out.pressed and out.status == 130, out.output
    assert "harness: interrupted" in out.output and "Traceback" not in out.output
    assert [p.name for p in tmp_path.iterdir() if "graph" in p.name] == []  # no partial file


# ---- the CLI's exit status ---------------------------------------------------------------------

def test_broken_pipe_is_success_only_when_our_stdout_closed(tmp_path, monkeypatch, capsys) -> None:
    import harness.commands.plan as plan
    from harness.blueprint.generate import generate_blueprint
    from harness.cli import main

    # `harness plan --json | head -c 100`: the reader left early; that is a normal end
    f = workspace(tmp_path, generate_blueprint(1500, seed=2))
    p = subprocess.Popen([PY, "-m", "harness", "plan", str(f), "--json"], cwd=f.parent,
                         env=fake_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode() if p.stderr else ""
    assert p.wait(timeout=120) == 0, err
    assert err == ""  # not even Python's "Exception ignored … BrokenPipeError"

    # EPIPE on some other pipe (a dead child's) is a failure, never exit 0
    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(plan, "run", broken)
    assert main(["plan", str(f)]) == 3
    assert "internal error: BrokenPipeError" in capsys.readouterr().err


def test_a_swallowed_interrupt_still_exits_130(tmp_path, monkeypatch, capsys) -> None:
    """Whatever a command makes of the signal (here: it catches it and reports success), the
    exit status says the process was interrupted."""
    import harness.commands.plan as plan
    from harness.cli import main

    def swallow(args):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the signal arrives first
        except KeyboardInterrupt:
            return 0
        return 0

    f = workspace(tmp_path)
    monkeypatch.setattr(plan, "run", swallow)
    old = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["plan", str(f)]) == 130
    finally:
        signal.signal(signal.SIGINT, old)
    assert capsys.readouterr().err.strip() == "harness: interrupted"
