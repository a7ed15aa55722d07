"""The role runner over real HTTP: tools and completion modes, garbage handling, loop cut-off."""

from __future__ import annotations

import json

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.contracts import FORBIDDEN_IN_PROOFS
from harness.agents.llm import LLMClient
from harness.agents.roles import load_prompt, run_role, submit_spec
from harness.agents.schemas import AuditReport, RepairResult
from tests.support.llm_server import loop_tool_call, malformed, text, tool_call, tool_calls

KEY = "sk-roles-SECRET"


class EchoTools:
    """A real (tiny) toolbox: records calls, answers deterministically."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def specs(self):
        return [{"type": "function", "function": {
            "name": "lookup", "description": "look up",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}}]

    def call(self, name, args):
        self.calls.append((name, args))
        return f"statement of {args.get('name')}"


def _client(srv, **roles) -> LLMClient:
    cfg = HarnessConfig.model_validate({"endpoint": {"default_model": "m"}, "roles": roles,
                                        "retries": {"max_attempts": 1}})
    return LLMClient(Endpoint(srv.base_url, KEY), cfg, sleep=lambda s: None)


FINDING = {"label": "thm:main", "severity": "critical", "kind": "too_weak",
           "explanation": "drops the factor 2", "suggested_fix": "state it for all n"}


def test_tools_mode_tool_then_submit(llm):
    srv = llm([tool_call("lookup", name="Demo.double"),
               tool_call("submit", findings=[FINDING], summary="one problem")])
    c, tools = _client(srv), EchoTools()
    out = run_role("audit", "review this", client=c, cfg=c.cfg, toolbox=tools)
    assert out.ok and isinstance(out.output, AuditReport)
    assert out.output.findings[0].kind == "too_weak"
    assert tools.calls == [("lookup", {"name": "Demo.double"})]
    second = srv.chat_requests[1]
    assert second.messages[-1] == {"role": "tool", "tool_call_id": second.messages[-2][
        "tool_calls"][0]["id"], "content": "statement of Demo.double"}
    assert {t["function"]["name"] for t in second.tools} == {"lookup", "submit"}
    assert out.transcript.outcome == "ok" and len(out.transcript.calls) == 2
    assert KEY not in out.transcript.model_dump_json()


def test_malformed_tool_arguments_are_fed_back_then_fixed(llm):
    srv = llm([tool_call("submit", '{"kind": "split", "helpers": '),
               tool_call("submit", kind="split", helpers=""),  # schema violation
               tool_call("submit", kind="blocker", reason="false for n = 0")])
    c = _client(srv)
    out = run_role("repair", "repair thm:main", client=c, cfg=c.cfg)
    assert out.ok and isinstance(out.output, RepairResult) and out.output.kind == "blocker"
    fed = [r.messages[-1]["content"] for r in srv.chat_requests[1:]]
    assert "malformed JSON arguments" in fed[0]
    assert "a split needs at least one helper node" in fed[1]


def test_endless_tool_loop_is_cut_off_and_reported(llm):
    srv = llm(loop_tool_call("lookup", name="x"))
    c = _client(srv, audit={"max_tool_rounds": 4})
    out = run_role("audit", "review", client=c, cfg=c.cfg, toolbox=EchoTools())
    assert out.status == "failed" and "no accepted result after 4 tool-call rounds" in out.reason
    assert len(srv.chat_requests) == 4


def test_unknown_tool_and_plain_text_answer_in_tools_mode(llm):
    srv = llm([tool_call("rm_rf", path="/"),
               text("Here you go:\n```json\n" + json.dumps({"findings": []}) + "\n```")])
    c = _client(srv)
    out = run_role("audit", "review", client=c, cfg=c.cfg, toolbox=EchoTools())
    assert out.ok and out.output.findings == []
    assert "unknown tool `rm_rf`" in srv.chat_requests[1].messages[-1]["content"]


def test_completion_mode_garbage_then_reprompt_bounded(llm):
    srv = llm([text("I think it is fine."), text("still no json"), text("nope")])
    c = _client(srv, audit={"mode": "completion", "max_reprompts": 2})
    out = run_role("audit", "review", client=c, cfg=c.cfg)
    assert out.status == "failed" and "no JSON object" in out.reason
    assert len(srv.chat_requests) == 3
    assert all("tools" not in r.json for r in srv.chat_requests)
    assert "not accepted" in srv.chat_requests[1].messages[-1]["content"]


def test_endpoint_failure_is_an_outcome_not_an_exception(llm):
    srv = llm([malformed()])
    c = _client(srv)
    out = run_role("audit", "review", client=c, cfg=c.cfg)
    assert out.status == "error" and "malformed response" in out.reason


def test_budget_stops_cleanly(llm):
    srv = llm(default=tool_call("lookup", name="x"))
    cfg = HarnessConfig.model_validate({
        "endpoint": {"default_model": "m"}, "budgets": {"per_node_usd": 0.001},
        "prices": {"m": {"input_per_mtok": 100.0, "output_per_mtok": 100.0}}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    out = run_role("audit", "x" * 400, client=c, cfg=cfg, node="thm:main", toolbox=EchoTools())
    assert out.status == "budget" and "node 'thm:main'" in out.reason
    assert 1 <= len(srv.chat_requests) < cfg.role("audit").max_tool_rounds


def test_validator_rejection_is_fed_back(llm):
    srv = llm([tool_calls([("submit", {"findings": [FINDING | {"label": "nope"}]})]),
               tool_call("submit", findings=[FINDING])])
    c = _client(srv)

    def validate(out):
        return [f"unknown label {f.label}" for f in out.findings if f.label != "thm:main"]

    out = run_role("audit", "review", client=c, cfg=c.cfg, validate=validate)
    assert out.ok and "unknown label nope" in srv.chat_requests[1].messages[-1]["content"]


@pytest.mark.parametrize("role", ["prove", "audit", "repair", "construct"])
def test_prompts_load_and_schemas_are_tools(role):
    prompt = load_prompt(role)
    assert "{{" not in prompt and len(prompt) > 300
    spec = submit_spec(role)
    assert spec["function"]["name"] == "submit" and spec["function"]["parameters"]["properties"]


def test_refine_has_its_own_prompt():
    refine = load_prompt("refine")
    assert "{{" not in refine and refine != load_prompt("construct")
    assert "audit" in refine and "whole corrected file" in refine


def test_prove_prompt_lists_every_forbidden_construct():
    prompt = load_prompt("prove")
    for token in FORBIDDEN_IN_PROOFS:
        assert f"`{token}`" in prompt


def test_prompts_agree_with_the_gate_lists():
    """Every construct the gate rejects in a proof is named as forbidden in the prove prompt."""
    from harness.gate import forbidden as gate

    prove = load_prompt("prove")
    for word in (gate.SORRY_WORDS | gate.BODY_SORRY_WORDS | gate.ALWAYS_SORRY | gate.NATIVE
                 | gate.COMPILER | gate.METAPROGRAM):
        assert f"`{word}`" in prove, word
    for word in ("axiom", "opaque", "unsafe", "instance", "attribute", "#eval", "#exit",
                 "+native", "set_option"):
        assert f"`{word}`" in prove, word
    for role in ("construct", "refine", "repair"):
        text = load_prompt(role)
        for word in gate.NATIVE | {"axiom", "macro", "elab", "run_cmd"}:
            assert f"`{word}`" in text, (role, word)


def test_cut_off_answer_is_reported(llm):
    srv = llm([text("```json\n{\"findings\": [", finish_reason="length")])
    c = _client(srv, audit={"mode": "completion", "max_reprompts": 0})
    out = run_role("audit", "review", client=c, cfg=c.cfg)
    assert out.status == "failed" and "cut off (max_tokens reached)" in out.reason
