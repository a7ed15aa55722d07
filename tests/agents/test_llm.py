"""The LLM client: retries/backoff, budgets, accounting, transcripts, key scrubbing."""

from __future__ import annotations

import threading

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.llm import BudgetExceeded, Ledger, LLMClient, LLMError
from harness.agents.llmrecords import Transcript
from tests.support.llm_server import error, malformed, slow, text

KEY = "sk-test-SECRET-0123456789"


def _cfg(**over) -> HarnessConfig:
    data = {"endpoint": {"default_model": "m1"},
            "retries": {"max_attempts": 3, "backoff_base_s": 0.5, "backoff_max_s": 4},
            "prices": {"m1": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}},
            "timeouts": {"request_s": 5}}
    data.update(over)
    return HarnessConfig.model_validate(data)


def _client(srv, cfg=None, sleeps=None, key=KEY) -> LLMClient:
    sleeps = sleeps if sleeps is not None else []
    return LLMClient(Endpoint(srv.base_url, key), cfg or _cfg(), sleep=sleeps.append)


MSGS = [{"role": "user", "content": "prove it"}]


def test_retries_429_and_5xx_with_backoff_then_succeeds(llm):
    srv = llm([error(429, retry_after=1.5), error(502), text("done", usage=(1000, 500))])
    sleeps: list[float] = []
    c = _client(srv, sleeps=sleeps)
    t = Transcript(role="prove", node="n1")
    r = c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove", node="n1", transcript=t)
    assert r.content == "done"
    assert sleeps == [1.5, 1.0]  # Retry-After honoured, then exponential (0.5 * 2)
    assert len(srv.chat_requests) == 3
    assert t.calls[0].tries == 3 and t.calls[0].error is None
    # cost from the price table: 1000 in * 1000/M + 500 out * 2000/M = 1 + 1 = 2 USD
    assert r.usage.cost_usd == pytest.approx(2.0)
    assert c.ledger.by_node["n1"].cost_usd == pytest.approx(2.0)
    assert c.ledger.by_role["prove"].prompt_tokens == 1000


def test_gives_up_after_bounded_tries_with_clear_reason(llm):
    srv = llm(default=error(503, message=f"upstream says {KEY}"))
    sleeps: list[float] = []
    c = _client(srv, sleeps=sleeps)
    t = Transcript(role="prove")
    with pytest.raises(LLMError) as e:
        c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove", transcript=t)
    assert "after 3 tries" in e.value.reason and "503" in e.value.reason
    assert KEY not in e.value.reason and "[REDACTED]" in e.value.reason
    assert len(srv.chat_requests) == 3 and len(sleeps) == 2
    assert KEY not in t.model_dump_json()


def test_retry_after_is_capped(llm):
    srv = llm([error(429, retry_after=600), text("ok")])
    sleeps: list[float] = []
    c = _client(srv, sleeps=sleeps)
    c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")
    assert sleeps == [4.0]


def test_timeout_is_retried(llm):
    srv = llm([slow(20), text("fast")])
    c = _client(srv, cfg=_cfg(timeouts={"request_s": 0.3}))
    r = c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")
    assert r.content == "fast" and len(srv.chat_requests) == 2


def test_client_errors_are_not_retried(llm):
    srv = llm(api_key="sk-other")
    c = _client(srv)
    with pytest.raises(LLMError) as e:
        c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")
    assert e.value.status == 401 and len(srv.chat_requests) == 1


def test_malformed_body_is_an_error_not_a_crash(llm):
    srv = llm([malformed(b"<html>oops")])
    c = _client(srv)
    with pytest.raises(LLMError, match="malformed response"):
        c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")


def test_request_parameters_per_role(llm):
    srv = llm([text("a"), text("b")])
    cfg = _cfg(roles={"audit": {"model": "big", "temperature": 0.2, "max_tokens": 77,
                                "reasoning_effort": "high"}})
    c = _client(srv, cfg=cfg)
    c.chat(MSGS, role=cfg.role("audit"), role_name="audit")
    c.chat(MSGS, role=cfg.role("prove"), role_name="prove")
    a, b = (r.json for r in srv.chat_requests)
    assert (a["model"], a["temperature"], a["max_tokens"], a["reasoning_effort"]) == (
        "big", 0.2, 77, "high")
    assert b["model"] == "m1" and "temperature" not in b and "reasoning_effort" not in b


