"""Issue 23 end to end: the real attempt runner (attempts.make_runner) over HTTP to the scripted
LLM, the fake Lean, a real git record. Memory reaches the next prompt and survives a new run and a
kill -9; tiers switch models; an escalated node is handed to a person; racing lets a second worker
win."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness.agents.config import HarnessConfig
from harness.lean.toolchain import find_toolchain
from harness.memory.summary import TITLE
from harness.orchestrator.events import read_events
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services
from harness.orchestrator.attempts import make_runner
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import (
    FAKES, PY, fake_certifier, fake_env, lean_gate, run_session, scripted_runner, workspace,
)
from tests.orchestrator.test_feedback import ONE  # one node, n + 0 = n
from tests.support.llm_server import ScriptedLLM, text, tool_call

GOOD, BAD = "by\n  omega", "by\n  exact bogus_lemma_q7 n"


def lean(body: str, **kw):
    return text(f"```lean\n{body}\n```", **kw)


def _user(req) -> str:
    return req.messages[1]["content"]


@pytest.fixture(autouse=True)
def no_env_endpoint(monkeypatch):
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "HARNESS_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(k, raising=False)


def _run(f: Path, srv: ScriptedLLM, *, prove: dict | None = None, tiers=(), **settings):
    cfg = HarnessConfig.model_validate({
        "endpoint": {"base_url": srv.base_url, "default_model": "m"},
        "roles": {"prove": {"mode": "completion", "max_reprompts": 0, **(prove or {})}},
        "tactics": {"tactics": ["bogus_tactic"]}})
    tc = find_toolchain(f.parent.parent, str(FAKES / "lake"))
    runner, _client = make_runner(cfg, tc, budget_left=None)
    s = Session(f, RunSettings(**{"stage": "2", "workers": 1, "batch_window": 0.05, **settings}))
    s.tiers = list(tiers)
    res = s.run(lambda sess, rec: Services(runner=runner, make_gate=lambda: lean_gate(rec),
                                           certifier=fake_certifier(rec)))
    return s, res


def remembers_two_failures(req):
    """Proves the node only when the prompt carries the digest of two earlier failures."""
    u = _user(req)
    if TITLE in u and "2 failed attempt(s)" in u and "`bogus_lemma_q7`" in u:
        return lean(GOOD)
    return lean(BAD)


def test_memory_reaches_the_prompt_and_survives_a_later_run(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    with ScriptedLLM(remembers_two_failures) as srv:
        s, res = _run(f, srv, max_attempts=2)
        first = srv.chat_requests
        assert res.exit_code == 1 and res.counts["blocked"] == 1  # two failures, then blocked
        assert TITLE not in _user(first[0]) and "1 failed attempt(s)" in _user(first[1])
        shutil.rmtree(s.dir)  # a later run: a new run directory, the same workspace
        n0 = len(srv.chat_requests)
        s2, res2 = _run(f, srv)
        again = srv.chat_requests[n0:]
    assert res2.exit_code == 0 and res2.counts["proved"] == 1, res2.stop_reason
    assert len(again) == 1 and "2 failed attempt(s)" in _user(again[0])
    saved = list((f.parent.parent / ".harness" / "memory").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["attempts"] == 2


def test_tiers_switch_to_the_stronger_model_after_n_failures(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    with ScriptedLLM(lambda req: lean(GOOD if req.model == "strong" else BAD)) as srv:
        _s, res = _run(f, srv, tiers=[(0, "cheap"), (2, "strong")])
        models = [r.model for r in srv.chat_requests]
    assert res.exit_code == 0, res.stop_reason
    assert models == ["cheap", "cheap", "strong"]


def test_escalated_node_is_handed_to_a_person_and_resumed(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    ws = f.parent.parent
    script = [tool_call("report_blocker", kind="statement_false",
                        explanation="n + 0 = n fails for the custom Nat of this file",
                        best_partial="by\n  induction n <;> simp_all")]
    with ScriptedLLM(script, default=tool_call("submit", body=GOOD)) as srv:
        s, res = _run(f, srv, prove={"mode": "tools"}, max_attempts=5)
        n_first = len(srv.chat_requests)
        assert res.exit_code == 1 and n_first == 1  # escalated: not tried again in this run
        assert res.nodes["lem:one"].reason.startswith("needs a person (statement_false)")
        person = res.needs_person["lem:one"]
        assert "custom Nat" in person.explanation and "induction" in person.best_partial
        saved = json.loads((s.dir / "result.json").read_text())
        assert saved["needs_person"]["lem:one"]["kind"] == "statement_false"
        # a resumed run does not spend anything on it either
        _s, res_again = _run(f, srv, prove={"mode": "tools"})
        assert len(srv.chat_requests) == n_first and res_again.counts["blocked"] == 1
        st = subprocess.run([PY, "-m", "harness", "status", str(f), "--json"], cwd=ws,
                            env=fake_env(), capture_output=True, text=True, timeout=60)
        shown = json.loads(st.stdout)
        assert shown["needs_person"]["lem:one"]["kind"] == "statement_false"
        assert shown["run"]["forecast"]["spent_usd"] >= 0
        # a person looked: resume-node hands it back; the next run proves it
        out = subprocess.run([PY, "-m", "harness", "resume-node", str(f), "lem:one", "--json"],
                             cwd=ws, env=fake_env(), capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["run_updated"] is True
        _s, res3 = _run(f, srv, prove={"mode": "tools"})
    assert res3.exit_code == 0 and res3.counts["proved"] == 1, res3.stop_reason
    assert res3.needs_person == {}
    bad = subprocess.run([PY, "-m", "harness", "resume-node", str(f), "lem:oen"], cwd=ws,
                         env=fake_env(), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_race_second_worker_wins_first_is_dropped(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    events: list = []

    def body(job):
        if job.attempt == 1:  # slow: a racer joins on the idle worker and wins meanwhile
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(k == "merged" for k, _ in events):
                time.sleep(0.02)
        return GOOD

    s, res = run_session(f, scripted_runner(body), events=events, workers=2, race=2)
    assert res.exit_code == 0, res.stop_reason
    evs = read_events(s.dir / "events.jsonl").events
    disp = [e for e in evs if e["kind"] == "dispatch" and e["node"] == "lem:one"]
    assert [e["attempt"] for e in disp] == [1, 2] and {e["worker"] for e in disp} == {0, 1}
    gates = [e for e in evs if e["kind"] == "gate"]
    assert [list(e["merged"]) for e in gates] == [["lem:one#2"]]  # the racer's proof went in
    merged_at = next(e["seq"] for e in evs if e["kind"] == "merged")
    late = next(e for e in evs if e["kind"] == "attempt" and e["aid"] == "lem:one#1")
    assert late["seq"] > merged_at  # the first came back after the win: dropped, cost counted
    assert res.cost_usd == pytest.approx(0.02)


def test_memory_survives_kill9_and_resume(tmp_path) -> None:
    f = workspace(tmp_path, ONE)
    ws = f.parent.parent
    phase = {"resumed": False}

    def script(req):
        u = _user(req)
        if TITLE in u:  # slow until the run was killed, then immediate
            return lean(GOOD, delay=0 if phase["resumed"] else 30)
        return lean(BAD)

    with ScriptedLLM(script) as srv:
        (ws / "harness.toml").write_text(
            f'[endpoint]\nbase_url = "{srv.base_url}"\ndefault_model = "m"\n'
            '[roles.prove]\nmode = "completion"\nmax_reprompts = 0\n'
            '[tactics]\ntactics = ["bogus_tactic"]\n[run]\nworkers = 1\nbatch_window = 0.05\n')
        env = fake_env({"OPENAI_API_KEY": "sk-test"})
        p = subprocess.Popen([PY, "-m", "harness", "run", str(f), "--plain", "--stage", "2"],
                             cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        mem_dir = ws / ".harness" / "memory"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(
                TITLE in _user(r) for r in srv.chat_requests):
            time.sleep(0.05)
        assert any(mem_dir.glob("*.json")), "no memory written before the kill"
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
        phase["resumed"] = True
        n0 = len(srv.chat_requests)
        out = subprocess.run([PY, "-m", "harness", "run", str(f), "--json", "--stage", "2"],
                             cwd=ws, env=env, capture_output=True, text=True, timeout=300)
        resumed = srv.chat_requests[n0:]
    assert out.returncode == 0, out.stderr
    assert resumed and TITLE in _user(resumed[0]) and "`bogus_lemma_q7`" in _user(resumed[0])
    assert json.loads(out.stdout)["sessions"] >= 2
    assert run_dir(ws, f).is_dir()
