"""One run over a whole project (issue 22): `run DIR --stage 2` on a generated 10-file project
through the stand-ins (fake Lean gate and certifier, scripted attempts): one scheduler over every
file's open parts, one branch, one result; kill -9 and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import git

from harness.blueprint.genproject import generate_project
from harness.orchestrator.project_run import project_work
from harness.orchestrator.project_session import ProjectSession
from harness.orchestrator.record import Record
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import (ROOT, fake_certifier, fake_env, lean_gate,
                                        scripted_runner)
from tests.orchestrator.test_run_cli import _merged_nodes, config
from tests.support.llm_server import ScriptedLLM, text

PROOF = "by\n  exact Iff.rfl"


def project(tmp: Path) -> Path:
    generate_project(tmp, 10, 6, seed=3)
    (tmp / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    return tmp / "Gen"


def factory(session: Session, record: Record) -> Services:
    g = lean_gate(record)
    return Services(runner=scripted_runner(lambda job: PROOF), make_gate=lambda: g,
                    certifier=fake_certifier(record), lock=lambda text: None)


def run_project(target: Path, events: list | None = None, **settings):
    s = ProjectSession(target, RunSettings(**{"stage": "2", "batch_window": 0.05,
                                              **settings}),
                       workspace=target.parent,
                       notify=(lambda k, d: events.append((k, d))) if events is not None
                       else None)
    return s, s.run(factory)


def test_one_run_proves_every_file_of_a_ten_file_project(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    target = project(tmp_path)
    before = project_work(target, tmp_path)
    assert len(before.work) > 10 and len({id(b) for b in before.file_of.values()}) == 10
    cross = {(u, v) for u, v in before.graph.edges if before.file_of[u] is not before.file_of[v]}
    assert cross
    events: list = []
    s, res = run_project(target, events, workers=3, stage="all")
    assert res.exit_code == 0, (res.stop_reason, res.notes)
    assert res.stop_reason == "all nodes proved"
    assert set(before.work) <= {k for k, n in res.nodes.items() if n.status == "proved"}
    after = project_work(target, tmp_path)
    assert after.work == []  # every file on disk is complete
    # one record: every commit on the one branch; a file's commits name it
    repo = git.Repo(tmp_path)
    msgs = [c.message for c in repo.iter_commits()]
    files = {line.split(": ", 1)[1] for m in msgs for line in m.splitlines()
             if line.startswith("Harness-File: ")}
    assert len(files) == len({id(before.file_of[k]) for k in before.work})
    # one scheduler: a node of one file started before another file's last merge — and each
    # dispatch came after every dependency of it (in any file) was merged
    order = [d["node"] for k, d in events if k == "dispatch"]
    merged_at: dict[str, int] = {}
    for i, (k, d) in enumerate(events):
        if k == "merged":
            for n in d["nodes"]:
                merged_at.setdefault(n, i)
    first_dispatch = {}
    for i, (k, d) in enumerate(events):
        if k == "dispatch":
            first_dispatch.setdefault(d["node"], i)
    for u, v in before.graph.edges:
        assert merged_at[u] < first_dispatch[v]
    assert len(order) >= len(before.work)
    # importers: proof bodies only, so every importer compile was skipped, said so
    log = [json.loads(x) for x in (s.dir / "events.jsonl").read_text().splitlines()]
    imp = [e for e in log if e["kind"] == "importers"]
    assert imp and all(e["checked"] == [] and "proof bodies only" in e["reason"] for e in imp)
    cert = [e for e in log if e["kind"] == "certified"]
    assert {e["file"] for e in cert} == {r for e in cert for r in [e["file"]]} and len(
        {e["file"] for e in cert}) == 10
    assert (s.dir / "result.json").is_file() and (s.dir / "report.html").is_file()
    # stage 1 per file, in import order, before any attempt
    st1 = [e for e in log if e["kind"] == "stage" and e.get("stage") == 1]
    assert [e["file"] for e in st1] == [
        Path(b.path).relative_to(tmp_path).as_posix() for b in before.files if b.decls]
    assert all(e["exit_code"] == 0 for e in st1)
    assert st1[-1]["seq"] < min(e["seq"] for e in log if e["kind"] == "dispatch")
    # a second run: nothing to do, same result
    _, again = run_project(target)
    assert again.exit_code == 0 and again.attempts == res.attempts


def test_a_failing_node_leaves_its_dependents_in_other_files_open(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    target = project(tmp_path)
    before = project_work(target, tmp_path)
    u, v = next((u, v) for u, v in before.graph.edges
                if before.file_of[u] is not before.file_of[v])

    def fac(session, record):
        g = lean_gate(record)
        return Services(runner=scripted_runner(lambda job: None if job.node == u else PROOF),
                        make_gate=lambda: g, certifier=fake_certifier(record))

    s = ProjectSession(target, RunSettings(stage="2", batch_window=0.05, max_attempts=2),
                       workspace=tmp_path)
    res = s.run(fac)
    assert res.exit_code == 1
    assert res.nodes[u].status == "blocked" and res.nodes[v].status != "proved"
    assert res.counts["proved"] > 0


def _lines(p: Path) -> int:
    try:
        return p.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_cli_project_run_killed_with_sigkill_resumes_to_the_end(tmp_path):
    """`run Gen.lean` (stage 1 per file, then stage 2) through the real gate (fake Lean) and the scripted LLM server,
    killed with SIGKILL at points of its progress, then resumed: every node proved once."""
    project(tmp_path)  # its open bodies are the gate's canonical placeholders
    root = tmp_path / "Gen.lean"  # the root module: the same project as the directory
    work = project_work(root, tmp_path)
    log = run_dir(tmp_path, root) / "events.jsonl"
    cmd = [sys.executable, "-m", "harness", "run", str(root)]
    kills = 0
    with ScriptedLLM(lambda req: text("```lean\nby\n  exact Iff.rfl\n```", delay=0.02)) as srv:
        config(tmp_path, srv.base_url, workers=3, batch_window=0.1, batch_size=3)
        for k in (3, 40, 70):  # after k more events of the log (3: in stage 1)
            start = _lines(log)
            p = subprocess.Popen([*cmd, "--plain"], cwd=tmp_path, env=fake_env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            deadline = time.monotonic() + 120
            while p.poll() is None and _lines(log) < start + k and time.monotonic() < deadline:
                time.sleep(0.005)
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                kills += 1
            p.wait(timeout=30)
            nodes = _merged_nodes(git.Repo(tmp_path))
            assert len(nodes) == len(set(nodes))  # never merged twice
        # SIGTERM: the interrupt path (143), result.json says so; the lock is released
        start = _lines(log)
        p = subprocess.Popen([*cmd, "--plain"], cwd=tmp_path, env=fake_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while p.poll() is None and _lines(log) < start + 10 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert p.poll() is None  # the run is still going (far from its few hundred events)
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)
        assert rc == 143
        res = json.loads((log.parent / "result.json").read_text())
        assert res["stop_reason"] == "interrupted" and res["exit_code"] == 143
        assert not (log.parent / "lock.json").exists()
        out = subprocess.run([*cmd, "--json"], cwd=tmp_path, env=fake_env(),
                             capture_output=True, text=True, timeout=600)
    assert kills >= 2
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout)
    assert res["stop_reason"] == "all nodes proved" and res["sessions"] >= 3
    assert set(work.work) <= {k for k, n in res["nodes"].items() if n["status"] == "proved"}
    repo = git.Repo(tmp_path)
    nodes = _merged_nodes(repo)
    assert len(nodes) == len(set(nodes)) and set(work.work) <= set(nodes)
    assert not repo.is_dirty() and project_work(root, tmp_path).work == []
    assert res["final_commit"] == repo.head.commit.hexsha


def helper_runner(first_file_nodes: set[str]):
    """Proofs; for nodes of the first file, with a helper lemma (a new declaration)."""
    from harness.orchestrator.executor import AttemptResult

    def run(job):
        helpers = ""
        if job.node in first_file_nodes:
            helpers = f"theorem helper_{job.attempt}_{abs(hash(job.node)) % 10**6} : True := " \
                      "trivial\n"
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body=PROOF, helpers=helpers,
                             role="prove", cost=0.01, tokens=100)

    return run


def test_helpers_make_the_importers_compile_and_a_broken_importer_is_not_kept(
        tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    target = project(tmp_path)
    before = project_work(target, tmp_path)
    first = before.files[0]
    mine = {k for k in before.work if before.file_of[k] is first}
    assert mine
    probes: list[str] = []

    def fac(session, record, broken: bool):
        g = lean_gate(record)

        def gate(text, base, labels, **kw):
            if not labels and text == base:  # an importer's compile after a merge
                probes.append(record.rel)
                if broken:
                    from harness.orchestrator.batchmerge import GateOutcome
                    return GateOutcome(False, True, [f"{record.rel}:1:0: [lean] x: broken"])
            return g(text, base, labels, **kw)

        return Services(runner=helper_runner(mine), make_gate=lambda: gate,
                        certifier=fake_certifier(record))

    s = ProjectSession(target, RunSettings(stage="2", batch_window=0.05), workspace=tmp_path)
    res = s.run(lambda sess, rec: fac(sess, rec, broken=True))
    # the importers fail with or without the merge: not its fault, but it is not kept either
    # (fail closed); with no repair step the run stops and says why (a merge that alone breaks
    # an importer is rolled back and the run goes on; repairs: test_project_importers.py)
    assert res.exit_code == 1 and "does not pass the gate outside any batch" in \
        res.stop_reason
    assert "not repaired (" in res.stop_reason and "no repair step configured" in \
        res.stop_reason
    assert probes  # the importers were compiled
    log = [json.loads(x) for x in (s.dir / "events.jsonl").read_text().splitlines()]
    ev = next(e for e in log if e["kind"] == "importers" and e["checked"])
    assert ev["broken"] and "added or changed declarations" in ev["reason"]
    assert ev["rolled_back"] and ev["broken_without_merge"]
    assert ev["rolled_back"] not in {c.hexsha for c in git.Repo(tmp_path).iter_commits()}
    assert "helper_" not in Path(first.path).read_text()
    # a fresh project where the importers compile: every node proved, importers checked
    tmp2 = tmp_path / "again"
    target2 = project(tmp2)
    probes.clear()
    s2 = ProjectSession(target2, RunSettings(stage="2", batch_window=0.05), workspace=tmp2)
    res2 = s2.run(lambda sess, rec: fac(sess, rec, broken=False))
    assert res2.exit_code == 0, (res2.stop_reason, res2.notes)
    assert probes and "helper_" in (tmp2 / Path(first.path).relative_to(tmp_path)).read_text()


def test_cli_project_run_without_lean_is_exit_3_and_creates_nothing(tmp_path):
    target = project(tmp_path)
    env = fake_env()
    env.pop("HARNESS_LAKE")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if "fakes" not in p)
    with ScriptedLLM(lambda req: text("x")) as srv:
        config(tmp_path, srv.base_url)
        r = subprocess.run([sys.executable, "-m", "harness", "run", str(target), "--json"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 3 and "no Lean toolchain" in r.stderr
    assert json.loads(r.stdout)["exit_code"] == 3
    assert not (tmp_path / ".git").exists()  # no repository, no commit
    assert (tmp_path / ".harness" / "graph.html").is_file()  # the plan and graph still came


def test_one_budget_over_the_whole_project(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{ROOT / 'tests' / 'fakes'}{os.pathsep}{os.environ['PATH']}")
    target = project(tmp_path)
    n = len(project_work(target, tmp_path).work)
    s, res = run_project(target, workers=2, budget=0.05)  # 0.01 per attempt: ~5 attempts
    assert res.exit_code == 1 and res.stop_reason.startswith("budget spent")
    assert res.cost_usd <= 0.05 + 0.05 / 2 and res.attempts < n
    _, again = run_project(target, workers=2, budget=0.05)  # resumed: the same budget
    assert again.attempts == res.attempts and again.stop_reason.startswith("budget spent")
