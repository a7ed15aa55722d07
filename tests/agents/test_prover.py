"""One attempt end to end: tactic portfolio and LLM prover, Lean verdicts from the fake backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.llm import LLMClient
from harness.agents.prover import prove_node, prove_with_tactics
from harness.agents.tactics import run_portfolio
from harness.agents.tools import ProveTools
from harness.blueprint.source import parse_file
from harness.lean.toolchain import find_toolchain
from tests.support.llm_server import text, tool_call, tool_calls


@pytest.fixture
def env(demo_ws: Path, fake_lake):
    tc = find_toolchain(demo_ws)
    bp = parse_file(demo_ws / "Demo.lean")
    return demo_ws, tc, bp


def _cfg(**over) -> HarnessConfig:
    return HarnessConfig.model_validate({"endpoint": {"default_model": "m"}, **over})


def test_portfolio_stops_at_first_success(env):
    ws, tc, bp = env
    cfg = _cfg(tactics={"tactics": ["bogus_rfl", "bogus_decide", "omega", "simp"]})
    res = prove_with_tactics(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc)
    assert res.status == "proved" and res.body == "by omega"
    assert [t["outcome"] for t in res.tactics] == ["failed", "failed", "proved"]
    assert "Unknown identifier `bogus_rfl`" in res.tactics[0]["detail"]
    assert res.verdict is not None and res.verdict.status == "proved" and res.lean_runs == 3


def test_portfolio_all_fail(env):
    ws, tc, bp = env
    cfg = _cfg(tactics={"tactics": ["bogus_a", "bogus_b"]})
    res = prove_with_tactics(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc)
    assert res.status == "failed" and "none of 2 tactics" in res.reason and res.body is None


def test_portfolio_timeout_is_skipped_and_all_timeouts_cannot_certify(env):
    ws, tc, bp = env
    tools = ProveTools(bp, "lem:double_add", workspace=ws, toolchain=tc, timeout_s=1.5)
    res = run_portfolio(tools, ["fake_hang", "simp"])
    assert res.status == "proved" and res.runs[0].outcome == "cannot_certify"
    res = run_portfolio(ProveTools(bp, "lem:double_add", workspace=ws, toolchain=tc,
                                   timeout_s=1.5), ["fake_crash"])
    assert res.status == "cannot_certify"


def test_search_tactic_without_suggestion_is_not_accepted(env):
    ws, tc, bp = env
    res = run_portfolio(ProveTools(bp, "lem:double_add", workspace=ws, toolchain=tc), ["exact?"])
    # the fake accepts `by exact?` but prints no `Try this:`: never record a search tactic
    assert res.status == "failed" and res.runs[0].outcome == "no_suggestion"


def test_no_lean_means_cannot_certify(demo_ws: Path):
    bp = parse_file(demo_ws / "Demo.lean")
    res = prove_node(bp, "lem:double_add", workspace=demo_ws, cfg=_cfg(), toolchain=None)
    assert res.status == "cannot_certify"


def test_llm_tools_mode_checks_then_submits(env, llm):
    ws, tc, bp = env
    srv = llm([tool_call("check_candidate", body="by bogus_simp"),
               tool_call("lookup", name="double_add"),
               tool_call("submit", body="by\n  rw [double_add]")])
    c = LLMClient(Endpoint(srv.base_url, "sk-x"), _cfg())
    res = prove_node(bp, "thm:main", workspace=ws, cfg=c.cfg, toolchain=tc, client=c)
    assert res.status == "proved" and res.method == "llm"
    assert res.body == "by\n  rw [double_add]"
    assert res.verdict is not None and res.verdict.accepted_modulo_deps
    fed = [r.messages[-1]["content"] for r in srv.chat_requests[1:]]
    assert fed[0].startswith("FAILED (error)") and "body 1:3" in fed[0]
    assert "theorem double_add (a b : Nat)" in fed[1]
    first = srv.chat_requests[0].messages[1]["content"]
    assert "def double (n : Nat)" in first and "Apply \\cref{lem:double_add}" in first
    assert "Unfold and distribute" not in first  # proofs of deps are not in the context
    assert c.ledger.attempts == {"thm:main": 1} and res.usage and res.usage.calls == 3


def test_llm_submit_that_fails_lean_is_fed_back(env, llm):
    ws, tc, bp = env
    srv = llm([tool_call("submit", body="by bogus_x"),
               tool_call("submit", body="by sorry"),
               tool_call("submit", body="by simp", helpers="theorem aux : 1 = 1 := rfl")])
    c = LLMClient(Endpoint(srv.base_url, None), _cfg())
    res = prove_node(bp, "lem:double_add", workspace=ws, cfg=c.cfg, toolchain=tc, client=c)
    assert res.status == "proved" and res.helpers == "theorem aux : 1 = 1 := rfl"
    fed = [r.messages[-1]["content"] for r in srv.chat_requests[1:]]
    assert "Unknown identifier `bogus_x`" in fed[0]
    assert "`sorry` is not allowed" in fed[1]


def test_llm_completion_mode_takes_last_lean_block(env, llm):
    ws, tc, bp = env
    answer = ("<think>maybe ```lean\nby bogus\n```</think>\nFirst idea:\n```lean\nby bogus_a\n```\n"
              "Final:\n```lean4\ntheorem helper_two : 2 = 2 := rfl\n\n"
              "theorem double_add (x y : Nat) : double (x + y) = double x + double y := by\n"
              "  unfold double\n  omega\n```\n")
    srv = llm([text(answer)])
    cfg = _cfg(roles={"prove": {"mode": "completion"}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    res = prove_node(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc, client=c)
    assert res.status == "proved", res.reason
    assert res.body == "by\n  unfold double\n  omega"
    assert res.helpers == "theorem helper_two : 2 = 2 := rfl"
    assert "tools" not in srv.chat_requests[0].json
    user = srv.chat_requests[0].messages[1]["content"]
    assert user.startswith("Complete the following Lean 4 code")
    assert ("namespace Demo\n\ndef double (n : Nat) : Nat := 2 * n\n\ntheorem double_add (a b : Nat)"
            " : double (a + b) = double a + double b := by\n  sorry\n```") in user
    assert "Informal proof: Unfold and distribute." in user


def test_llm_completion_mode_garbage_is_a_failed_attempt(env, llm):
    ws, tc, bp = env
    srv = llm([text("I cannot do this."), text("```python\nprint(1)\n```")])
    cfg = _cfg(roles={"prove": {"mode": "completion", "max_reprompts": 1}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    res = prove_node(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc, client=c)
    assert res.status == "failed" and "no fenced ```lean block" in res.reason


def test_attempt_budget(env, llm):
    ws, tc, bp = env
    srv = llm(default=tool_call("submit", body="by bogus"))
    cfg = _cfg(budgets={"per_node_attempts": 1}, roles={"prove": {"max_tool_rounds": 2}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    first = prove_node(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc, client=c)
    assert first.status == "failed" and "after 2 tool-call rounds" in first.reason
    second = prove_node(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc, client=c)
    assert second.status == "budget" and "1 of 1 attempts" in second.reason
    assert len(srv.chat_requests) == 2


def test_unverified_without_lean(demo_ws: Path, llm):
    bp = parse_file(demo_ws / "Demo.lean")
    srv = llm([tool_calls([("submit", {"body": "by omega"})])])
    c = LLMClient(Endpoint(srv.base_url, None), _cfg())
    res = prove_node(bp, "lem:double_add", workspace=demo_ws, cfg=c.cfg, toolchain=None, client=c)
    assert res.status == "unverified" and res.body == "by omega"


def test_lean_timeout_on_last_candidate_is_cannot_certify(env, llm):
    ws, tc, bp = env
    srv = llm([tool_call("submit", body="by fake_hang")])
    cfg = _cfg(roles={"prove": {"max_tool_rounds": 1}}, timeouts={"lean_s": 1.0})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    res = prove_node(bp, "lem:double_add", workspace=ws, cfg=cfg, toolchain=tc, client=c)
    assert res.status == "cannot_certify" and "Lean could not check" in res.reason
