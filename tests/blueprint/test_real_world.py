"""Constructs seen in real public Lean 4 files (a sweep over Mathlib, LeanArchitect, REPL tests
and blueprint projects): each snippet is a minimal hand-written reproduction.
"""

from __future__ import annotations

import os
import subprocess
import sys

from harness.blueprint import BodyStatus, parse_text
from harness.blueprint.dag import analyse


def names(bp) -> list[str | None]:
    return [d.name for d in bp.decls]


def codes(findings) -> list[str]:
    return [f.code for f in findings]


# -- declarations lost or mis-named ---------------------------------------------------------

def test_indented_mutual_block_declarations_are_found():
    # Lean 4 style often indents the members of a `mutual` block (seen in real files).
    src = (
        "mutual\n"
        "  def isEven : Nat → Bool\n"
        "    | 0 => true\n"
        "    | n+1 => isOdd n\n"
        "  def isOdd : Nat → Bool\n"
        "    | 0 => false\n"
        "    | n+1 => isEven n\n"
        "end\n"
    )
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["isEven", "isOdd"]


def test_indented_mutual_inductives_are_found():
    src = (
        "mutual\n"
        "  inductive A\n"
        "  | mk : B → A\n"
        "  inductive B\n"
        "  | nil : B\n"
        "end\n"
    )
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["A", "B"]


def test_indented_declaration_inside_namespace_is_found():
    src = "namespace Foo\n  theorem bar : True := sorry\nend Foo\n"
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["Foo.bar"]
    assert bp.decls[0].status == BodyStatus.SORRY
    assert "unbalanced-end" not in codes(bp.findings)


def test_end_may_close_the_last_component_of_a_dotted_namespace():
    # `namespace A.B` … `end B` … `end A` is valid Lean 4 (real Mathlib tactic files do it).
    src = "namespace A.B\ndef x : Nat := 1\nend B\ndef y : Nat := 2\nend A\n"
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["A.B.x", "A.y"]
    assert "unbalanced-end" not in codes(bp.findings)


def test_end_with_dotted_name_closes_several_namespaces():
    src = "namespace A\nnamespace B\ndef x : Nat := 1\nend A.B\ndef y : Nat := 2\n"
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["A.B.x", "y"]
    assert "unbalanced-end" not in codes(bp.findings)


def test_namespace_name_is_not_polluted_by_an_unknown_following_command():
    # `initialize_simps_projections` (and other commands missing from OTHER_COMMANDS) at column 0
    # are glued onto the previous command; after `namespace` they become part of its name.
    src = (
        "namespace Foo\n"
        "initialize_simps_projections Bar (x → y)\n"
        "theorem t : True := trivial\n"
        "end Foo\n"
    )
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["Foo.t"]
    assert bp.findings == []


def test_unknown_column0_command_is_not_swallowed_into_previous_body():
    src = "structure S where\n  x : Nat\ninitialize_simps_projections S (x → y)\n"
    bp = parse_text(src, "t.lean")
    assert "initialize_simps_projections" not in bp.decls[0].body_span.slice(src)


# -- whole files rejected ---------------------------------------------------------------------

def test_scoped_bracket_notation_is_accepted():
    # `scoped[NS] notation …` is common in Mathlib; today the whole file raises InputError.
    src = 'scoped[Topology] notation "I^" N => N → I\ntheorem t : True := trivial\n'
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["t"]


def test_char_literal_double_quote_inside_interpolation_is_accepted():
    src = "def f : String := s!\"char {'\"'} here\"\ntheorem t : True := sorry\n"
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["f", "t"]
    assert bp.decls[1].status == BodyStatus.SORRY


def test_text_after_exit_is_ignored():
    # Lean stops reading at `#exit`; work-in-progress files keep junk below it.
    src = 'theorem a : True := trivial\n#exit\ntheorem b : True := sorry\nnot lean ( "\n'
    bp = parse_text(src, "t.lean")
    assert names(bp) == ["a"]


# -- spans cut short (write.replace_body corrupts the file) ----------------------------------

def test_trailing_string_literal_belongs_to_span_and_body():
    src = 'def greeting : String := "hello"\n\ntheorem t : True := trivial\n'
    bp = parse_text(src, "t.lean")
    d = bp.decls[0]
    assert d.body_span.slice(src) == '"hello"'
    assert d.span.slice(src) == 'def greeting : String := "hello"'


def test_trailing_char_literal_belongs_to_body():
    src = "def c : Char := 'x'\n"
    bp = parse_text(src, "t.lean")
    assert bp.decls[0].body_span.slice(src) == "'x'"


def test_body_starting_with_a_literal_starts_at_the_literal():
    src = 'def r : String := r#"a "q" b"# ++ "c"\n'
    bp = parse_text(src, "t.lean")
    assert bp.decls[0].body_span.slice(src) == 'r#"a "q" b"# ++ "c"'


def test_replace_body_of_string_definition_keeps_file_valid():
    from harness.blueprint import write

    src = 'def greeting : String := "hello"\n'
    bp = parse_text(src, "t.lean")
    assert write.replace_body(bp, "greeting", '"bye"') == 'def greeting : String := "bye"\n'


# -- wrong signature/body split or status ----------------------------------------------------

def test_let_in_statement_is_not_the_body_separator():
    src = "theorem foo : let x := 1; x = 1 := by\n  sorry\n"
    bp = parse_text(src, "t.lean")
    d = bp.decls[0]
    assert d.signature_span.slice(src) == " : let x := 1; x = 1"
    assert d.body_span.slice(src) == "by\n  sorry"


