"""construct / audit / repair: contracts enforced on real parser output, over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.agents.blueprinting import (audit, blueprint_problems, construct, read_source,
                                         repair)
from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.llm import LLMClient
from harness.blueprint.parse import parse_text
from harness.errors import UsageError
from tests.agents.conftest import DEMO
from tests.support.llm_server import text, tool_call

GOOD_BP = """import Mathlib

def sq (n : Nat) : Nat := n * n

@[blueprint "lem:sq_pos" (statement := /-- $n^2 \\ge 0$. -/)]
theorem sq_nonneg' (n : Nat) : 0 ≤ sq n := by
  sorry

@[blueprint "thm:main" (statement := /-- Uses \\cref{lem:sq_pos}. -/)
  (proof := /-- By \\cref{lem:sq_pos}. -/)]
theorem main (n : Nat) : 0 ≤ sq n + 1 := by
  sorry_using [sq_nonneg']
"""


def _client(srv, **roles) -> LLMClient:
    cfg = HarnessConfig.model_validate({"endpoint": {"default_model": "m"}, "roles": roles})
    return LLMClient(Endpoint(srv.base_url, None), cfg, sleep=lambda s: None)


def test_blueprint_problems_accepts_a_clean_blueprint():
    assert blueprint_problems(GOOD_BP) == []


@pytest.mark.parametrize("mutate, expect", [
    (lambda t: t.replace("sorry_using [sq_nonneg']", "sorry_using [nonexistent]"), "nonexistent"),
    (lambda t: t.replace("  sorry\n", "  simp [sq]\n", 1), "has a proof"),
    (lambda t: t.replace("n * n", "sorry"), "definition"),
    (lambda t: t + "\naxiom cheat : False\n", "`axiom` is not allowed"),
    (lambda t: t + "\n/- unterminated", "unterminated"),
    (lambda t: "import Mathlib\n", "no @[blueprint] nodes"),
])
def test_blueprint_problems_findings(mutate, expect):
    assert any(expect in p for p in blueprint_problems(mutate(GOOD_BP)))


def test_construct_reprompts_with_findings_then_accepts(llm):
    bad = GOOD_BP.replace("sorry_using [sq_nonneg']", "sorry_using [nonexistent]")
    srv = llm([text(f"Here:\n```lean\n{bad}```\n"), text(f"Fixed:\n```lean\n{GOOD_BP}```")])
    c = _client(srv, construct={"mode": "completion", "max_reprompts": 2})
    out = construct("Let sq n = n*n. Then sq n + 1 >= 0.", client=c, cfg=c.cfg)
    assert out.ok and out.output.lean.strip() == GOOD_BP.strip()
    feedback = srv.chat_requests[1].messages[-1]["content"]
    assert "nonexistent" in feedback and "not accepted" in feedback
    assert "sq n + 1 >= 0" in srv.chat_requests[0].messages[1]["content"]


def test_construct_gives_up_bounded(llm):
    srv = llm(default=text("```lean\nimport Mathlib\n```"))
    c = _client(srv, construct={"mode": "completion", "max_reprompts": 1})
    out = construct("src", client=c, cfg=c.cfg)
    assert out.status == "failed" and "no @[blueprint] nodes" in out.reason
    assert len(srv.chat_requests) == 2


def test_read_source_kinds(tmp_path: Path):
    (tmp_path / "a.md").write_text("# Claim\nx")
    assert read_source(tmp_path / "a.md") == "# Claim\nx"
    (tmp_path / "b.tex").write_bytes(b"\xff\xfe")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_source(tmp_path / "b.tex")
    (tmp_path / "c.pdf").write_bytes(b"%PDF-1.4 garbage")
    with pytest.raises(UsageError, match="pypdf|cannot read the PDF"):
        read_source(tmp_path / "c.pdf")
    with pytest.raises(UsageError, match="no such file"):
        read_source(tmp_path / "missing.md")


def test_audit_findings_must_name_existing_labels(llm):
    good = {"label": "thm:main", "severity": "major", "kind": "too_weak",
            "explanation": "x", "suggested_fix": "y"}
    srv = llm([tool_call("submit", findings=[good | {"label": "thm:nope"}]),
               tool_call("submit", findings=[good], summary="s")])
    c = _client(srv)
    bp = parse_text(DEMO)
    out = audit(bp, "The source says double(a+a) = 4a.", client=c, cfg=c.cfg)
    assert out.ok and [f.label for f in out.output.findings] == ["thm:main"]
    first = srv.chat_requests[0].messages[1]["content"]
    assert "### thm:main" in first and "def double" in first and "4a" in first
    assert "Unfold and distribute" not in first  # audits see statements, not proofs
    assert "unknown label 'thm:nope'" in srv.chat_requests[1].messages[-1]["content"]


HELPERS = """@[blueprint "lem:double_self" (statement := /-- $d(a+a) = d(a)+d(a)$ -/)]
theorem double_self (a : Nat) : double (a + a) = double a + double a := by
  sorry_using [double_add]"""


def test_repair_split_grows_the_dag_and_keeps_statements(llm):
    srv = llm([tool_call("submit", kind="split", helpers=HELPERS,
                         body="by\n  sorry_using [double_self]")])
    c = _client(srv)
    bp = parse_text(DEMO)
    res = repair(bp, "thm:main", ["omega failed", "simp failed"], client=c, cfg=c.cfg)
    assert res.status == "ok" and res.new_labels == ["lem:double_self"]
    new = parse_text(res.new_text)
    assert [d.key for d in new.nodes] == ["lem:double_add", "lem:unrelated", "lem:double_self",
                                         "thm:main"]
    assert new.node("thm:main").sorry_using == ["double_self"]
    assert "omega failed" in srv.chat_requests[0].messages[1]["content"]


@pytest.mark.parametrize("helpers, body, expect", [
    (HELPERS.replace("sorry_using [double_add]", "simp [double]"), "by sorry_using [double_self]",
     "placeholder"),
    (HELPERS.replace('@[blueprint "lem:double_self" (statement := /-- $d(a+a) = d(a)+d(a)$ -/)]\n',
                     ""), "by sorry_using [double_self]", "needs a @[blueprint"),
    (HELPERS.replace("lem:double_self", "lem:double_add"), "by sorry_using [double_self]",
     "already exists"),
    (HELPERS, "by\n  simp", "must be a `sorry_using` placeholder"),
    (HELPERS, "by sorry_using [double_self]\n\ntheorem main_thm (a : Nat) : True := trivial",
     "not further declarations"),
])
def test_repair_contract_violations_are_rejected(llm, helpers, body, expect):
    srv = llm([tool_call("submit", kind="split", helpers=helpers, body=body)])
    c = _client(srv, repair={"max_tool_rounds": 1})
    res = repair(parse_text(DEMO), "thm:main", ["x"], client=c, cfg=c.cfg)
    assert res.status == "failed" and res.new_text is None
    assert any(expect in p for p in res.outcome.problems), res.outcome.problems


def test_repair_blocker(llm):
    srv = llm([text(json.dumps({"kind": "blocker", "reason": "false for a = 0"}))])
    c = _client(srv, repair={"mode": "completion"})
    res = repair(parse_text(DEMO), "thm:main", ["x"], client=c, cfg=c.cfg, source="src")
    assert res.status == "ok" and res.outcome.output.reason == "false for a = 0"
    assert res.new_text is None


def test_refine_sends_findings_and_validates(llm):
    from harness.agents.blueprinting import refine

    srv = llm([text("```lean\nimport Mathlib\n```"), text(f"```lean\n{GOOD_BP}```")])
    c = _client(srv, construct={"mode": "completion", "max_reprompts": 1})
    finding = {"label": "thm:main", "severity": "critical", "kind": "too_weak",
               "explanation": "needs +1", "suggested_fix": "0 ≤ sq n + 1"}
    out = refine(GOOD_BP, "the source", [finding], client=c, cfg=c.cfg)
    assert out.ok and "theorem main" in out.output.lean
    first = srv.chat_requests[0].messages[1]["content"]
    assert "- thm:main (critical, too_weak): needs +1 Suggested: 0 ≤ sq n + 1" in first
    again = srv.chat_requests[1].messages[-1]["content"]  # the refine contract (restate's)
    assert ("the declarations must stay the same, in the same order (new placeholder nodes "
            "may be added); missing: lem:sq_pos, sq, thm:main") in again
