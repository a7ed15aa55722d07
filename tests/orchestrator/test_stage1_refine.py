"""Stage 1's audit fix-up (refine) on a partly proved file: restate's contract, with the nodes
the audit findings name as the only ones that may change — every other declaration keeps its
text byte for byte, complete proofs included; a refined node keeps its proof or has it reset to
a placeholder. `python -m harness run` with the fake Lean and the scripted LLM server; the
contract itself on texts."""

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
from tests.orchestrator.test_stage1_restate import PARTLY
from tests.support.llm_server import ScriptedLLM, role_of, text

# lem:zero-add says nothing (`0 + n = 0 + n`, proved by `rfl`): the audit flags it as drift
WEAK = PARTLY.format(b="0 + n = 0 + n", proof="rfl")
FIXED = PARTLY.format(b="0 + n = n", proof="sorry")  # `rfl` no longer fits: reset
KEPT = PARTLY.format(b="0 + n = n", proof="rfl")  # kept (the gate/Lean judges it later)
PROVED_BEFORE = WEAK[:WEAK.index('@[blueprint "lem:zero-add"')]


def test_a_partly_proved_file_is_refined_node_by_node(tmp_path) -> None:
    f = workspace(tmp_path, WEAK, "C.lean")
    ws = f.parent.parent
    src = tmp_path / "source.md"
    src.write_text("Lemma. n + 0 = n. Lemma. 0 + n = n. Theorem. n + 0 + (0 + n) = n + n.\n")
    # the first answer also "tidies" a complete proof no finding names: refused, and the model
    # is told why; the second changes only the flagged node
    tidied = FIXED.replace("simp only [Nat.add_zero]", "simp")

    def script(req):
        role = role_of(req)
        if role == "refine":
            retried = any("no audit finding names it" in (m.get("content") or "")
                          for m in req.messages[1:])
            return text(fenced("lean", FIXED if retried else tidied))
        if role == "audit":
            return auditor(req)
        assert role == "prove", req.messages[-1]["content"]
        return text(fenced("lean", "by\n  omega"))

    with ScriptedLLM(script) as srv:
        config(ws, srv.base_url)
        out = harness(["run", str(f), "--source", str(src), "--json"], ws, fake_env())
        reqs = srv.chat_requests
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"] == {"proved": 3, "open": 0, "blocked": 0}
    refines = [r for r in reqs if role_of(r) == "refine"]
    assert len(refines) == 2  # one round: the refusal is a re-prompt inside it
    asked = [r.messages[-1]["content"] for r in refines]
    assert "complete proofs included" in asked[0] and "lem:zero-add (major, drift)" in asked[0]
    assert "helper_add changed, but no audit finding names it" in asked[1]
    assert "remove no declaration" in refines[0].messages[0]["content"]
    evs = read_events(run_dir(ws, f) / "events.jsonl").events
    assert [a["blocking"] for a in evs if a["kind"] == "audit"] == [1, 0]
    assert not any(e["kind"] == "note" and "refine round" in e.get("message", "") for e in evs)
    final = f.read_text()
    assert final.startswith(PROVED_BEFORE)  # the proved declarations, byte for byte
    assert "theorem zero_add_lem (n : Nat) : 0 + n = n := by" in final
    assert "simp only [Nat.add_zero]" in final and final.endswith("end C\n")


def _problems(new: str, old: str = WEAK, named=("lem:zero-add",)) -> list[str]:
    return restate_problems(parse_text(old, "C.lean"), new, set(named), step="refine")


def test_the_refine_contract_accepts_a_partly_proved_file() -> None:
    assert _problems(FIXED) == [] and _problems(KEPT) == []
    assert _problems(PARTLY.format(b="0 + n = n", proof="sorry_using [add_zero_lem]")) == []
    # the construct contract would refuse it: a node with a proof, a proof-kind non-node
    from harness.agents.blueprinting import blueprint_problems
    assert blueprint_problems(FIXED)
    (why,) = _problems(PARTLY.format(b="0 + n = n", proof="omega"))
    assert why == ("lem:zero-add: keep its proof as it is, or reset it to a `sorry` "
                   "placeholder if it no longer fits; a refine writes no new proof")


