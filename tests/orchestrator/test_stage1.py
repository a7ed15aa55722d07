"""Stage 1 end to end: construct from a source, audit <-> refine, lock, then stage 2 — through
`python -m harness run` with the scripted LLM server and the fake Lean."""

from __future__ import annotations

import json

import git

from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import completion_config, fake_env, lake_workspace
from tests.orchestrator.test_run_cli import harness
from tests.support.llm_server import ScriptedLLM, text

BLUEPRINT = '''import Architect

namespace S

@[blueprint "lem:zero-add"
  (statement := /-- $n + 0 = n$. -/)
  (proof := /-- Arithmetic. -/)
  (latexEnv := "lemma")]
theorem zero_add_lem (n : Nat) : n + 0 = n := by
  sorry

@[blueprint "thm:main"
  (statement := /-- {claim} (uses \\cref{{lem:zero-add}}). -/)
  (proof := /-- By \\cref{{lem:zero-add}}. -/)
  (latexEnv := "theorem")]
theorem main_thm (n : Nat) : {lean} := by
  sorry_using [zero_add_lem]

end S
'''
WEAK = BLUEPRINT.format(claim="$n + 0 \\le n + 1$", lean="n + 0 ≤ n + 1")
FIXED = BLUEPRINT.format(claim="$n + 0 + 0 = n$", lean="n + 0 + 0 = n")


def fenced(lang: str, body: str) -> str:
    return f"```{lang}\n{body}\n```"


def script(req):
    system = req.messages[0]["content"]
    user = req.messages[-1]["content"]
    if system.startswith("You turn an informal"):  # construct
        return text(fenced("lean", WEAK))
    if system.startswith("You revise a Lean 4 blueprint"):  # refine (its own prompt)
        assert user.startswith("Revise") and "not an inequality" in user and "n + 0 ≤ n + 1" in user
        return text(fenced("lean", FIXED))
    if system.startswith("You are an adversarial reviewer"):
        if "n + 0 ≤ n + 1" in user:
            finding = {"label": "thm:main", "severity": "major", "kind": "too_weak",
                       "explanation": "the source proves an equality, not an inequality",
                       "suggested_fix": "n + 0 + 0 = n"}
            return text(fenced("json", json.dumps({"findings": [finding]})))
        return text(fenced("json", json.dumps({"findings": [
            {"label": "lem:zero-add", "severity": "minor", "kind": "drift",
             "explanation": "wording"}]})))
    return text(fenced("lean", "by\n  omega"))  # the prove role


def test_construct_audit_refine_lock_then_prove(tmp_path) -> None:
    ws = lake_workspace(tmp_path)
    src = tmp_path / "source.md"
    src.write_text("Theorem. For every natural number n, n + 0 + 0 = n.\n")
    f = ws / "Blueprint" / "Main.lean"
    with ScriptedLLM(script) as srv:
        completion_config(ws, srv.base_url)
        out = harness(["run", str(f), "--source", str(src), "--json", "--max-rounds", "3"], ws,
                      fake_env())
        requests = srv.chat_requests
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"] == {"proved": 2, "open": 0, "blocked": 0}
    refines = [r for r in requests
               if r.messages[0]["content"].startswith("You revise a Lean 4 blueprint")]
    assert len(refines) == 1 and "{{" not in refines[0].messages[0]["content"]
    assert "`native_decide`" in refines[0].messages[0]["content"]  # the gate's list, rendered
    assert "n + 0 + 0 = n" in f.read_text()  # the refined statement is what got proved
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    kinds = [e["kind"] for e in evs]
    assert kinds.index("construct") < kinds.index("audit") < kinds.index("refine") \
        < kinds.index("locked") < kinds.index("dispatch")
    audits = [e for e in evs if e["kind"] == "audit"]
    assert [a["blocking"] for a in audits] == [1, 0]  # round 2: only a minor finding
    assert (run_dir(ws, f) / "statements.lock.json").exists()
    subjects = [c.summary for c in git.Repo(ws).iter_commits()]
    assert any("construct" in s for s in subjects) and any("refine" in s for s in subjects)


def test_stage1_round_limit_stops_before_stage2(tmp_path) -> None:
    ws = lake_workspace(tmp_path)
    src = tmp_path / "source.md"
    src.write_text("Theorem. n + 0 + 0 = n.\n")
    f = ws / "Main.lean"

    def stubborn(req):  # refine keeps answering with the weak statement
        system = req.messages[0]["content"]
        if system.startswith(("You turn an informal", "You revise a Lean 4 blueprint")):
            return text(fenced("lean", WEAK))
        return script(req)

    with ScriptedLLM(stubborn) as srv:
        (ws / "harness.toml").write_text(f"""
[endpoint]
base_url = "{srv.base_url}"
default_model = "test-model"
[roles.construct]
mode = "completion"
[roles.audit]
mode = "completion"
""")
        out = harness(["run", str(f), "--source", str(src), "--json", "--max-rounds", "2"], ws,
                      fake_env())
    assert out.returncode == 1, out.stderr
    res = json.loads(out.stdout)
    assert "after 2 rounds" in res["stop_reason"]
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    assert not any(e["kind"] in ("dispatch", "locked") for e in evs)
