"""Stage 1 compiles the blueprint first: Lean's errors go to the refine prompt (restate), every
changed statement is marked and re-read by the audit before the lock; without an endpoint the
run stops with the errors listed (exit 1). `python -m harness run`, the fake Lean (rule 8 of
tests/fakes/README.md) and the scripted LLM server."""

from __future__ import annotations

import json

import git

from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import completion_config as config
from tests.orchestrator.support import fake_env, lake_workspace, workspace
from tests.orchestrator.test_run_cli import harness
from tests.support.llm_server import ScriptedLLM, role_of, text

TEMPLATE = '''import Architect

namespace C

@[blueprint "lem:add-zero"
  (statement := /-- For every natural number $n$, $n + 0 = n$. -/)]
theorem add_zero_lem (n : Nat) : {a} := by
  sorry

@[blueprint "lem:zero-add"
  (statement := /-- For every natural number $n$, $0 + n = n$. -/)]
theorem zero_add_lem (n : Nat) : {b} := by
  sorry

@[blueprint "thm:both"
  (statement := /-- Both, by \\cref{{lem:add-zero}} and \\cref{{lem:zero-add}}. -/)
  (proof := /-- Combine them. -/)]
theorem both (n : Nat) : n + 0 + (0 + n) = n + n := by
  sorry_using [add_zero_lem, zero_add_lem]

end C
'''
BROKEN = TEMPLATE.format(a="n + fake_elab_mismatch = n", b="(0 : Nat) + fake_elab_instance = n")
GOOD = TEMPLATE.format(a="n + 0 = n", b="0 + n = n")
WEAK = TEMPLATE.format(a="n + 0 = n", b="0 + n = 0 + n")  # elaborates, but says nothing


def fenced(lang: str, body: str) -> str:
    return f"```{lang}\n{body}\n```"




def auditor(req, weak_is: str = "0 + n = 0 + n"):
    """Flags the weakened statement (a meaning change); anything else is clean."""
    user = req.messages[-1]["content"]
    if weak_is in user.split("## Blueprint nodes", 1)[-1]:
        finding = {"label": "lem:zero-add", "severity": "major", "kind": "drift",
                   "explanation": "the restated statement is a tautology, not 0 + n = n",
                   "suggested_fix": "0 + n = n"}
        return text(fenced("json", json.dumps({"findings": [finding]})))
    return text(fenced("json", json.dumps({"findings": []})))


def test_two_broken_statements_restated_audited_locked_then_proved(tmp_path) -> None:
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent

    def script(req):
        role = role_of(req)
        if role == "refine":
            return text(fenced("lean", GOOD))
        if role == "audit":
            return auditor(req)
        return text(fenced("lean", "by\n  omega"))  # prove

    with ScriptedLLM(script) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--json"], ws, fake_env())
        reqs = srv.chat_requests
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"] == {"proved": 3, "open": 0, "blocked": 0}
    restates = [r for r in reqs if role_of(r) == "refine"]
    assert len(restates) == 1
    asked = restates[0].messages[-1]["content"]
    # the findings: FILE:LINE:COL, node, Lean's message and what it expected
    assert "Blueprint/C.lean:7:" in asked and "lem:add-zero" in asked
    assert "Application type mismatch" in asked and "but is expected to have type" in asked
    assert "Blueprint/C.lean:12:" in asked and "failed to synthesize" in asked
    assert "For every natural number $n$, $0 + n = n$" in asked  # the informal reference
    audits = [r for r in reqs if role_of(r) == "audit"]
    assert len(audits) == 1 and "re-read each one" in audits[0].messages[-1]["content"]
    assert "fake_elab_instance" in audits[0].messages[-1]["content"]  # the 'before' text
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    kinds = [e["kind"] for e in evs]
    assert kinds.index("compile") < kinds.index("restate") < kinds.index("restated") \
        < kinds.index("audit") < kinds.index("locked") < kinds.index("dispatch")
    first = next(e for e in evs if e["kind"] == "compile")
    assert first["errors"] == 2 and {x["node"] for x in first["findings"]} == {
        "lem:add-zero", "lem:zero-add"}
    restated = next(e for e in evs if e["kind"] == "restated")
    assert sorted(restated["nodes"]) == ["lem:add-zero", "lem:zero-add"]
    audit = next(e for e in evs if e["kind"] == "audit")
    assert audit["changed"] == ["lem:add-zero", "lem:zero-add"]
    msgs = [c.message for c in git.Repo(ws).iter_commits()]
    assert any("Harness-Restated: lem:add-zero,lem:zero-add" in m for m in msgs)
    assert "fake_elab" not in f.read_text() and "0 + n = n := by" in f.read_text()
    lock = json.loads((run_dir(ws, f) / "statements.lock.json").read_text())
    assert lock["elaborated"] is True