@pytest.mark.parametrize("edit, why", [
    (lambda t: t.replace("exact helper_add n", "simp"),
     "lem:add-zero changed, but no audit finding names it: change only the nodes the audit "
     "findings name"),
    (lambda t: t.replace("sorry_using [add_zero_lem, zero_add_lem]", "sorry"),
     "thm:both changed, but no audit finding names it"),
    (lambda t: t.replace("namespace C\n", "namespace C\n\nopen Nat\n"),
     "text between the declarations changed"),
    (lambda t: t.replace('@[blueprint "thm:both"', NEW_NODE.format(body="trivial")
                         + '@[blueprint "thm:both"'),
     "lem:new: a new node's body is a `sorry`/`sorry_using` placeholder"),
    (lambda t: t.replace('@[blueprint "thm:both"', "theorem new_lem : True := by\n  sorry\n\n"
                         '@[blueprint "thm:both"'),
     "new_lem: a refine may add only lemma/theorem blueprint nodes"),
    # an instance or a definition changes what the untouched statements below it mean
    (lambda t: t.replace('@[blueprint "thm:both"', "instance weird : Add Nat := ⟨fun _ _ => 4⟩"
                         '\n\n@[blueprint "thm:both"'),
     "a refine may add only lemma/theorem blueprint nodes"),
    (lambda t: t.replace('@[blueprint "thm:both"', "def helper (n : Nat) : Nat := n\n\n"
                         '@[blueprint "thm:both"'),
     "a refine may add only lemma/theorem blueprint nodes"),
    # a new node named like something an untouched statement after it mentions shadows it
    (lambda t: t.replace('@[blueprint "thm:both"', NEW_NODE.replace("new_lem", "add_zero_lem")
                         .format(body="sorry") + '@[blueprint "thm:both"'),
     "lem:new: thm:both (unchanged) mentions its name"),
    (lambda t: t.replace('@[blueprint "thm:both"', NEW_NODE.format(body="sorry")
                         + 'open Nat\n\n@[blueprint "thm:both"'),
     "text between the declarations changed"),
    (lambda t: t.replace('@[blueprint "thm:both"', NEW_NODE.format(body="sorry")).replace(
        '@[blueprint "lem:add-zero"', '@[blueprint "lem:other"'),
     "the declarations must stay the same, in the same order (new placeholder nodes may be "
     "added); missing:"),
    (lambda t: t.replace('@[blueprint "lem:zero-add"', '@[blueprint "lem:zero-add-2"'),
     "the declarations must stay the same"),
    (lambda t: t.replace("0 + n = n := by", "0 + n = n + (by native_decide) := by"),
     "lem:zero-add: `native_decide` is not allowed"),
])
def test_the_refine_contract_refuses_everything_else(edit, why) -> None:
    got = _problems(edit(FIXED))
    assert any(why in p for p in got), got


NEW_NODE = ('@[blueprint "lem:new"\n  (statement := /-- New. -/)]\ntheorem new_lem : True := by\n'
            '  {body}\n\n')


def test_a_refine_may_add_a_placeholder_node_for_a_missing_result() -> None:
    # a finding about a missing result: a new node, before its user, with a placeholder body;
    # blank lines around it are all the other text that may change
    for body in ("sorry", "sorry_using [add_zero_lem]"):
        add = FIXED.replace('@[blueprint "thm:both"', NEW_NODE.format(body=body)
                            + '\n@[blueprint "thm:both"')
        assert _problems(add) == [], body
    # restate (Lean's errors) still adds nothing
    add = FIXED.replace('@[blueprint "thm:both"', NEW_NODE.format(body="sorry")
                        + '@[blueprint "thm:both"')
    got = restate_problems(parse_text(WEAK, "C.lean"), add, {"lem:zero-add"})
    assert got == ["the declarations must stay the same, in the same order; new: lem:new"]


def test_two_findings_free_two_nodes() -> None:
    both = FIXED.replace("exact helper_add n", "sorry")
    assert _problems(both)  # lem:add-zero is not named
    assert _problems(both, named=("lem:zero-add", "lem:add-zero")) == []
