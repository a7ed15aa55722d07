"""An interrupt, a kill or an error while a repair round compiles the importers of a repaired
file (its restatement committed and on disk, the round's outcome not yet in the run's record):
disk and record agree afterwards — both "not repaired": the branch, the working tree and every
lock file as before the round, the repair's events voided, no `breakage` event — and the next
run (the resume) repairs the file again and finishes (harness/orchestrator/repairjournal.py).

A real child process (`tests/orchestrator/repair_child.py`: the real lock gate, the fake Lean,
real git) gets a real SIGINT to its process group / SIGTERM / SIGKILL at that point; the
error case raises through the importer gate in-process.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest

from harness.gate.lock import load_lock
from harness.gate.verify import verify
from harness.orchestrator import repairjournal as rj
from tests.orchestrator.repair_child import MARK
from tests.orchestrator.repair_support import (BROKEN_A, FIXED_A, events, fake_path,
                                               lock_files)
from tests.orchestrator.support import ROOT, fake_env
from tests.orchestrator.test_project_rollback import node, project

WAIT_S = 240


def two_files(ws: Path) -> tuple[Path, Path]:
    return project(ws, node("lem:a1", "a1") + "\n" + BROKEN_A, node("lem:b1", "b1"))


def child(ws: Path, mode: str) -> subprocess.Popen:
    env = fake_env({"PYTHONPATH": str(ROOT)})
    return subprocess.Popen([sys.executable, "-m", "tests.orchestrator.repair_child", str(ws),
                             mode], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def stop_at_importer_check(ws: Path, sig: int) -> subprocess.CompletedProcess:
    p = child(ws, "pause")
    try:
        deadline = time.monotonic() + WAIT_S
        while not (ws / MARK).exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (ws / MARK).exists(), p.communicate(timeout=60)
        if sig == signal.SIGINT:
            os.killpg(p.pid, sig)  # a terminal's ^C: the whole process group
        else:
            p.send_signal(sig)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def run_dir(ws: Path) -> Path:
    return next(d for d in (ws / ".harness" / "runs").iterdir()
                if (d / "events.jsonl").exists() and d.name.startswith("Gen-"))


def assert_not_repaired(ws: Path, fa: Path, before: str, locks0: dict[str, bytes]) -> None:
    """Disk, branch and record all say: not repaired."""
    repo = git.Repo(ws)
    assert repo.git.status("--porcelain", "--untracked-files=no") == ""
    assert fa.read_text() == before
    assert (repo.head.commit.tree / "Gen/A.lean").data_stream.read().decode() == before
    assert lock_files(ws) == locks0  # every file's lock as before the round
    # and independently of the journal: A's lock pins A's old text, B's lock A's old module
    subs = {p.parent.name: p for p in (ws / ".harness" / "runs").glob("*/statements.lock.json")}
    lock_a = load_lock(next(p for n, p in subs.items() if "A" in n.split("-")[0]))
    assert verify(before, fa, lock_a, static_only=True).passed
    lock_b = load_lock(next(p for n, p in subs.items() if "B" in n.split("-")[0]))
    assert lock_b.environment["Gen/A.lean"] == hashlib.sha256(before.encode()).hexdigest()
    log = events(run_dir(ws))
    assert not [e for e in log if e["kind"] == "breakage"]
    from harness.orchestrator.events import voided

    mine = {e["seq"] for e in log if e["kind"] in ("restate", "restated", "audit")}
    assert mine and mine <= voided(log)  # the repair's rounds do not count


def resume(ws: Path, fa: Path) -> None:
    """The next run finds A broken again, repairs it and finishes."""
    p = child(ws, "resume")
    out, err = p.communicate(timeout=WAIT_S)
    assert p.returncode == 0, (out[-3000:], err[-3000:])
    lines = out.strip().splitlines()
    res = json.loads(lines[-2])
    assert lines[-1] == "calls=Gen/A.lean"
    assert any("a repair round was interrupted" in n for n in res["notes"]), res["notes"]
    assert {res["nodes"][n]["status"] for n in ("lem:a1", "lem:b1")} == {"proved"}
    assert FIXED_A in fa.read_text()
    assert not (run_dir(ws) / rj.JOURNAL).exists()
    assert not git.Repo(ws).is_dirty()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_importer_check_leaves_the_round_undone(tmp_path, sig):
    fa, fb = two_files(tmp_path)
    before = fa.read_text()
    out = stop_at_importer_check(tmp_path, sig)
    assert out.returncode == 128 + sig, (out.returncode, out.stderr[-3000:])
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    locks0 = {k: v for k, v in lock_files(tmp_path).items()}
    result = json.loads((run_dir(tmp_path) / "result.json").read_text())
    assert result["stop_reason"] == "interrupted" and result["exit_code"] == 128 + sig
    # the lock files as the run wrote them at its start (their text is in the journal)
    journal = rj.read(run_dir(tmp_path) / rj.JOURNAL)
    assert journal and journal["rebuild"] == ["Gen/A.lean"]
    assert {Path(p).parent.name: t.encode() for p, t in journal["locks"].items()} == locks0
    assert_not_repaired(tmp_path, fa, before, locks0)
    resume(tmp_path, fa)


def test_a_kill_during_the_importer_check_is_undone_by_the_next_run(tmp_path):
    fa, fb = two_files(tmp_path)
    before = fa.read_text()
    out = stop_at_importer_check(tmp_path, signal.SIGKILL)
    assert out.returncode == -signal.SIGKILL
    # nothing could run: the branch holds the repair, the journal says how to undo it
    repo = git.Repo(tmp_path)
    assert FIXED_A in (repo.head.commit.tree / "Gen/A.lean").data_stream.read().decode()
    journal = rj.read(run_dir(tmp_path) / rj.JOURNAL)
    assert journal and repo.is_ancestor(journal["head"], repo.head.commit.hexsha)
    assert (repo.commit(journal["head"]).tree / "Gen/A.lean").data_stream.read().decode() == \
        before
    resume(tmp_path, fa)
    log = events(run_dir(tmp_path))
    first = [e for e in log if e["kind"] == "restated"][0]["seq"]
    from harness.orchestrator.events import voided

    assert first in voided(log)  # the killed round's repair does not count


def test_an_error_during_the_importer_check_leaves_the_round_undone(tmp_path, monkeypatch):
    from tests.orchestrator.repair_child import main

    monkeypatch.setenv("PATH", fake_path())
    fa, fb = two_files(tmp_path)
    before = fa.read_text()
    with pytest.raises(RuntimeError, match="importer check failed"):
        main(tmp_path, "raise")
    assert (tmp_path / MARK).exists()
    result = json.loads((run_dir(tmp_path) / "result.json").read_text())
    assert result["exit_code"] == 3 and result["stop_reason"] == "stopped by an error"
    journal = rj.read(run_dir(tmp_path) / rj.JOURNAL)
    locks0 = {Path(p).parent.name: t.encode() for p, t in journal["locks"].items()}
    assert_not_repaired(tmp_path, fa, before, locks0)
    resume(tmp_path, fa)
