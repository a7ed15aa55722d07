"""Context builder (bounded, statements only) and answer extraction."""

from __future__ import annotations

import pytest

from harness.agents.context import build_context, context_benchmark
from harness.agents.contracts import proof_violations, statement_violations
from harness.agents.extract import json_payload, last_lean_block, split_proof_answer
from harness.blueprint.parse import parse_text
from tests.agents.conftest import DEMO


def test_context_has_deps_statements_not_proofs_and_not_unrelated():
    bp = parse_text(DEMO.replace("  sorry\n", "  simp [double]\n  omega\n", 1))
    ctx = build_context(bp, "thm:main")
    assert "theorem double_add (a b : Nat) : double (a + b) = double a + double b := …" in ctx.text
    assert "simp [double]" not in ctx.text  # the dependency's proof is left out
    assert "def double (n : Nat) : Nat := 2 * n" in ctx.text  # definitions in full
    assert "unrelated" not in ctx.text
    assert "import Mathlib" in ctx.text and "namespace Demo" in ctx.text
    assert "Apply \\cref{lem:double_add}" in ctx.text
    assert ctx.included == ["Demo.double", "lem:double_add"] or set(ctx.included) == {
        "Demo.double", "lem:double_add"}
    assert ctx.text.index("def double") < ctx.text.index("theorem double_add")


def test_context_is_bounded_and_says_what_it_omitted():
    lemmas = "\n".join(
        f'@[blueprint "l{i}" (statement := /-- step {i} -/)]\n'
        f"theorem l{i} (n : Nat) : n + {i} = {i} + n := by\n  sorry\n" for i in range(60))
    users = ", ".join(f"l{i}" for i in range(60))
    text = (f"import Mathlib\n\n{lemmas}\n@[blueprint \"top\" (statement := /-- all -/)]\n"
            f"theorem top : True := by\n  sorry_using [{users}]\n")
    bp = parse_text(text)
    small = build_context(bp, "top", max_tokens=600)
    assert small.tokens <= 700 and small.omitted and small.included
    assert f"{len(small.omitted)} farther dependencies omitted" in small.text
    full = build_context(bp, "top", max_tokens=100_000)
    assert not full.omitted and len(full.included) == 60


def test_context_benchmark_ratio_small_on_large_blueprint():
    pytest.importorskip("harness.blueprint.generate")
    r = context_benchmark(n_nodes=400, seed=1, sample=20)
    assert r["sampled"] == 20 and r["baseline_tokens"] > 10 * r["context_tokens_mean"]
    assert 0 < r["ratio_mean"] < 0.10


def test_last_lean_block_and_json():
    t = "a\n```lean\nby simp\n```\nb\n```lean4\nby omega\n```\n```python\nx\n```"
    assert last_lean_block(t) == "by omega"
    assert last_lean_block("```lean\nunclosed") is None
    assert last_lean_block("no code") is None
    assert json_payload('sure: {"body": "by simp"} ok') == {"body": "by simp"}
    assert json_payload('```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```') == {"a": 2}
    assert json_payload("{broken") is None and json_payload("[1, 2]") is None


@pytest.mark.parametrize("block, body, helpers", [
    ("by\n  simp", "by\n  simp", ""),
    (":= by omega", "by omega", ""),
    ("simp\nomega", "by\n  simp\n  omega", ""),
    ("  intro a\n    exact a", "by\n  intro a\n    exact a", ""),
    ("theorem aux : 1 = 1 := rfl\n\ntheorem double_add (a b : Nat) : double (a + b) = "
     "double a + double b := by\n    unfold double\n    omega",
     "by\n  unfold double\n  omega", "theorem aux : 1 = 1 := rfl"),
])
def test_split_proof_answer(block, body, helpers):
    node = parse_text(DEMO).node("lem:double_add")
    assert split_proof_answer(block, node) == (body, helpers)


def test_split_proof_answer_reasons():
    node = parse_text(DEMO).node("lem:double_add")
    assert "no declaration named 'double_add'" in split_proof_answer(
        "theorem a : True := trivial\ntheorem b : True := trivial", node)
    assert "empty" in split_proof_answer("", node)


def test_contract_scans_ignore_comments_and_strings():
    assert proof_violations('by\n  -- sorry\n  /- admit -/ simp [Foo.sorry_free]\n  exact "sorry"') == []
    assert proof_violations("by native_decide")
    assert proof_violations("by decide +kernel")
    assert proof_violations("by simp", "@[blueprint \"x\"] theorem h : True := trivial")
    assert proof_violations("by simp", "instance : Inhabited Nat := ⟨0⟩")
    # the gate's scope rule for helpers: theorems/lemmas only, @[simp] and private/protected only
    assert proof_violations("by simp", "@[simp] private lemma a : True := trivial") == []
    assert "is a `def`" in proof_violations("by simp", "def f : Nat := 1")[0]
    assert "`open` is not allowed" in proof_violations("by simp", "open Nat\ntheorem a : True "
                                                       ":= trivial")[0]
    assert "allowed: aesop" in proof_violations("by simp", "@[reducible] theorem a : True := "
                                                "trivial")[0]
    assert proof_violations("by simp", "@[aesop safe] theorem a : True := trivial") == []
    assert statement_violations("import Mathlib\n-- axiom in a comment\ntheorem t : True := by sorry") == []
    assert statement_violations("axiom bad : False")


def test_split_proof_answer_drops_echoed_context():
    bp = parse_text(DEMO)
    node = bp.node("thm:main")
    known = {n for d in bp.decls for n in (d.name, d.short_name) if n}
    echo = ("import Mathlib\n\nnamespace Demo\n\ndef double (n : Nat) : Nat := 2 * n\n\n"
            "theorem double_add (a b : Nat) : double (a + b) = double a + double b := by\n"
            "  sorry\n\nlemma fresh_aux : 1 = 1 := rfl\n\n"
            "theorem main_thm (a : Nat) : double (a + a) = double a + double a := by\n"
            "  rw [double_add]\n\nend Demo\n")
    assert split_proof_answer(echo, node, known) == ("by\n  rw [double_add]",
                                                     "lemma fresh_aux : 1 = 1 := rfl")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["```lean\n", "```lean4\n", "```\n", "```json\n", "{", "}", "\"body\"",
                           ":", "theorem double_add", " := by\n", "  simp\n", "/-", "-/", "\"",
                           "@[blueprint \"x\"]\n", "<think>", "</think>", "sorry", "\n", " "])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=30).map("".join))
def test_extractors_never_raise_on_garbage(garbage):
    node = parse_text(DEMO).node("lem:double_add")
    json_payload(garbage)
    block = last_lean_block(garbage)
    if block is not None:
        res = split_proof_answer(block, node, {"double"})
        assert isinstance(res, (str, tuple))


def test_a_hypothesis_named_smt_is_not_the_smt_tactic() -> None:
    """The prover's contract reads `smt` as the gate does (gate.rules.tactic_position): the
    tactic is refused, a name spelled `smt` is not (issue 20's false reject, prover side)."""
    from harness.agents.contracts import proof_violations

    assert proof_violations("by\n  have smt : 1 = 1 := rfl\n  exact smt") == []
    assert proof_violations("by\n  exact foo smt") == []
    assert proof_violations("by\n  smt") and proof_violations("by\n  intro x; smt")