def test_empty_tactic_block_is_not_a_complete_proof():
    src = "theorem foo : 1 = 1 := by\ntheorem bar : 2 = 2 := rfl\n"
    bp = parse_text(src, "t.lean")
    assert bp.decls[0].status != BodyStatus.COMPLETE


def test_bodiless_opaque_is_no_body_as_documented():
    # model.BodyStatus.NO_BODY says: "`axiom`, bodiless `opaque`, or a declaration cut short".
    bp = parse_text("opaque secret : Nat\n", "t.lean")
    assert bp.decls[0].status == BodyStatus.NO_BODY


# -- scope commands ----------------------------------------------------------------------------

def test_variable_in_applies_to_the_next_declaration_only():
    src = "variable (n : Nat) in\ntheorem a : n = n := rfl\ntheorem b : True := trivial\n"
    bp = parse_text(src, "t.lean")
    a, b = bp.decls
    assert "variable (n : Nat) in" in a.scope.commands
    assert "variable (n : Nat) in" not in b.scope.commands


def test_include_and_omit_in_prefixes_are_attached_to_the_declaration():
    # `include h in` changes the statement of the next theorem; like `open … in` it should be in
    # that declaration's scope (and its span), not a free-standing command.
    src = "include h in\ntheorem a : True := trivial\nomit [Foo] in\ntheorem b : True := trivial\n"
    bp = parse_text(src, "t.lean")
    a, b = bp.decls
    assert "include h in" in a.scope.commands
    assert "omit [Foo] in" in b.scope.commands


# -- blueprint nodes and the DAG ---------------------------------------------------------------

def test_attribute_command_adds_a_blueprint_node():
    # `attribute [blueprint "label" (statement := …)] name` is widely used in blueprint projects
    # to tag declarations after the fact (including Mathlib ones).
    src = (
        "theorem foo : True := trivial\n"
        'attribute [blueprint "thm:foo" (statement := /-- Foo. -/)] foo\n'
        '@[blueprint "thm:bar" (statement := /-- By \\cref{thm:foo}. -/) (uses := ["thm:foo"])]\n'
        "theorem bar : True := foo\n"
    )
    bp = parse_text(src, "t.lean")
    assert bp.node("thm:foo").name == "foo"
    an = analyse(bp)
    assert not [f for f in an.findings if f.code.startswith("dangling")]


def test_mutual_recursion_is_not_a_dependency_cycle():
    src = (
        "mutual\n"
        "def ev : Nat → Bool\n"
        "  | 0 => true\n"
        "  | n+1 => od n\n"
        "def od : Nat → Bool\n"
        "  | 0 => false\n"
        "  | n+1 => ev n\n"
        "end\n"
        '@[blueprint "main"] theorem main : ev 0 = true := rfl\n'
    )
    an = analyse(parse_text(src, "t.lean"))
    assert "cycle" not in codes(an.findings)
    assert {"ev", "od", "main"} <= an.proved


_CYCLE_PROG = r"""
import sys
sys.path.insert(0, sys.argv[1])
from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
src = '''@[blueprint "a" (uses := ["b"])] theorem a : True := trivial
@[blueprint "b" (uses := ["a"])] theorem b : True := trivial
''' + "".join(f"theorem x{i} : True := trivial\n" for i in range(6))
print([f.line() for f in analyse(parse_text(src, "t.lean")).findings if f.code == "cycle"])
"""


def test_cycle_finding_does_not_depend_on_hash_seed():
    # dag.py calls nx.find_cycle(g.subgraph(keys)): when the SCC is under half of the graph the
    # subgraph view iterates its node *set*, so the cycle's start (message and position) follows
    # PYTHONHASHSEED.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__import__("harness").__file__)))
    outs = set()
    for seed in range(12):
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        r = subprocess.run([sys.executable, "-c", _CYCLE_PROG, root], capture_output=True,
                           text=True, timeout=60, env=env, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1, outs


def test_ref_to_an_equation_label_in_the_same_text_is_not_dangling():
    # Real blueprint proofs cite their own equations: `\label{eq1}` … `(\ref{eq1})`.
    src = (
        '@[blueprint "a" (proof := /-- \\begin{equation}\\label{eq1} x = y \\end{equation}\n'
        "  Substituting into (\\ref{eq1}) ends the proof. -/)]\n"
        "theorem a : True := trivial\n"
    )
    an = analyse(parse_text(src, "t.lean"))
    assert "dangling-cref" not in codes(an.findings)


def test_mutual_block_with_a_sorry_member_is_work_not_a_deadlock():
    src = (
        "mutual\n"
        "def ev : Nat → Bool\n"
        "  | 0 => true\n"
        "  | n+1 => od n\n"
        "def od : Nat → Bool\n"
        "  | 0 => sorry\n"
        "  | n+1 => ev n\n"
        "end\n"
    )
    an = analyse(parse_text(src, "t.lean"))
    assert an.leaves == ["od"] and not an.proved and not an.findings


def test_attribute_blueprint_on_a_mathlib_declaration_registers_its_label():
    src = (
        'attribute [blueprint "lem:mathlib" (statement := /-- From Mathlib. -/)] Nat.le_refl\n'
        '@[blueprint "thm:t" (proof := /-- By \\cref{lem:mathlib}. -/)]\n'
        "theorem t : True := trivial\n"
    )
    bp = parse_text(src, "t.lean")
    assert bp.tagged == {"lem:mathlib": "Nat.le_refl"}
    assert not analyse(bp).findings
