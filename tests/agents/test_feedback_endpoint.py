"""Loose ends between the agents and the orchestrator: earlier failures reach the prove role
(bounded), the body-only search words are forbidden in a final answer (as the gate does), and an
endpoint that refuses the configuration (401/403/404, unreachable) is a usage error (exit 2)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.contracts import FORBIDDEN_IN_PROOFS, proof_violations
from harness.agents.llm import EndpointConfigError, LLMClient, LLMError
from harness.agents.prover import (FEEDBACK_TITLE, MAX_FEEDBACK_CHARS, MAX_FEEDBACK_ITEMS,
                                   feedback_section, prove_node)
from harness.agents.roles import load_prompt, run_role
from harness.agents.tools import ProveTools
from harness.blueprint.source import parse_file
from harness.errors import ExitCode, UsageError
from harness.gate import forbidden as gate
from harness.lean.toolchain import find_toolchain
from tests.support.llm_server import error, text

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-wrong-SECRET-4242"


def _cfg(**over) -> HarnessConfig:
    data = {"endpoint": {"default_model": "m"}, "roles": {"prove": {"mode": "completion",
                                                                     "max_reprompts": 0}},
            "retries": {"max_attempts": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.01}}
    data.update(over)
    return HarnessConfig.model_validate(data)


# ---- feedback ------------------------------------------------------------------------------
def test_feedback_reaches_the_prove_request_newest_first_and_bounded(demo_ws, fake_lake, llm):
    tc = find_toolchain(demo_ws)
    bp = parse_file(demo_ws / "Demo.lean")
    srv = llm(default=text("```lean\nby\n  unfold double\n  omega\n```"))
    c = LLMClient(Endpoint(srv.base_url, None), _cfg())
    feedback = [f"attempt {i}: " + "y" * 6000 + f" Lean said: error END{i}" for i in range(7)]
    res = prove_node(bp, "lem:double_add", workspace=demo_ws, cfg=c.cfg, toolchain=tc, client=c,
                     feedback=feedback)
    assert res.status == "proved", res.reason
    user = srv.chat_requests[0].messages[1]["content"]
    section = user[user.index(FEEDBACK_TITLE):]
    newest = [f"END{i}" for i in range(6, 6 - MAX_FEEDBACK_ITEMS, -1)]  # END6 … END3
    at = [section.index(e) for e in newest]
    assert at == sorted(at)  # newest first
    assert "END2" not in section and "END0" not in section  # older ones dropped …
    assert f"({7 - MAX_FEEDBACK_ITEMS} older failures not shown)" in section  # … and said so
    assert "attempt 6:" in section  # head and tail of a clipped item both survive
    assert len(section) < MAX_FEEDBACK_ITEMS * (MAX_FEEDBACK_CHARS + 40) + 300
    # the system prompt explains the section; without feedback there is none
    assert "# Earlier attempts and why they failed" in srv.chat_requests[0].messages[0]["content"]
    prove_node(bp, "lem:unrelated", workspace=demo_ws, cfg=c.cfg, toolchain=tc, client=c)
    assert FEEDBACK_TITLE not in srv.chat_requests[1].messages[1]["content"]


def test_feedback_section_edge_cases():
    assert feedback_section(None) == "" and feedback_section(["", "  "]) == ""
    short = feedback_section(["first", "second"])
    assert short.index("1. second") < short.index("2. first") and "not shown" not in short


# ---- body-only words (gate.BODY_SORRY_WORDS) -------------------------------------------------
def test_body_only_words_are_forbidden_in_a_final_body_like_the_gate():
    assert gate.BODY_SORRY_WORDS <= set(FORBIDDEN_IN_PROOFS)
    prompt = load_prompt("prove")
    for w in gate.BODY_SORRY_WORDS:
        assert f"`{w}`" in prompt, w
        bad = proof_violations(f"by\n  {w}")
        assert bad and f"`{w}` is not allowed" in bad[0], w
        assert proof_violations(f"by\n  {w}", final=False) == []  # exploring is fine
    # the gate only looks at bodies: a helper parameter named `stop` is fine, its body is not
    assert proof_violations("by simp", "theorem h (stop : Nat) : stop = stop := rfl") == []
    assert proof_violations("by simp", "theorem h (n : Nat) : n = n := by\n  stop") != []
    assert proof_violations("by exact h.stop") == []  # a field, not the tactic


def test_check_candidate_explores_with_search_but_warns(demo_ws, fake_lake):
    tc = find_toolchain(demo_ws)
    bp = parse_file(demo_ws / "Demo.lean")
    tools = ProveTools(bp, "lem:double_add", workspace=demo_ws, toolchain=tc)
    out = tools.check_candidate("by exact?")
    assert not out.startswith("REJECTED") and tools.lean_runs == 1  # Lean did run
    assert "not acceptable as a final answer" in out and "`exact?`" in out


# ---- endpoint configuration errors -------------------------------------------------------
@pytest.mark.parametrize("status", [401, 403, 404])
def test_refused_configuration_is_a_usage_error_naming_the_host(llm, status):
    srv = llm([error(status, message=f"Incorrect API key provided: {KEY}")])
    c = LLMClient(Endpoint(srv.base_url, KEY), _cfg(), sleep=lambda s: None)
    with pytest.raises(EndpointConfigError) as e:
        run_role("audit", "review", client=c, cfg=c.cfg)  # run_role lets it through
    err = e.value
    assert isinstance(err, LLMError) and isinstance(err, UsageError)
    assert err.exit_code == ExitCode.USAGE and err.status == status
    line = err.line()
    assert f"127.0.0.1:{srv.port}" in line and "check OPENAI_API_KEY / api_key_env" in line
    assert KEY not in line and "[REDACTED]" in line and "\n" not in line
    assert len(srv.chat_requests) == 1  # not retried


def test_other_client_errors_stay_failed_outcomes(llm):
    srv = llm([error(400, message="bad request")])
    c = LLMClient(Endpoint(srv.base_url, KEY), _cfg(), sleep=lambda s: None)
    out = run_role("audit", "review", client=c, cfg=c.cfg)
    assert out.status == "error" and "400" in out.reason


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_unreachable_endpoint_is_a_usage_error_but_a_later_outage_is_not(llm):
    port = _closed_port()
    c = LLMClient(Endpoint(f"http://127.0.0.1:{port}/v1", KEY), _cfg(), sleep=lambda s: None)
    with pytest.raises(EndpointConfigError) as e:
        c.chat([{"role": "user", "content": "x"}], role=c.cfg.role("prove"), role_name="prove")
    assert f"cannot connect to http://127.0.0.1:{port}" in e.value.line()
    # an endpoint that answered once and then went away: transient, not a configuration error
    srv = llm([text("fine")])
    c = LLMClient(Endpoint(srv.base_url, KEY), _cfg(), sleep=lambda s: None)
    c.chat([{"role": "user", "content": "x"}], role=c.cfg.role("prove"), role_name="prove")
    srv.stop()
    with pytest.raises(LLMError) as e2:
        c.chat([{"role": "user", "content": "x"}], role=c.cfg.role("prove"), role_name="prove")
    assert not isinstance(e2.value, EndpointConfigError)


def test_prove_cli_bad_key_exits_2_with_one_line(demo_ws, llm):
    """The real CLI in a subprocess against an endpoint that answers 401 (and echoes the key)."""
    srv = llm(default=error(401, message=f"Incorrect API key provided: {KEY}"))
    env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY,
           "HARNESS_LAKE": str(ROOT / "tests" / "fakes" / "lake"), "PYTHONPATH": str(ROOT)}
    f = demo_ws / "Demo.lean"
    before = f.read_bytes()
    p = subprocess.run([sys.executable, "-m", "harness", "prove", str(f), "lem:double_add",
                        "--model", "m"], cwd=demo_ws, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert f"127.0.0.1:{srv.port}" in lines[0] and "HTTP 401" in lines[0]
    assert "check OPENAI_API_KEY / api_key_env" in lines[0]
    assert KEY not in p.stdout + p.stderr
    assert f.read_bytes() == before and len(srv.chat_requests) == 1
    leaked = [q for q in demo_ws.rglob("*") if q.is_file() and KEY in q.read_text(errors="ignore")]
    assert leaked == []
