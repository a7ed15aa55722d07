"""Failures reach the next attempt: the real attempt runner (attempts.make_runner: tactics, then
the prove role over HTTP to the scripted LLM), the fake Lean, a real git record. A Lean error of
attempt 1, and a gate rejection, both appear in the next attempt's prove request."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.config import HarnessConfig
from harness.agents.prover import FEEDBACK_TITLE
from harness.lean.toolchain import find_toolchain
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services
from harness.orchestrator.attempts import make_runner
from tests.orchestrator.support import FAKES, fake_certifier, lean_gate, workspace
from tests.support.llm_server import ScriptedLLM, text

ONE = '''import Architect

namespace F

@[blueprint "lem:one"
  (statement := /-- $n + 0 = n$. -/)
  (latexEnv := "lemma")]
theorem one (n : Nat) : n + 0 = n := by
  sorry

end F
'''


def lean(body: str):
    return text(f"```lean\n{body}\n```")


@pytest.fixture
def no_env_endpoint(monkeypatch):
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(k, raising=False)


def _run(f: Path, srv: ScriptedLLM, gate_factory=lean_gate):
    cfg = HarnessConfig.model_validate({
        "endpoint": {"base_url": srv.base_url, "default_model": "m"},
        "roles": {"prove": {"mode": "completion", "max_reprompts": 0}},
        "tactics": {"tactics": ["bogus_tactic"]}})
    tc = find_toolchain(f.parent.parent, str(FAKES / "lake"))
    runner, _client = make_runner(cfg, tc, budget_left=None)
    s = Session(f, RunSettings(stage="2", workers=1, batch_window=0.05))
    res = s.run(lambda sess, rec: Services(runner=runner, make_gate=lambda: gate_factory(rec),
                                           certifier=fake_certifier(rec)))
    return res


def _user(req) -> str:
    return req.messages[1]["content"]


def test_lean_error_of_attempt_1_reaches_attempt_2(tmp_path, no_env_endpoint) -> None:
    f = workspace(tmp_path, ONE)
    with ScriptedLLM([lean("by\n  exact bogus_lemma_q7 n"), lean("by\n  omega")]) as srv:
        res = _run(f, srv)
        reqs = srv.chat_requests
    assert res.exit_code == 0 and res.counts["proved"] == 1, res.stop_reason
    assert len(reqs) == 2
    assert FEEDBACK_TITLE not in _user(reqs[0])  # nothing failed before the first attempt
    second = _user(reqs[1])
    section = second[second.index(FEEDBACK_TITLE):]
    assert "Unknown identifier `bogus_lemma_q7`" in section  # the Lean error text itself
    assert "tactics: none of 1 tactics" in section  # the portfolio ran in attempt 1 too


def test_gate_rejection_reaches_the_next_attempt(tmp_path, no_env_endpoint) -> None:
    f = workspace(tmp_path, ONE)
    calls: list[int] = []

    def gate_factory(record):
        real = lean_gate(record)

        def gate(text, base, labels, **kw):
            if labels and not calls:  # the first batch: a made-up objection of the gate
                calls.append(1)
                return GateOutcome(False, True, [f"{record.file}:9:2: [scope] GATE-OBJECTS-31"])
            return real(text, base, labels, **kw)

        return gate

    with ScriptedLLM(default=lean("by\n  omega")) as srv:
        res = _run(f, srv, gate_factory)
        reqs = srv.chat_requests
    assert res.exit_code == 0 and calls == [1], res.stop_reason
    assert len(reqs) == 2 and FEEDBACK_TITLE not in _user(reqs[0])
    section = _user(reqs[1])[_user(reqs[1]).index(FEEDBACK_TITLE):]
    assert "the gate rejected the merged file" in section and "GATE-OBJECTS-31" in section


def test_run_with_a_rejected_key_is_a_usage_error(tmp_path) -> None:
    """Stage 1 (audit) against an endpoint answering 401: `harness run` exits 2 with one line
    naming the host; the key is never printed or written."""
    import json

    from tests.orchestrator.support import fake_env
    from tests.orchestrator.test_run_cli import harness
    from tests.support.llm_server import error

    key = "sk-run-WRONG-5151"
    f = workspace(tmp_path, ONE)
    ws = f.parent.parent
    src = tmp_path / "source.md"
    src.write_text("Lemma. n + 0 = n.\n")
    with ScriptedLLM(default=error(401, message=f"Incorrect API key provided: {key}")) as srv:
        (ws / "harness.toml").write_text(f'[endpoint]\nbase_url = "{srv.base_url}"\n'
                                         'default_model = "m"\n')
        out = harness(["run", str(f), "--source", str(src), "--plain"], ws,
                      fake_env({"OPENAI_API_KEY": key}))
        port = srv.port
    assert out.returncode == 2, out.stdout + out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert f"127.0.0.1:{port}" in last and "check OPENAI_API_KEY / api_key_env" in last
    assert "Traceback" not in out.stderr and key not in out.stdout + out.stderr
    from harness.orchestrator.state import run_dir

    res = json.loads((run_dir(ws, f) / "result.json").read_text())
    assert res["exit_code"] == 2
    leaked = [q for q in ws.rglob("*") if q.is_file() and key in q.read_text(errors="ignore")]
    assert leaked == []


def test_stage2_with_a_rejected_key_stops_the_run_with_exit_2(tmp_path) -> None:
    """No source: stage 1 locks the statements; stage 2's prover then meets a 401. No attempt can
    succeed, so the run stops (exit 2) instead of blocking every node one by one."""
    import json

    from harness.orchestrator.state import run_dir
    from tests.orchestrator.support import fake_env
    from tests.orchestrator.test_run_cli import harness
    from tests.support.llm_server import error

    key = "sk-run-WRONG-6262"
    f = workspace(tmp_path, ONE)
    ws = f.parent.parent
    with ScriptedLLM(default=error(401, message=f"Incorrect API key provided: {key}")) as srv:
        (ws / "harness.toml").write_text(
            f'[endpoint]\nbase_url = "{srv.base_url}"\ndefault_model = "m"\n'
            '[tactics]\ntactics = ["bogus_tactic"]\n')
        out = harness(["run", str(f), "--plain"], ws, fake_env({"OPENAI_API_KEY": key}))
        port = srv.port
    assert out.returncode == 2, out.stdout + out.stderr
    res = json.loads((run_dir(ws, f) / "result.json").read_text())
    assert res["exit_code"] == 2 and f"127.0.0.1:{port}" in res["stop_reason"]
    assert key not in out.stdout + out.stderr + json.dumps(res)
