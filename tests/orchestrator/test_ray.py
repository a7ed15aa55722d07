"""`harness run --executor ray` on a real Ray cluster (`ray start --head` + a second node):
the fake Lean, the scripted OpenAI-compatible server, real git. One cluster per module."""

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

from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.blueprint.source import parse_file
from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import config, harness
from tests.support.llm_server import ScriptedLLM, text

ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]

from tests.orchestrator.ray_cluster import RAY_ENV, SECRET, Cluster  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(nodes=2, cpus=1)
    try:
        yield c.start()
    finally:
        c.stop()


def _env() -> dict[str, str]:
    return fake_env({"OPENAI_API_KEY": SECRET, **RAY_ENV})


def _events(ws: Path, f: Path) -> list[dict]:
    return read_events(run_dir(ws, f) / "events.jsonl").events


def _wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_run_on_ray_survives_a_killed_worker(cluster, tmp_path) -> None:
    """End to end on two nodes: the prove role over HTTP in the workers; the worker running
    thm:gauss is killed (SIGKILL) mid-attempt; its attempt is re-dispatched, the run finishes
    with every node proved, the events say where each attempt ran, the key is in no Ray file."""
    f = workspace(tmp_path)
    ws = f.parent.parent
    first = {"gauss": True}

    def script(req):
        prompt = json.dumps(req.json.get("messages", []))
        if "theorem gauss" in prompt and first["gauss"]:
            first["gauss"] = False
            return text("```lean\nby\n  omega\n```", delay=120)  # killed long before this
        return text("```lean\nby\n  omega\n```")

    with ScriptedLLM(script, api_key=SECRET) as srv:
        config(ws, srv.base_url, workers=2, batch_window=0.2, lean_memory_gb=0.2)
        p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(f), "--json",
                              "--executor", "ray", "--ray-address", cluster.address],
                             cwd=ws, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        try:
            placed = _wait_for(lambda: [e for e in _events(ws, f) if e["kind"] == "placed"
                                        and e["aid"] == "thm:gauss#1"]
                               if run_dir(ws, f).joinpath("events.jsonl").exists() else None,
                               240, "thm:gauss#1 to be placed on a worker")
            _wait_for(lambda: not first["gauss"], 60, "the gauss prompt")
            os.kill(placed[0]["pid"], signal.SIGKILL)
            out, err = p.communicate(timeout=400)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    assert p.returncode == 0, err
    res = json.loads(out)
    assert res["stop_reason"] == "all nodes proved" and res["counts"]["open"] == 0
    a = analyse(parse_file(f))
    assert all(k in a.proved for k in a.graph.nodes)
    repo = git.Repo(ws)
    assert res["final_commit"] == repo.head.commit.hexsha and not repo.is_dirty()

    evs = _events(ws, f)
    lost = [e for e in evs if e["kind"] == "lost"]
    assert [e["aid"] for e in lost] == ["thm:gauss#1"]
    assert lost[0]["pid"] == placed[0]["pid"] and "Worker" in lost[0]["reason"]
    attempts = [e for e in evs if e["kind"] == "attempt"]
    gauss = [e for e in attempts if e["node"] == "thm:gauss"]
    assert len(gauss) == 1 and gauss[0]["ok"] and gauss[0]["lost"] == 1
    assert gauss[0]["pid"] != placed[0]["pid"]  # re-run in another worker process
    # where each attempt ran: worker processes of the cluster, never the head
    assert all(e["node_id"] and e["pid"] and e["pid"] != p.pid for e in attempts)
    nodes = {e["node_id"] for e in attempts}
    assert nodes <= {n["NodeID"] for n in _cluster_nodes(cluster)}
    st = json.loads(harness(["status", str(f), "--json"], ws, _env()).stdout)
    run = st.get("run") or st
    assert run["lost"] == 1 and sum(h["attempts"] for h in run["hosts"].values()) == 14

    # the key reached the workers through their environment only
    assert not cluster.files_containing(SECRET), "the API key was written into Ray's files"
    assert SECRET not in (run_dir(ws, f) / "events.jsonl").read_text()


