"""`status DIR` shows a project run (`run DIR`) per file: live while it runs, and after SIGTERM
stopped it midway (real subprocesses, the fake Lean, the scripted LLM server)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import git

from harness.orchestrator.project_run import project_work
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env
from tests.orchestrator.test_project_session import project
from tests.orchestrator.test_run_cli import _merged_nodes, config
from tests.support.llm_server import ScriptedLLM, text


def gate_clean(target: Path) -> None:
    """Canonical placeholders (`sorry` / `sorry_using […]`) for the gate's audit, as the CLI
    test of test_project_session.py does (a no-op once the generator writes them)."""
    for f in target.rglob("*.lean"):
        f.write_text(re.sub(r"(:= by\n)(?:  have[^\n]*\n)+(  sorry)", r"\1\2", f.read_text()))


def _events(log: Path) -> list[dict]:
    try:
        lines = log.read_text().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for x in lines:
        try:
            out.append(json.loads(x))
        except ValueError:
            pass  # the line being written
    return out


def status(target: Path, ws: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", "status", str(target), *flags],
                          cwd=ws, env=fake_env(), capture_output=True, text=True, timeout=300)


def test_status_dir_shows_a_project_run_live_and_after_sigterm(tmp_path):
    target = project(tmp_path)
    gate_clean(target)
    work = project_work(target, tmp_path)
    rels = {Path(b.path).relative_to(tmp_path).as_posix() for b in work.files}
    log = run_dir(tmp_path, target) / "events.jsonl"
    with ScriptedLLM(lambda req: text("```lean\nby\n  exact Iff.rfl\n```", delay=0.3)) as srv:
        config(tmp_path, srv.base_url, workers=2, batch_window=0.1, batch_size=2)
        p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(target), "--plain"],
                             cwd=tmp_path, env=fake_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300
            while p.poll() is None and time.monotonic() < deadline and not any(
                    e["kind"] == "merged" for e in _events(log)):
                time.sleep(0.05)
            assert p.poll() is None, "the run ended before its first merge was seen"
            live = status(target, tmp_path, "--json")  # while the run goes on
            p.send_signal(signal.SIGTERM)
            rc = p.wait(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)
    assert rc == 143
    assert live.returncode == 0, live.stderr[-2000:]
    run = json.loads(live.stdout)["run"]
    assert run["active"] and run["pid"] == p.pid and run["stage"] in (2, "2")
    assert set(run["files"]) == rels
    assert sum(f["merged"] for f in run["files"].values()) >= 1
    # stopped midway: the run's state per file, from the log and the record
    out = status(target, tmp_path, "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    doc = json.loads(out.stdout)
    run = doc["run"]
    assert not run["active"] and run["stop_reason"] == "interrupted"
    files = run["files"]
    assert set(files) == rels
    # every node of the project is in exactly one of the file's buckets
    per_file = {r: 0 for r in rels}
    for row in doc["nodes"]:
        per_file[Path(row["file"]).resolve().relative_to(tmp_path.resolve()).as_posix()] += 1
    for rel, f in files.items():
        counted = (f["proved"] + len(f["running"]) + len(f["gate"]) + len(f["queued"])
                   + f["waiting"] + len(f["blocked"]))
        informal = sum(1 for row in doc["nodes"] if row["state"] == "informal"
                       and row["file"].endswith(rel))
        assert counted + informal == per_file[rel], rel
        assert not f["running"]  # nothing runs after the stop
    merged = _merged_nodes(git.Repo(tmp_path))
    assert sum(f["merged"] for f in files.values()) == len(merged) > 0
    assert any(f["proved"] > 0 and f["queued"] for f in files.values()) or any(
        f["queued"] or f["waiting"] for f in files.values())  # midway: work is left
    # the spend: every dollar of the run is some file's (stage 1 per file and its attempts)
    assert abs(sum(f["cost"] for f in files.values()) - run["cost"]) < 1e-4
    assert sum(f["attempts"] for f in files.values()) == run["attempts"]
    # in words, one line per file
    txt = status(target, tmp_path)
    assert txt.returncode == 0, txt.stderr[-2000:]
    assert "interrupted (`harness run` resumes it)" in txt.stdout
    for rel in rels:
        assert f"  {rel}: " in txt.stdout
    # the root module names the same project: its status finds the same run
    again = json.loads(status(tmp_path / "Gen.lean", tmp_path, "--json").stdout)["run"]
    assert again["run_id"] == run["run_id"] and again["files"] == files


def test_status_dot_finds_the_run_of_the_directory_it_is_in(tmp_path):
    target = project(tmp_path)
    d = run_dir(tmp_path, target)
    d.mkdir(parents=True)
    (d / "events.jsonl").write_text(json.dumps({"v": 1, "seq": 1, "t": 1.0, "kind": "run_started",
                                                "config": {"workers": 2}}) + "\n")
    r = subprocess.run([sys.executable, "-m", "harness", "status", ".", "--json"],
                       cwd=target, env=fake_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    run = json.loads(r.stdout)["run"]
    assert run["run_id"] == d.name and not run["active"]
    assert len(run["files"]) == 10
