"""The Ray executor's parts that need no cluster: ray missing, the node check, the budget bound
on attempts in flight (any executor)."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.orchestrator.executor import AttemptJob, AttemptResult
from harness.cluster.worker import WorkerSpec, node_problem
from tests.orchestrator.support import FAKES, ROOT, fake_env, run_session, workspace


def test_ray_missing_is_one_line_exit_2(tmp_path) -> None:
    """Without ray installed (blocked here via sys.modules), asking for it is a usage error
    found before anything is written."""
    f = workspace(tmp_path)
    code = ("import sys; sys.modules['ray'] = None; from harness.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    for args in (["--executor", "ray"], []):
        if not args:
            (f.parent.parent / "harness.toml").write_text('[run]\nexecutor = "ray"\n')
        out = subprocess.run([sys.executable, "-c", code, "run", str(f), *args], cwd=ROOT,
                             env=fake_env(), capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip() == ("run: --executor ray needs Ray: pip install -e '.[ray]' "
                                      "(or set [run] executor = \"local\")")
        assert not (f.parent.parent / ".harness").exists()


def test_node_check_names_what_a_worker_cannot_see(tmp_path, monkeypatch) -> None:
    f = workspace(tmp_path)
    ws = f.parent.parent
    lake = str(FAKES / "lake")
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert node_problem(WorkerSpec(workspace=str(ws), lake=lake)) is None
    gone = node_problem(WorkerSpec(workspace=str(tmp_path / "elsewhere"), lake=lake))
    assert gone is not None and "is not visible here" in gone and "same path" in gone
    (ws / "lake-manifest.json").write_text(json.dumps({"packages": [
        {"name": "mathlib", "type": "git"}, {"name": "local", "type": "path"}]}))
    missing = node_problem(WorkerSpec(workspace=str(ws), lake=lake))
    assert missing is not None and "mathlib missing" in missing and "local" not in missing
    (ws / ".lake" / "packages" / "mathlib").mkdir(parents=True)
    assert node_problem(WorkerSpec(workspace=str(ws), lake=lake)) is None
    nolake = node_problem(WorkerSpec(workspace=str(ws), lake=str(tmp_path / "no-lake")))
    assert nolake is not None and "no usable Lean toolchain" in nolake
    nokey = node_problem(WorkerSpec(workspace=str(ws), lake=lake, key_env="MY_KEY"))
    assert nokey is not None and "MY_KEY is not set in this worker's environment" in nokey
    monkeypatch.setenv("MY_KEY", "k")
    assert node_problem(WorkerSpec(workspace=str(ws), lake=lake, key_env="MY_KEY")) is None


def test_budget_bounds_attempts_in_flight(tmp_path) -> None:
    """8 workers, $0.025, each attempt costs its whole cap ($0.01): only as many attempts start
    as the budget covers with one cap each, so the run ends at most one cap over the budget
    (without the bound all 8 would start: $0.08)."""
    f = workspace(tmp_path)
    caps: list[float | None] = []

    def runner(job: AttemptJob) -> AttemptResult:
        caps.append(job.budget_usd)
        return AttemptResult(aid=job.aid, node=job.node, ok=False, reason="scripted failure",
                             cost=job.budget_usd or 0.0)

    s, res = run_session(f, runner, workers=8, budget=0.025, attempt_usd=0.01)
    assert res.stop_reason.startswith("budget spent")
    assert 0.025 <= res.cost_usd <= 0.025 + 0.01
    assert caps and set(caps) == {0.01}
    s2, res2 = run_session(workspace(tmp_path / "b"), runner, workers=4, budget=0.02)
    assert res2.cost_usd <= 0.02 + 0.02 / 4 + 1e-9  # default cap: budget / workers


def test_orphaned_lean_of_a_dead_worker_is_reaped() -> None:
    """A killed Ray worker leaves its Lean child behind; the node service kills the group of
    any process whose owner (HARNESS_ATTEMPT_OWNER) is gone — and leaves live owners alone."""
    import os

    from harness.cluster.worker import reap_orphans

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    code = "import time\nwhile True: time.sleep(1)"
    orphan = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                              env={**os.environ, "HARNESS_ATTEMPT_OWNER": str(dead.pid)})
    kept = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                            env={**os.environ, "HARNESS_ATTEMPT_OWNER": str(os.getpid())})
    try:
        import time

        time.sleep(0.5)  # both have exec'd (their environ is readable)
        assert reap_orphans() >= 1
        assert orphan.wait(timeout=10) == -9
        assert kept.poll() is None
    finally:
        for p in (orphan, kept):
            if p.poll() is None:
                p.kill()
            p.wait()


def test_live_view_shows_cluster_nodes_and_lost_attempts() -> None:
    import io

    from rich.console import Console

    from harness.orchestrator.view import LiveView, PlainView

    con = Console(file=io.StringIO(), force_terminal=False, width=120)
    v = LiveView(con)
    v("cluster", {"nodes": [{"node_id": "ab12cd34ef56aa", "host": "gpu07", "loadavg": 3.5,
                             "running": [{"aid": "x#1", "pid": 7}], "done": 4, "warm_s": 2.5}]})
    v("lost", {"aid": "x#1", "pid": 7, "host": "gpu07", "reason": "WorkerCrashedError: gone"})
    v.close()
    out = con.file.getvalue()
    assert "cluster node" in out and "gpu07" in out and "ab12cd34ef56" in out and "2.5s" in out
    assert "lost x#1 (worker 7 on gpu07 died" in out
    plain = io.StringIO()
    PlainView(plain)("lost", {"aid": "y#2", "reason": "NodeDiedError: x"})
    assert "lost y#2" in plain.getvalue() and "re-dispatched" in plain.getvalue()


def test_a_worker_rebuilds_the_heads_model_choice(tmp_path) -> None:
    """`--model` and the head's HARNESS_MODEL are not in the config's dump; the worker spec
    carries them, so a Ray worker's roles use the model the head would."""
    from harness.agents.config import HarnessConfig
    from harness.cluster.setup import worker_spec
    from harness.cluster.worker import WorkerSpec
    from harness.orchestrator.runmodels import RunSettings

    cfg = HarnessConfig().read_env({"HARNESS_MODEL": "env-model"})
    for head, want in ((cfg, "env-model"), (cfg.with_model("flag-model"), "flag-model")):
        spec = worker_spec(RunSettings(), head, tmp_path, None)
        again = WorkerSpec.model_validate_json(spec.model_dump_json())  # as Ray ships it
        rebuilt = HarnessConfig.model_validate(again.config).with_overrides(
            again.model, again.env_model)
        assert rebuilt.role("prove").model == want == head.role("prove").model
    assert HarnessConfig.model_validate(spec.config).role("prove").model is None  # the old loss