def test_a_meaning_changing_restate_is_caught_by_the_audit(tmp_path) -> None:
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent

    def script(req):
        role = role_of(req)
        user = req.messages[-1]["content"]
        if role == "refine" and "Lean rejects" in user:
            return text(fenced("lean", WEAK))  # elaborates, but drops the claim
        if role == "refine":  # the fidelity refine, given the audit's finding
            assert "tautology" in user
            return text(fenced("lean", GOOD))
        if role == "audit":
            return auditor(req)
        return text(fenced("lean", "by\n  omega"))

    with ScriptedLLM(script) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--stage", "1", "--json"], ws, fake_env())
    assert out.returncode == 0, out.stderr
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    audits = [e for e in evs if e["kind"] == "audit"]
    assert [a["blocking"] for a in audits] == [1, 0]  # caught, refined, clean
    assert audits[0]["findings"][0]["kind"] == "drift"
    kinds = [e["kind"] for e in evs]
    assert kinds.index("restated") < kinds.index("audit") < kinds.index("refine") \
        < kinds.index("locked")
    assert "0 + n = 0 + n" not in f.read_text() and "0 + n = n := by" in f.read_text()


def test_without_an_endpoint_the_lean_errors_are_listed_exit_1(tmp_path) -> None:
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent
    out = harness(["run", str(f), "--json"], ws, fake_env())
    assert out.returncode == 1, out.stderr
    res = json.loads(out.stdout)
    assert "Lean rejects 2 statement(s)" in res["stop_reason"]
    assert "Blueprint/C.lean:7:" in res["stop_reason"] and "Blueprint/C.lean:12:" in \
        res["stop_reason"]
    for line in ("Blueprint/C.lean:7:", "Blueprint/C.lean:12:"):  # one progress line each
        assert any(ln.split("] ", 1)[-1].startswith("note: " + line)
                   for ln in out.stderr.splitlines()), out.stderr
    assert res["attempts"] == 0 and "Traceback" not in out.stderr
    assert not (run_dir(ws, f) / "statements.lock.json").exists()
    assert f.read_text() == BROKEN


def test_restate_round_limit(tmp_path) -> None:
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent
    # a restate that touches a statement Lean did not reject breaks the contract: refused
    wrong = BROKEN.replace("n + 0 + (0 + n) = n + n", "n + n = n + 0 + (0 + n)")
    with ScriptedLLM(lambda req: text(fenced("lean", wrong))) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--json", "--max-rounds", "2"], ws, fake_env())
        reqs = srv.chat_requests
    assert out.returncode == 1, out.stderr
    assert "after 2 restate rounds" in json.loads(out.stdout)["stop_reason"]
    # the contract was explained to the model (re-prompts inside a round)
    assert any("Lean reported no error in it" in (r.messages[-1]["content"] or "")
               for r in reqs)
    assert f.read_text() == BROKEN


def test_a_constructed_blueprint_lean_rejects_is_restated_not_dropped(tmp_path) -> None:
    ws = lake_workspace(tmp_path)
    src = tmp_path / "source.md"
    src.write_text("Lemma. n + 0 = n. Lemma. 0 + n = n. Theorem. n + 0 + (0 + n) = n + n.\n")
    f = ws / "Blueprint" / "C.lean"

    def script(req):
        role = role_of(req)
        if role == "construct":
            return text(fenced("lean", BROKEN))
        if role == "refine":
            return text(fenced("lean", GOOD))
        return auditor(req)

    with ScriptedLLM(script) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--source", str(src), "--stage", "1", "--json"], ws,
                      fake_env())
    assert out.returncode == 0, out.stderr
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    kinds = [e["kind"] for e in evs]
    assert kinds.index("construct") < kinds.index("compile") < kinds.index("restated") \
        < kinds.index("audit") < kinds.index("locked")
    assert f.read_text() == GOOD


def test_lean_errors_with_no_model_for_restate_are_listed_exit_1(tmp_path) -> None:
    """No source, only the prove role has a model: the preflight lets the run start (stage 1
    needs construct/audit only if Lean rejects a statement); then it stops naming the roles."""
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("x")) as srv:
        (ws / "harness.toml").write_text(f'[endpoint]\nbase_url = "{srv.base_url}"\n'
                                         '[roles.prove]\nmodel = "p"\n'
                                         '[roles.repair]\nmodel = "p"\n')
        env = fake_env()
        env.pop("HARNESS_MODEL", None)
        env.pop("OPENAI_MODEL", None)
        out = harness(["run", str(f), "--json"], ws, env)
        assert srv.chat_requests == []
    assert out.returncode == 1, out.stderr
    stop = json.loads(out.stdout)["stop_reason"]
    assert "no model for the construct, audit role(s)" in stop and "Blueprint/C.lean:7:" in stop