def _cluster_nodes(cluster: Cluster) -> list[dict]:
    code = ("import json,ray,sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
            "print(json.dumps(ray.nodes()))")
    out = subprocess.run([sys.executable, "-c", code, cluster.address], env=cluster.env,
                         capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_kill9_of_the_head_then_resume_on_ray(cluster, tmp_path) -> None:
    f = workspace(tmp_path, generate_blueprint(10, seed=5, proved_fraction=0.1), "Gen.lean")
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("```lean\nby\n  omega\n```", delay=0.5)) as srv:
        config(ws, srv.base_url, workers=2, batch_window=0.1, lean_memory_gb=0.2)
        args = [sys.executable, "-m", "harness", "run", str(f), "--plain", "--executor", "ray",
                "--ray-address", cluster.address]
        p = subprocess.Popen(args, cwd=ws, env=_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            _wait_for(lambda: run_dir(ws, f).joinpath("events.jsonl").exists() and any(
                e["kind"] == "attempt" for e in _events(ws, f)), 240, "a finished attempt")
        finally:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
        out = harness(["run", str(f), "--json", "--executor", "ray", "--ray-address",
                       cluster.address], ws, _env(), timeout=400)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"]["open"] == 0 and res["sessions"] == 2
    evs = _events(ws, f)
    resumed = [e for e in evs if e["kind"] == "run_resumed"]
    assert len(resumed) == 1
    nodes = [n for e in evs if e["kind"] in ("merged", "reconciled") for n in e["nodes"]]
    assert len(nodes) == len(set(nodes))  # nothing merged twice


def test_a_node_without_the_mathlib_build_stops_before_any_work(cluster, tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    (ws / "lake-manifest.json").write_text(json.dumps({"version": "1.1.0", "packages": [
        {"name": "mathlib", "type": "git", "url": "https://github.com/leanprover-community/"
         "mathlib4", "rev": "0" * 40}]}))
    # the endpoint answers the preflight's probe; no attempt is ever dispatched
    with ScriptedLLM(lambda req: text("```lean\nby\n  omega\n```")) as srv:
        config(ws, srv.base_url, lean_memory_gb=0.2)
        out = harness(["run", str(f), "--plain", "--executor", "ray", "--ray-address",
                       cluster.address], ws, _env(), timeout=300)
        assert srv.chat_requests == []
    assert out.returncode == 2, out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert "Ray node" in line and "mathlib missing" in line and "Traceback" not in out.stderr
    assert not any(e["kind"] == "dispatch" for e in _events(ws, f))
    assert not (ws / ".git").exists()  # found before the record was created


def test_ctrl_c_on_ray_cancels_the_attempts_and_exits_130(cluster, tmp_path) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("```lean\nby\n  omega\n```", delay=120)) as srv:
        config(ws, srv.base_url, workers=2, lean_memory_gb=0.2)
        p = subprocess.Popen([sys.executable, "-m", "harness", "run", str(f), "--plain",
                              "--executor", "ray", "--ray-address", cluster.address],
                             cwd=ws, env=_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            _wait_for(lambda: run_dir(ws, f).joinpath("events.jsonl").exists() and any(
                e["kind"] == "placed" for e in _events(ws, f)), 240, "an attempt on a worker")
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=120)
            took = time.monotonic() - t0
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    assert p.returncode == 130, err
    res = json.loads((run_dir(ws, f) / "result.json").read_text())
    assert res["stop_reason"] == "interrupted"
    # nothing waited for the two-minute model answers; in-flight attempts are not failures
    assert took < 100, took  # the model would have answered after 120 s
    assert not any(e["kind"] == "attempt" for e in _events(ws, f))


def test_own_ray_instance_with_the_workspace_as_runtime_env(tmp_path) -> None:
    """No --ray-address: `run` starts Ray on this machine (and stops it); the workers get the
    workspace as Ray's working_dir, without .lake/.harness/.git, and run in that copy."""
    import tempfile

    from tests.orchestrator.ray_cluster import TEMP_PREFIX

    f = workspace(tmp_path, generate_blueprint(6, seed=2, proved_fraction=0.0), "Gen.lean")
    ws = f.parent.parent
    (ws / ".lake").mkdir()
    (ws / ".lake" / "big.bin").write_bytes(b"\0" * 1024)  # must not be shipped
    raytmp = tempfile.mkdtemp(prefix=TEMP_PREFIX, dir="/tmp")
    with ScriptedLLM(lambda req: text("```lean\nby\n  omega\n```")) as srv:
        config(ws, srv.base_url, workers=2, batch_window=0.1, lean_memory_gb=0.2,
               executor="ray", ray_workspace="runtime_env")
        out = harness(["run", str(f), "--json"], ws, {**_env(), "RAY_TMPDIR": raytmp},
                      timeout=400)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"]["open"] == 0 and res["attempts"] >= 1
    attempts = [e for e in _events(ws, f) if e["kind"] == "attempt"]
    assert attempts and all(e["node_id"] != "local" and e["pid"] for e in attempts)
    shipped = [p for p in Path(raytmp).rglob("*") if p.name == "big.bin"]
    assert not shipped, "the runtime environment carried .lake"
    assert any(p.name == "Gen.lean" for p in Path(raytmp).rglob("*.lean")), \
        "the workers did not get the workspace"
    import shutil

    shutil.rmtree(raytmp, ignore_errors=True)
