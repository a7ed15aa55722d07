"""The scripted server itself, driven through the real openai client."""

from __future__ import annotations

import json

import openai
import pytest

from tests.support.llm_server import (ScriptedLLM, error, loop_tool_call, malformed, slow, text,
                                      tool_call)


def _client(srv: ScriptedLLM, key: str = "sk-test", timeout: float = 10) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key=key, max_retries=0, timeout=timeout)


def _ask(c: openai.OpenAI, content: str = "hi"):
    return c.chat.completions.create(model="m1", messages=[{"role": "user", "content": content}])


def test_queue_in_order_and_records_requests():
    with ScriptedLLM([text("one"), tool_call("lookup", name="Nat.add_comm")]) as srv:
        c = _client(srv)
        assert _ask(c, "a").choices[0].message.content == "one"
        r = _ask(c, "b")
        call = r.choices[0].message.tool_calls[0]
        assert call.function.name == "lookup"
        assert json.loads(call.function.arguments) == {"name": "Nat.add_comm"}
        assert r.choices[0].finish_reason == "tool_calls"
        assert [q.last_message["content"] for q in srv.chat_requests] == ["a", "b"]
        assert srv.requests[0].headers["authorization"] == "Bearer sk-test"
        assert srv.remaining == 0
        with pytest.raises(openai.InternalServerError, match="script exhausted"):
            _ask(c)


def test_errors_retry_after_and_malformed():
    with ScriptedLLM([error(429, retry_after=2), error(503), malformed()]) as srv:
        c = _client(srv)
        with pytest.raises(openai.RateLimitError) as e:
            _ask(c)
        assert e.value.response.headers["retry-after"] == "2"
        with pytest.raises(openai.InternalServerError):
            _ask(c)
        with pytest.raises(ValueError):  # the SDK cannot decode the body
            _ask(c)


def test_slow_reply_times_out_and_stop_is_prompt():
    with ScriptedLLM([slow(30)]) as srv:
        with pytest.raises(openai.APITimeoutError):
            _client(srv, timeout=0.3).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}])
    # leaving the block woke the sleeping handler (no 30 s wait)


def test_callable_script_and_api_key_check_and_models():
    with ScriptedLLM(loop_tool_call("check_candidate", body="by simp"), api_key="sk-right",
                     models=["a", "b"]) as srv:
        with pytest.raises(openai.AuthenticationError):
            _ask(_client(srv, key="sk-wrong"))
        c = _client(srv, key="sk-right")
        for _ in range(3):
            assert _ask(c).choices[0].message.tool_calls[0].function.name == "check_candidate"
        assert [m.id for m in c.models.list().data] == ["a", "b"]


def test_usage_default_and_explicit():
    with ScriptedLLM([text("x", usage=(100, 7)), text("y", no_usage=True)]) as srv:
        c = _client(srv)
        u = _ask(c).usage
        assert (u.prompt_tokens, u.completion_tokens, u.total_tokens) == (100, 7, 107)
        assert _ask(c).usage is None
