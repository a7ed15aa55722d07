"""`python -m harness run` as a real subprocess: fake Lean, the scripted LLM server, real git."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import git

from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.blueprint.parse import parse_text
from harness.blueprint.source import parse_file
from harness.orchestrator.events import read_events
from harness.orchestrator.state import live_status, run_dir
from tests.orchestrator.support import fake_env, workspace
from tests.support.llm_server import ScriptedLLM, text

PY = sys.executable


def config(ws: Path, base_url: str, **run: object) -> None:
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in run.items())
    (ws / "harness.toml").write_text(f"""
[endpoint]
base_url = "{base_url}"
default_model = "test-model"

[roles.prove]
mode = "completion"

[tactics]
tactics = ["bogus_tactic"]

[prices."test-model"]
input_per_mtok = 1.0
output_per_mtok = 2.0

[run]
{extra}""")


def harness(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
            ) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "harness", *args], cwd=cwd, env=env or fake_env(),
                          capture_output=True, text=True, timeout=timeout)


def prover(delay: float = 0.0):
    """Every prove request gets `by omega` (the fake Lean accepts it)."""
    return lambda req: text("```lean\nby\n  omega\n```", delay=delay)


def test_no_lean_stops_cleanly_and_merges_nothing(tmp_path) -> None:
    f = workspace(tmp_path)
    env = fake_env({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    env.pop("HARNESS_LAKE")
    before = f.read_bytes()
    out = harness(["run", str(f), "--plain"], f.parent.parent, env)
    assert out.returncode == 3, out.stderr
    assert "no Lean toolchain" in out.stderr and "nothing was merged" in out.stderr
    assert "Traceback" not in out.stderr
    assert f.read_bytes() == before
    assert not (f.parent.parent / ".git").exists()  # not even a repository was created
    res = json.loads((run_dir(f.parent.parent, f) / "result.json").read_text())
    assert res["exit_code"] == 3 and res["final_commit"] is None
    # ... but it still parses, plans and draws the blueprint
    assert "ready now:" in out.stdout and "critical path:" in out.stdout
    graph = f.parent.parent / ".harness" / "graph.html"
    assert graph.is_file() and "<svg" in graph.read_text()
    assert out.stderr.count("elan-init.sh") == 1


def test_demo_end_to_end_with_llm(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(prover()) as srv:
        config(ws, srv.base_url, workers=4, batch_window=0.2)
        out = harness(["run", str(f), "--json"], ws)
        assert out.returncode == 0, out.stderr
        assert srv.requests  # the prove role really went over HTTP
    res = json.loads(out.stdout)
    assert res["stop_reason"] == "all nodes proved"
    assert res["counts"]["open"] == 0 and res["tokens"] > 0 and res["cost_usd"] > 0
    a = analyse(parse_file(f))
    assert all(k in a.proved for k in a.graph.nodes)
    repo = git.Repo(ws)
    assert res["final_commit"] == repo.head.commit.hexsha
    assert not repo.is_dirty()
    merges = [c for c in repo.iter_commits() if "Harness-Batch:" in c.message]
    assert merges and all("Harness-Verdict: passed" in c.message for c in merges)
    st = live_status(ws, f)
    assert st is not None and st["finished"] and not st["active"] and st["merged"] >= 14
    lock = json.loads((run_dir(ws, f) / "statements.lock.json").read_text())
    assert lock["elaborated"] is True  # locked with Lean: every entry pins its elaborated type
    assert lock["entries"] and all(e["type_hash"] for e in lock["entries"])
    down = harness(["run", str(f), "--json"], ws)  # the endpoint is gone: preflight, exit 2
    assert down.returncode == 2 and "cannot connect to" in down.stderr and down.stdout == ""
    with ScriptedLLM(prover()) as srv:
        config(ws, srv.base_url, workers=4, batch_window=0.2)
        again = harness(["run", str(f), "--json"], ws)  # a finished run resumes to the same result
    assert again.returncode == 0 and json.loads(again.stdout)["final_commit"] == res["final_commit"]


def _merged_nodes(repo: git.Repo) -> list[str]:
    nodes: list[str] = []
    for c in repo.iter_commits():
        for line in c.message.splitlines():
            if line.startswith("Harness-Nodes:"):
                nodes += [n for n in line.split(":", 1)[1].strip().split(",") if n]
    return nodes


def _lines(p: Path) -> int:
    try:
        return p.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_kill9_at_random_points_then_resume(tmp_path) -> None:
    f = workspace(tmp_path, generate_blueprint(24, seed=3, proved_fraction=0.1), "Gen.lean")
    ws = f.parent.parent
    log = run_dir(ws, f) / "events.jsonl"
    rng = random.Random(1234)
    kills = 0
    with ScriptedLLM(prover(delay=0.03)) as srv:
        config(ws, srv.base_url, workers=3, batch_window=0.1, batch_size=3)
        for rep in range(6):
            # a random point in the run's progress (not in wall time: machine speed varies):
            # after k more events, plus a random fraction of the time between two events
            start, k = _lines(log), rng.randint(2, 30)
            p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--plain"], cwd=ws,
                                 env=fake_env(), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
            deadline = time.monotonic() + 60
            while p.poll() is None and _lines(log) < start + k and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.1))
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                kills += 1
            p.wait(timeout=30)
            repo = git.Repo(ws)
            parse_text((repo.head.commit.tree / "Blueprint/Gen.lean").data_stream.read()
                       .decode(), f)  # the record is always parseable
            nodes = _merged_nodes(repo)
            assert len(nodes) == len(set(nodes)), f"double merge after kill {rep}"
        out = harness(["run", str(f), "--json"], ws, timeout=300)
    assert kills >= 4  # the test really interrupted runs
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"]["open"] == 0 and res["counts"]["blocked"] == 0
    repo = git.Repo(ws)
    nodes = _merged_nodes(repo)
    assert len(nodes) == len(set(nodes))
    assert not repo.is_dirty()
    parse_file(f)
    # no accepted proof lost: after an accepted, unrejected candidate, its node is never
    # dispatched again
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    rejected = {aid for e in evs if e["kind"] == "gate" for aid in e.get("rejected", {})}
    accepted_at: dict[str, int] = {}
    for e in evs:
        if e["kind"] == "attempt" and e["ok"] and e["aid"] not in rejected:
            accepted_at.setdefault(e["node"], e["seq"])
        if e["kind"] == "dispatch" and e["node"] in accepted_at:
            raise AssertionError(f"{e['node']} re-dispatched after an accepted proof")
    assert res["sessions"] >= 2


def test_stale_lock_taken_over_live_lock_refused(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    d = run_dir(ws, f)
    d.mkdir(parents=True)
    import socket

    dead = subprocess.Popen([PY, "-c", "pass"])
    dead.wait()
    (d / "lock.json").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname()}))
    with ScriptedLLM(prover()) as srv:
        config(ws, srv.base_url, workers=2)
        out = harness(["run", str(f), "--plain"], ws)
        assert out.returncode == 0, out.stderr
        assert "took over a stale run lock" in out.stdout
        (d / "lock.json").write_text(json.dumps({"pid": os.getpid(),
                                                 "host": socket.gethostname()}))
        out = harness(["run", str(f), "--plain"], ws)
        assert out.returncode == 2 and "already in progress" in out.stderr
        (d / "lock.json").write_text('{"pid": 12')  # half-written: never trusted as live
        with open(d / "events.jsonl", "ab") as fh:
            fh.write(b'{"v":1,"seq":99999,"kind":"dispa')  # a torn last line
        out = harness(["run", str(f), "--plain"], ws)
        assert out.returncode == 0, out.stderr
        assert "torn line" in out.stdout and "took over" in out.stdout
    read_events(d / "events.jsonl")  # valid again


def test_budget_exhaustion_cli(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("```lean\nby\n  exact bogus_fact\n```")) as srv:
        config(ws, srv.base_url, workers=2)
        out = harness(["run", str(f), "--json", "--budget", "0.002"], ws)
    assert out.returncode == 1, out.stderr
    res = json.loads(out.stdout)
    assert res["stop_reason"].startswith("budget spent")
    assert res["cost_usd"] >= 0.002 and res["counts"]["proved"] < len(res["nodes"])


def test_bad_settings_are_one_line_errors(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    out = harness(["run", str(f), "--workers", "0"], ws)
    assert out.returncode == 2 and out.stderr.strip() == \
        "run: --workers: Input should be greater than or equal to 1"
    (ws / "harness.toml").write_text("[endpoint]\n\n[run]\nbatch_size = 2\nworkerz = 3\n")
    out = harness(["run", str(f)], ws)
    assert out.returncode == 2
    assert out.stderr.strip() == f"{ws / 'harness.toml'}:5:0: config: run.workerz: Extra inputs " \
                                 "are not permitted (did you mean `workers`?)"
    assert not (ws / ".git").exists()


def test_stage1_only_without_source_locks_and_succeeds(tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    out = harness(["run", str(f), "--stage", "1", "--json"], ws)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert "locked as they are" in res["stop_reason"] and res["attempts"] == 0
    assert (run_dir(ws, f) / "statements.lock.json").exists()
    out = harness(["run", str(f), "--stage", "2", "--json"], ws)  # stage 2 uses that lock
    assert out.returncode == 0 and json.loads(out.stdout)["counts"]["open"] == 0