def test_key_only_in_authorization_header(llm):
    srv = llm([text(f"echo {KEY}")])
    c = _client(srv)
    t = Transcript(role="prove")
    r = c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove", transcript=t)
    req = srv.chat_requests[0]
    assert req.headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in req.body.decode()
    assert KEY not in repr(c)
    assert c.scrub(r.message)["content"] == "echo [REDACTED]"


def test_budgets_stop_before_the_next_request(llm):
    srv = llm(default=text("x", usage=(1000, 0)))  # 1 USD per call at the test prices
    c = _client(srv, cfg=_cfg(budgets={"per_node_usd": 1.5, "per_run_usd": 10}))
    role = c.cfg.role("prove")
    c.chat(MSGS, role=role, role_name="prove", node="a")
    c.chat(MSGS, role=role, role_name="prove", node="a")  # 1.0 < 1.5: allowed, now 2.0
    with pytest.raises(BudgetExceeded) as e:
        c.chat(MSGS, role=role, role_name="prove", node="a")
    assert e.value.scope == "node" and "'a'" in str(e.value) and "$2.0000 of $1.5000" in str(e.value)
    assert len(srv.chat_requests) == 2
    c.chat(MSGS, role=role, role_name="prove", node="b")  # other nodes still run


def test_role_and_run_budgets_and_attempts():
    led = Ledger(HarnessConfig.model_validate(
        {"budgets": {"per_role_usd": 1, "per_run_usd": 3, "per_node_attempts": 2}}).budgets,
        {"m": HarnessConfig.model_validate(
            {"prices": {"m": {"input_per_mtok": 1e6, "output_per_mtok": 0}}}).prices["m"]})
    led.charge("n1", "audit", "m", 1, 0)
    with pytest.raises(BudgetExceeded, match="role 'audit'"):
        led.check("n2", "audit")
    led.charge("n2", "prove", "m", 2, 0)
    with pytest.raises(BudgetExceeded, match="budget exhausted for run"):
        led.check("n3", "prove")
    assert led.begin_attempt("x") == 1 and led.begin_attempt("x") == 2
    with pytest.raises(BudgetExceeded, match="2 of 2 attempts"):
        led.begin_attempt("x")
    snap = led.snapshot()
    assert snap["run"]["cost_usd"] == pytest.approx(3.0) and snap["attempts"] == {"x": 2}


def test_unpriced_model_and_missing_usage_are_flagged(llm):
    srv = llm([text("abcd" * 10, no_usage=True)])
    c = _client(srv, cfg=_cfg(endpoint={"default_model": "free"}))
    r = c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")
    assert r.usage.estimated and r.usage.unpriced and r.usage.completion_tokens > 0


def test_ledger_is_thread_safe():
    led = Ledger()
    threads = [threading.Thread(target=lambda: [led.charge("n", "prove", "m", 1, 1)
                                                for _ in range(500)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert led.run.prompt_tokens == 4000 and led.by_node["n"].calls == 4000


def test_no_model_configured_is_a_clear_error(llm):
    srv = llm([text("x")])
    c = LLMClient(Endpoint(srv.base_url, None), HarnessConfig())
    with pytest.raises(LLMError, match="no model configured"):
        c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove")
    assert srv.chat_requests == []  # refused before any request


def test_tool_calling_refused_hints_at_completion_mode(llm):
    srv = llm([error(400, message='"auto" tool choice requires --enable-auto-tool-choice')])
    c = _client(srv)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    with pytest.raises(LLMError) as e:
        c.chat(MSGS, role=c.cfg.role("prove"), role_name="prove", tools=tools)
    assert e.value.status == 400 and 'roles.prove.mode = "completion"' in e.value.reason


def test_max_completion_tokens_param(llm):
    srv = llm([text("a")])
    cfg = _cfg(endpoint={"default_model": "m1", "max_tokens_param": "max_completion_tokens"},
               roles={"prove": {"max_tokens": 99}})
    c = _client(srv, cfg=cfg)
    c.chat(MSGS, role=cfg.role("prove"), role_name="prove")
    body = srv.chat_requests[0].json
    assert body["max_completion_tokens"] == 99 and "max_tokens" not in body
