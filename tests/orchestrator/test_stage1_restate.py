"""Stage 1 repairs a statement in a partly proved file (a Mathlib bump breaks one statement of
a file with proofs): the restate keeps every other declaration byte-identical, complete proofs
included, and may reset only the restated node's body to a placeholder. `python -m harness run`
with the fake Lean and the scripted LLM server; the contract itself on texts."""

from __future__ import annotations

import json

import pytest

from harness.agents.blueprinting import restate_problems
from harness.blueprint.parse import parse_text
from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import completion_config as config
from tests.orchestrator.support import fake_env, workspace
from tests.orchestrator.test_run_cli import harness
from tests.orchestrator.test_stage1_compile import auditor, fenced
from tests.support.llm_server import ScriptedLLM, role_of, text

PARTLY = '''import Architect

namespace C

/-- Not a blueprint node: a helper with its proof. -/
theorem helper_add (n : Nat) : n + 0 = n := by
  simp only [Nat.add_zero]

@[blueprint "lem:add-zero"
  (statement := /-- For every natural number $n$, $n + 0 = n$. -/)]
theorem add_zero_lem (n : Nat) : n + 0 = n := by
  exact helper_add n

@[blueprint "lem:zero-add"
  (statement := /-- For every natural number $n$, $0 + n = n$. -/)]
theorem zero_add_lem (n : Nat) : {b} := by
  {proof}

@[blueprint "thm:both"
  (statement := /-- Both, by \\cref{{lem:add-zero}} and \\cref{{lem:zero-add}}. -/)
  (proof := /-- Combine them. -/)]
theorem both (n : Nat) : n + 0 + (0 + n) = n + n := by
  sorry_using [add_zero_lem, zero_add_lem]

end C
'''
BROKEN = PARTLY.format(b="(0 : Nat) + fake_elab_instance = n", proof="induction n <;> simp_all")
KEPT = PARTLY.format(b="0 + n = n", proof="induction n <;> simp_all")  # the proof still fits
RESET = PARTLY.format(b="0 + n = n", proof="sorry")
PROVED_BEFORE = BROKEN[:BROKEN.index('@[blueprint "lem:zero-add"')]


def test_a_statement_in_a_partly_proved_file_is_restated(tmp_path) -> None:
    f = workspace(tmp_path, BROKEN, "C.lean")
    ws = f.parent.parent
    # the first answer also "tidies" a complete proof Lean did not complain about: refused, and
    # the model is told why; the second resets the restated node's proof to a placeholder
    tidied = RESET.replace("exact helper_add n", "simp")

    def script(req):
        role = role_of(req)
        user = req.messages[-1]["content"]
        if role == "refine":
            retried = any("Lean reported no error in it" in (m.get("content") or "")
                          for m in req.messages[1:])
            return text(fenced("lean", RESET if retried else tidied))
        if role == "audit":
            return auditor(req)
        assert role == "prove", user
        return text(fenced("lean", "by\n  omega"))

    with ScriptedLLM(script) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--json"], ws, fake_env())
        reqs = srv.chat_requests
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["counts"] == {"proved": 3, "open": 0, "blocked": 0}
    asked = [r.messages[-1]["content"] for r in reqs if role_of(r) == "refine"]
    assert len(asked) == 2 and "add_zero_lem" in asked[0]
    first = next(r for r in reqs if role_of(r) == "refine")
    assert "complete proofs included" in asked[0]  # the model is told proofs stay
    assert "Proofs already in the file stay exactly as they are" in first.messages[0]["content"]
    assert "lem:add-zero changed, but Lean reported no error in it" in asked[1]
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    restated = [e for e in evs if e["kind"] == "restated"]
    assert [e["nodes"] for e in restated] == [["lem:zero-add"]]
    final = f.read_text()
    assert final.startswith(PROVED_BEFORE)  # the proved declarations, byte for byte
    assert "fake_elab" not in final and "theorem zero_add_lem (n : Nat) : 0 + n = n" in final


def _problems(new: str, old: str = BROKEN) -> list[str]:
    return restate_problems(parse_text(old, "C.lean"), new, {"lem:zero-add"})


def test_the_contract_keeps_proofs_and_allows_only_a_placeholder() -> None:
    assert _problems(KEPT) == []  # the restated theorem keeps its proof
    assert _problems(RESET) == []  # ... or has it reset to `sorry`
    assert _problems(PARTLY.format(b="0 + n = n", proof="sorry_using [add_zero_lem]")) == []
    new_proof = _problems(PARTLY.format(b="0 + n = n", proof="omega"))
    assert new_proof == ["lem:zero-add: keep its proof as it is, or reset it to a `sorry` "
                         "placeholder if it no longer fits; a restate writes no new proof"]


@pytest.mark.parametrize("edit, why", [
    (lambda t: t.replace("simp only [Nat.add_zero]", "simp"),
     "helper_add changed, but Lean reported no error in it"),
    (lambda t: t.replace("sorry_using [add_zero_lem, zero_add_lem]", "sorry"),
     "thm:both changed, but Lean reported no error in it"),
    (lambda t: t.replace('@[blueprint "lem:add-zero"',
                         'open Classical in\n@[blueprint "lem:add-zero"'),
     "lem:add-zero changed, but Lean reported no error in it"),  # part of its declaration
    (lambda t: t.replace("namespace C\n", "namespace C\n\nvariable (m : Nat)\n"),
     "text between the declarations changed"),
    (lambda t: t.replace("end C\n", "set_option autoImplicit true\nend C\n"),
     "text between the declarations changed"),
    (lambda t: t.replace("theorem zero_add_lem (n : Nat) : 0 + n = n",
                         "theorem zero_add_lem (n : Nat) : 0 + n = n + (by native_decide)"),
     "lem:zero-add: `native_decide` is not allowed"),
    (lambda t: t.replace('@[blueprint "lem:zero-add"', '@[blueprint "lem:zero-add-2"'),
     "the declarations must stay the same"),
])
def test_the_contract_refuses_everything_else(edit, why) -> None:
    got = _problems(edit(RESET))
    assert any(why in p for p in got), got


def test_untouched_text_is_not_rescanned() -> None:
    """A forbidden word in a proof the restate does not touch is the gate's business, not a
    reason to refuse the restate (the construct contract would refuse the whole file)."""
    old = BROKEN.replace("exact helper_add n", "exact helper_add n -- not native_decide")
    new = RESET.replace("exact helper_add n", "exact helper_add n -- not native_decide")
    assert _problems(new, old) == []
