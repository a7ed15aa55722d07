"""`harness run DIR|ROOT_MODULE --executor ray`: a whole-project run on a real local Ray cluster
(`ray start --head` + a second node; tests/orchestrator/ray_cluster.py), with the fake Lean and
the scripted OpenAI-compatible server, on a generated three-file project. Every file's attempts
run in the cluster's worker processes (their node ids and pids in the record), the record has
the shape of a local run's, the driver joins the cluster once, and SIGTERM / ^C of the driver
leaves the run's record (143 / 130) and no worker still running one of its attempts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest

from harness.blueprint.genproject import generate_project
from harness.orchestrator.events import read_events
from harness.orchestrator.project_run import project_work
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env
from tests.orchestrator.test_run_cli import config
from tests.support.llm_server import ScriptedLLM, text

ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
pytestmark = [pytest.mark.ray, pytest.mark.timeout(900)]

from tests.orchestrator.ray_cluster import RAY_ENV, SECRET, Cluster  # noqa: E402

PROOF = "```lean\nby\n  exact Iff.rfl\n```"  # the fake Lean accepts it for generated statements
RAY_ONLY = {"placed", "lost", "note"}  # what only a distributed executor adds to the log


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(nodes=2, cpus=1)
    try:
        yield c.start()
    finally:
        c.stop()


def project(root: Path) -> Path:
    """Three files, each with open theorems (the second and third import earlier ones)."""
    generate_project(root, 3, 3, seed=3, proved_fraction=0.0)
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.32.0\n")
    return root / "Gen.lean"


def _env() -> dict[str, str]:
    return fake_env({"OPENAI_API_KEY": SECRET, **RAY_ENV})


def _run(root: Path, *extra: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", "run", str(root), "--json", *extra],
                          cwd=root.parent, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


def _events(root: Path) -> list[dict]:
    return read_events(run_dir(root.parent, root) / "events.jsonl").events


def _query(cluster: Cluster, code: str):
    """Ask the cluster from a short-lived driver of its own (never this test process)."""
    code = ("import json,sys,ray; ray.init(address=sys.argv[1], logging_level='ERROR'); "
            + code)
    out = subprocess.run([sys.executable, "-c", code, cluster.address], env=cluster.env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _drivers(cluster: Cluster, pid: int) -> int:
    """How many times process ``pid`` joined the cluster as a driver (one job each). Ray's
    job table (ray/_private/state.py, ``jobs``): the dashboard, whose job API is public, is
    not started in these test clusters."""
    jobs = _query(cluster, "import ray._private.state as s; print(json.dumps("
                           "[j['DriverPid'] for j in s.jobs()]))")
    return sum(1 for p in jobs if int(p) == pid)


def _tree(roots: list[int]) -> dict[int, str]:
    """pid -> command line of every live descendant of ``roots`` (this cluster's processes
    only: other test sessions on the machine may run Ray clusters of their own)."""
    procs: dict[int, tuple[int, str, str]] = {}
    for e in Path("/proc").iterdir():
        if not e.name.isdigit():
            continue
        try:
            stat = (e / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (e / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        procs[int(e.name)] = (int(stat[1]), stat[0], cmd)
    out: dict[int, str] = {}
    frontier = set(roots)
    while frontier:
        frontier = {pid for pid, (ppid, state, _) in procs.items()
                    if ppid in frontier and state != "Z" and pid not in out}
        out.update({pid: procs[pid][2] for pid in frontier})
    return out


def _running_ours(cluster: Cluster) -> list[str]:
    """The cluster's worker processes still running an attempt or a node service."""
    return [f"{pid}: {cmd.strip()[:80]}" for pid, cmd in
            _tree([p.pid for p in cluster.procs]).items()
            if cmd.startswith(("ray::run_attempt", "ray::NodeService"))]


def _shape(res: dict) -> dict:
    """What a run's result.json says, without what differs between two runs of one project."""
    return {"keys": sorted(res), "stop_reason": res["stop_reason"],
            "exit_code": res["exit_code"], "counts": res["counts"],
            "nodes": {k: (v["status"], sorted(v)) for k, v in res["nodes"].items()}}


def test_a_project_run_on_ray_runs_every_files_attempts_on_the_workers(cluster, tmp_path):
    root = project(tmp_path / "ray")
    local = project(tmp_path / "local")
    before = project_work(root, root.parent)
    file_of = {k: Path(b.path).relative_to(root.parent).as_posix()
               for k, b in before.file_of.items()}
    assert len({file_of[k] for k in before.work}) == 3  # open work in every file
    with ScriptedLLM(lambda req: text(PROOF), api_key=SECRET) as srv:
        config(root.parent, srv.base_url, workers=2, batch_window=0.1, lean_memory_gb=0.2)
        p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(root), "--json",
                              "--executor", "ray", "--ray-address", cluster.address],
                             cwd=root.parent, env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=600)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        config(local.parent, srv.base_url, workers=2, batch_window=0.1, lean_memory_gb=0.2)
        loc = _run(local, "--executor", "local")
    assert p.returncode == 0, err[-3000:]
    assert loc.returncode == 0, loc.stderr[-3000:]
    res, lres = json.loads(out), json.loads(loc.stdout)
    assert res["stop_reason"] == "all nodes proved" and res["counts"]["open"] == 0
    assert project_work(root, root.parent).work == []  # every file on disk is complete

    # every attempt of every file ran in a worker process of the cluster, never in the head
    evs = _events(root)
    attempts = [e for e in evs if e["kind"] == "attempt"]
    assert {file_of[e["node"]] for e in attempts} == {file_of[k] for k in before.work}
    nodes = {n["NodeID"] for n in _query(cluster, "print(json.dumps(ray.nodes()))")}
    assert all(e["node_id"] in nodes and e["pid"] and e["pid"] != p.pid for e in attempts)
    assert all(e["role"] == "prove" for e in attempts)  # the model, asked from the workers
    assert len(srv.chat_requests) >= len(before.work)
    # the driver joined the cluster once for the whole project (not once per file)
    assert _drivers(cluster, p.pid) == 1

    # the record has the shape of a local run's: result.json, event kinds and their fields
    assert _shape(res) == _shape(lres)
    levs = _events(local)
    assert {e["kind"] for e in evs} - RAY_ONLY == {e["kind"] for e in levs}
    for kind in {e["kind"] for e in levs}:
        assert {frozenset(e) for e in evs if e["kind"] == kind} \
            == {frozenset(e) for e in levs if e["kind"] == kind}, kind
    assert {e["node_id"] for e in levs if e["kind"] == "attempt"} == {"local"}
    trailers = [{ln.split(": ", 1)[1] for c in git.Repo(r.parent).iter_commits()
                 for ln in c.message.splitlines() if ln.startswith("Harness-File: ")}
                for r in (root, local)]
    assert trailers[0] == trailers[1] == {file_of[k] for k in before.work}
    assert not _running_ours(cluster)


def _wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_driver_stops_the_attempts_and_writes_the_record(cluster, tmp_path,
                                                                          sig, code):
    """The attempts wait two minutes for the model; the driver is stopped while they run on
    the workers: exit 143 (SIGTERM) / 130 (^C), result.json says "interrupted", and no worker
    process of the cluster still runs one of the run's attempts (nor its node services)."""
    root = project(tmp_path)

    def script(req):  # the preflight's probe is answered; every proof takes two minutes
        slow = "theorem" in json.dumps(req.json.get("messages", []))
        return text(PROOF, delay=120 if slow else 0)

    log = run_dir(root.parent, root) / "events.jsonl"
    with ScriptedLLM(script, api_key=SECRET) as srv:
        config(root.parent, srv.base_url, workers=2, lean_memory_gb=0.2)
        p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(root), "--plain",
                              "--executor", "ray", "--ray-address", cluster.address],
                             cwd=root.parent, env=_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            placed = _wait_for(lambda: log.exists() and [e for e in _events(root)
                                                         if e["kind"] == "placed"],
                               300, "an attempt running on a worker")
            assert _running_ours(cluster)  # the check below can see them
            p.send_signal(sig)
            _, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    assert p.returncode == code, err[-3000:]
    assert "Traceback" not in err
    res = json.loads((log.parent / "result.json").read_text())
    assert res["stop_reason"] == "interrupted" and res["exit_code"] == code
    assert not (log.parent / "lock.json").exists()  # the run lock was released
    evs = _events(root)
    assert evs[-1]["kind"] == "run_finished" and evs[-1]["exit_code"] == code
    assert not any(e["kind"] == "attempt" for e in evs)  # in-flight attempts are no failures
    # the workers that ran them no longer do; nothing of the run is left on the cluster
    deadline = time.monotonic() + 60
    while _running_ours(cluster) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _running_ours(cluster)
    for e in placed:
        cmd = Path(f"/proc/{e['pid']}/cmdline")
        assert not cmd.exists() or not cmd.read_bytes().startswith(b"ray::run_attempt")
