"""Parser edge cases: each test is one construct a real Lean file may contain."""

from __future__ import annotations

import textwrap

import pytest

from harness.blueprint import BodyStatus, DeclKind, parse_text
from harness.blueprint.lexer import mask
from harness.errors import InputError


def P(src: str):
    return parse_text(textwrap.dedent(src), "t.lean")


def node(src: str, key: str | None = None):
    bp = P(src)
    return bp.decls[0] if key is None else bp.by_key(key)


def body(bp, d) -> str:
    return bp.text[d.body_span.start:d.body_span.end]


def sig(bp, d) -> str:
    return bp.text[d.signature_span.start:d.signature_span.end]


def test_basic_node_fields():
    bp = P('''
        @[blueprint "lem:a"
          (statement := /-- $a = a$ -/)
          (proof := /-- Trivial. -/)
          (title := /-- Title A -/)
          (latexEnv := "lemma")]
        theorem a_eq (a : Nat) : a = a := by
          sorry
    ''')
    d = bp.decls[0]
    assert d.label == "lem:a" and d.name == "a_eq" and d.kind == DeclKind.THEOREM
    assert d.blueprint.statement == "$a = a$" and d.blueprint.proof == "Trivial."
    assert d.blueprint.title == "Title A" and d.blueprint.latex_env == "lemma"
    assert d.status == BodyStatus.SORRY
    assert sig(bp, d) == " (a : Nat) : a = a"
    assert body(bp, d) == "by\n  sorry"
    assert (d.pos.line, d.pos.col) == (7, 0) and (d.name_pos.line, d.name_pos.col) == (7, 8)


def test_sorry_using_list_and_status():
    bp = P('''
        theorem x : True := by
          sorry_using [foo, Bar.baz, «q r»]
    ''')
    d = bp.decls[0]
    assert d.status == BodyStatus.SORRY_USING
    assert d.sorry_using == ["foo", "Bar.baz", "q r"]


def test_admit_and_complete_and_term_mode():
    bp = P('''
        theorem a : True := by admit
        theorem b : True := trivial
        theorem c : 1 = 1 := rfl
    ''')
    assert [d.status for d in bp.decls] == [BodyStatus.ADMIT, BodyStatus.COMPLETE,
                                            BodyStatus.COMPLETE]


def test_definition_status_and_def_with_sorry():
    bp = P('''
        def f (n : Nat) : Nat := n + 1
        def g (n : Nat) : Nat := sorry
    ''')
    assert bp.decls[0].status == BodyStatus.DEFINITION
    assert bp.decls[1].status == BodyStatus.SORRY


def test_combined_attribute_simp_blueprint():
    d = node('''
        @[simp, blueprint "lem:s" (statement := /-- s -/)]
        theorem s : True := trivial
    ''')
    assert d.label == "lem:s" and d.attributes == ("simp",)


def test_blueprint_without_label_uses_name():
    d = node('''
        namespace N
        @[blueprint (statement := /-- s -/)]
        theorem s : True := trivial
        end N
    ''')
    assert d.label == "N.s"


def test_title_as_string_and_doc_comment():
    bp = P('''
        @[blueprint "a" (title := "Plain \\"quoted\\"")]
        theorem a : True := trivial
        @[blueprint "b" (title := /-- Doc title -/)]
        theorem b : True := trivial
    ''')
    assert bp.decls[0].blueprint.title == 'Plain "quoted"'
    assert bp.decls[1].blueprint.title == "Doc title"


def test_uses_proof_uses_lists_with_labels_and_exclusions():
    d = node('''
        @[blueprint "a" (uses := [foo, "lem:b", -bar, -"lem:c"]) (proofUses := [baz])
          (notReady := true) (hasProof := false) (discussion := 12)]
        theorem a : True := trivial
    ''')
    b = d.blueprint
    assert b.uses == ["foo", "label:lem:b", "-bar", "-label:lem:c"]
    assert b.proof_uses == ["baz"]
    assert b.not_ready is True and b.has_proof is False and b.discussion == "12"


def test_nested_block_comments_hide_declarations():
    bp = P('''
        /- outer /- inner theorem hidden : False := sorry -/ still comment
        theorem hidden2 : False := sorry -/
        theorem visible : True := trivial
    ''')
    assert [d.name for d in bp.decls] == ["visible"]


def test_line_comments_with_sorry_do_not_count():
    d = node('''
        theorem t : True := by
          -- sorry here is a comment
          trivial -- admit
    ''')
    assert d.status == BodyStatus.COMPLETE


def test_string_literal_containing_comment_and_attribute_text():
    bp = P('''
        def s : String := "-- not a comment /- nor this @[blueprint \\"x\\"] theorem"
        theorem t : s = s := rfl
    ''')
    assert [d.name for d in bp.decls] == ["s", "t"]
    assert bp.decls[0].status == BodyStatus.DEFINITION


def test_char_literals_and_primes():
    bp = P('''
        def c : Char := '"'
        def d : Char := '\\''
        theorem h' (x' : Nat) : x' = x' := rfl
        def e : Char := '-'
    ''')
    assert [d.name for d in bp.decls] == ["c", "d", "h'", "e"]


def test_doc_comment_attached_to_declaration():
    bp = P('''
        /-- The doc of `f`, mentioning theorem g. -/
        def f : Nat := 1
    ''')
    d = bp.decls[0]
    assert d.doc == "The doc of `f`, mentioning theorem g."
    assert d.span.start == 1  # the span starts at the doc comment (after the leading newline)


def test_module_doc_is_a_command_not_a_decl():
    bp = P('''
        /-! # Title
        theorem inside_doc : False := sorry -/
        theorem t : True := trivial
    ''')
    assert [c.kind.value for c in bp.commands] == ["module_doc", "decl"]


def test_namespace_section_end_and_full_names():
    bp = P('''
        namespace A.B
        theorem x : True := trivial
        section S
        theorem y : True := trivial
        end S
        end A.B
        theorem z : True := trivial
        theorem _root_.w : True := trivial
        namespace C
        theorem _root_.v : True := trivial
        theorem D.u : True := trivial
        end C
    ''')
    assert [d.name for d in bp.decls] == ["A.B.x", "A.B.y", "z", "w", "v", "C.D.u"]
    assert not bp.findings


def test_unbalanced_end_is_a_finding():
    bp = P('''
        namespace A
        end B
        end
    ''')
    codes = [f.code for f in bp.findings]
    assert codes == ["unbalanced-end", "unbalanced-end"]


def test_scope_left_open_at_end_of_file_is_fine():
    bp = P('''
        namespace A
        theorem t : True := trivial
    ''')
    assert not bp.findings and bp.decls[0].name == "A.t"


def test_open_and_variable_recorded_in_scope():
    bp = P('''
        namespace N
        open Nat List
        variable {α : Type} (x : α)
        theorem t : True := trivial
        end N
        theorem u : True := trivial
    ''')
    t, u = bp.decls
    assert t.scope.opens == ("Nat", "List")
    assert "variable {α : Type} (x : α)" in t.scope.commands
    assert u.scope.commands == () and u.scope.opens == ()


def test_open_in_prefix_belongs_to_the_declaration():
    bp = P('''
        open Foo in
        theorem t : True := trivial
        theorem u : True := trivial
    ''')
    t, u = bp.decls
    assert "Foo" in t.scope.opens and "Foo" not in u.scope.opens
    assert bp.text[t.span.start:].startswith("open Foo in")


def test_set_option_in_prefix():
    bp = P('''
        set_option maxHeartbeats 400000 in
        theorem t : True := trivial
    ''')
    assert bp.decls[0].scope.commands == ("set_option maxHeartbeats 400000 in",)


def test_modifiers():
    bp = P('''
        private theorem a : True := trivial
        protected noncomputable def b : Nat := 1
        @[simp] private lemma c : True := trivial
        noncomputable section
        def d : Nat := 2
        end
    ''')
    assert [d.modifiers for d in bp.decls] == [("private",), ("protected", "noncomputable"),
                                               ("private",), ()]
    assert bp.decls[2].kind == DeclKind.LEMMA
    assert not bp.findings


def test_where_clause_and_structure_fields():
    bp = P('''
        structure P where
          x : Nat
          y : Nat := 0
        deriving Repr

        def f (n : Nat) : Nat := g n
        where
          g (k : Nat) : Nat := k
        instance : Inhabited P where
          default := ⟨0, 0⟩
    ''')
    s, f, i = bp.decls
    assert s.body_sep == "where" and "deriving Repr" in body(bp, s)
    assert f.body_sep == ":=" and "g (k : Nat)" in body(bp, f)
    assert i.kind == DeclKind.INSTANCE and i.name is None and i.body_sep == "where"


def test_pattern_matching_def_and_termination_by():
    bp = P('''
        def f : Nat → Nat
          | 0 => 1
          | n + 1 => f n
        termination_by n => n
        decreasing_by omega
        theorem after : True := trivial
    ''')
    f, after = bp.decls
    assert f.body_sep == "|" and body(bp, f).endswith("decreasing_by omega")
    assert sig(bp, f) == " : Nat → Nat"
    assert after.name == "after"


def test_absolute_value_line_in_signature_is_not_a_match_arm():
    bp = P('''
        theorem abs_le (x : Int) :
            |x| ≤ |x| + 0 := by
          sorry
    ''')
    d = bp.decls[0]
    assert d.body_sep == ":=" and "|x| ≤ |x| + 0" in sig(bp, d)


def test_inductive_and_class_inductive():
    bp = P('''
        inductive T
          | a | b
        class inductive C : Prop
          | mk
    ''')
    assert [d.kind for d in bp.decls] == [DeclKind.INDUCTIVE, DeclKind.INDUCTIVE]
    assert bp.decls[1].name == "C"


def test_multiline_signature_with_default_argument():
    bp = P('''
        theorem long (a : Nat := 3)
            (b : Nat)
            (h : a ≤ b) :
            a ≤ b + 1 := by
          omega
    ''')
    d = bp.decls[0]
    assert "(a : Nat := 3)" in sig(bp, d) and body(bp, d) == "by\n  omega"


def test_unicode_and_quoted_identifiers():
    bp = P('''
        theorem «my theorem» (α β : Type) (f : α → β) : f = f := rfl
        def ℓ₂norm (x : Nat) : Nat := x
        theorem use : ℓ₂norm 1 = 1 := rfl
    ''')
    assert [d.name for d in bp.decls] == ["my theorem", "ℓ₂norm", "use"]


def test_instance_with_priority_and_name():
    bp = P('''
        instance (priority := low) instFoo : Inhabited Nat := ⟨0⟩
        instance [Inhabited α] : Inhabited (List α) := ⟨[]⟩
    ''')
    assert bp.decls[0].name == "instFoo" and bp.decls[1].name is None


def test_example_has_no_name():
    d = node('''
        example : 1 + 1 = 2 := by decide
    ''')
    assert d.kind == DeclKind.EXAMPLE and d.name is None and d.key.startswith("<example@")


def test_crlf_file():
    src = "namespace A\r\n@[blueprint \"lem:a\" (statement := /-- s -/)]\r\ntheorem a : True := by\r\n  sorry\r\nend A\r\n"
    bp = parse_text(src, "c.lean")
    d = bp.decls[0]
    assert d.name == "A.a" and d.status == BodyStatus.SORRY
    assert bp.text[d.body_span.start:d.body_span.end] == "by\r\n  sorry"


def test_attribute_on_separate_line_with_comment_between_fields():
    d = node('''
        @[blueprint "lem:c" -- the label
          (statement := /-- s -/) /- a block comment -/
          (proof := /-- p -/)]
        -- a comment between attribute and declaration
        theorem c : True := trivial
    ''')
    assert d.blueprint.statement == "s" and d.blueprint.proof == "p"


def test_shared_labels_are_parts_and_duplicate_names_findings():
    bp = P('''
        @[blueprint "lem:a"] theorem a : True := trivial
        @[blueprint "lem:a"] theorem b : True := trivial
        theorem b : True := trivial
    ''')
    assert [f.code for f in bp.findings] == ["duplicate-name"]  # Lean rejects it too
    a, b = bp.nodes
    assert (a.key, b.key, a.node_key, b.node_key) == ("a", "b", "lem:a", "lem:a")
    assert not bp.warnings  # two theorems: related kinds


def test_duplicate_field_is_a_finding():
    bp = P('''
        @[blueprint "a" (statement := /-- one -/) (statement := /-- two -/)]
        theorem a : True := trivial
    ''')
    assert [f.code for f in bp.findings] == ["duplicate-field"]


def test_comment_inside_sorry_using_list_is_a_finding():
    bp = P('''
        theorem a : True := by
          sorry_using [b /- c -/]
        theorem b : True := trivial
    ''')
    assert [f.code for f in bp.findings] == ["comment-in-sorry-using"]
    assert bp.decls[0].sorry_using == ["b"]


def test_other_commands_are_kept():
    bp = P('''
        import Mathlib.Tactic
        set_option autoImplicit false
        #check Nat
        macro "triv" : tactic => `(tactic| trivial)
        notation "ℕ'" => Nat
        attribute [simp] Nat.add_comm
        theorem t : True := by triv
    ''')
    kinds = [(c.kind.value, c.keyword) for c in bp.commands]
    assert kinds == [("import", "import"), ("set_option", "set_option"), ("other", "#check"),
                     ("other", "macro"), ("other", "notation"), ("attribute", "attribute"),
                     ("decl", "theorem")]
    assert bp.text[bp.header_span.start:bp.header_span.end].endswith("autoImplicit false")


def test_mutual_block():
    bp = P('''
        mutual
        def even : Nat → Bool
          | 0 => true
          | n + 1 => odd n
        def odd : Nat → Bool
          | 0 => false
          | n + 1 => even n
        end
        theorem t : True := trivial
    ''')
    assert [d.name for d in bp.decls] == ["even", "odd", "t"] and not bp.findings


def test_deriving_instance_command_vs_deriving_clause():
    bp = P('''
        structure S where
          x : Nat
        deriving Repr
        deriving instance BEq for S
    ''')
    assert [c.keyword for c in bp.commands] == ["structure", "deriving"]


def test_mask_preserves_length_and_newlines():
    src = 'a /- x\n y -/ "s\\"--" -- c\nb \'x\''
    m = mask(src)
    assert len(m) == len(src) and m.count("\n") == src.count("\n")
    assert "x" not in m.split("\n")[0] and m.startswith("a ") and "b" in m


@pytest.mark.parametrize("src, where, what", [
    ("theorem a : True := by\n  /- open comment\n", (2, 2), "unterminated comment"),
    ('def s : String := "open string\n', (1, 18), "unterminated string literal"),
    ('@[blueprint "a" (statement := /-- s -/)\ntheorem a : True := trivial\n', (1, 1),
     "unterminated attribute"),
    ("@[simp]\n", (1, 0), "not followed by a declaration"),
    ('@[blueprint "a" statement := x]\ntheorem a : True := trivial\n', (1, 16),
     "malformed `blueprint` attribute"),
    ("@[blueprint \"a\" (uses := foo)]\ntheorem a : True := trivial\n", (1, 25),
     "must be a list"),
    ("garbage before ( anything\ntheorem a : True := trivial\n", (1, 0), "unexpected text"),
    ("def «open : Nat := 1\n", (1, 4), "unterminated «quoted» identifier"),
])
def test_malformed_input_is_one_located_error(src, where, what):
    with pytest.raises(InputError) as ei:
        parse_text(src, "bad.lean")
    err = ei.value
    assert (err.lineno, err.col) == where, err.line()
    assert what in err.message
    assert err.line().startswith(f"bad.lean:{where[0]}:{where[1]}: ")


def test_comment_before_a_field_value():
    d = node('''
        @[blueprint "a" (statement := /- note -/ /-- the statement -/) (title := -- t
            "T")]
        theorem a : True := trivial
    ''')
    assert d.blueprint.statement == "the statement" and d.blueprint.title == "T"


def test_attribute_before_a_non_declaration_is_a_finding():
    bp = P('''
        @[simp] variable (x : Nat)
        @[inherit_doc] notation "ℕ'" => Nat
    ''')
    assert [f.code for f in bp.findings] == ["misplaced-attribute"]


def test_module_system_syntax():
    bp = P('''
        /-
        Copyright (c) 2025. All rights reserved.
        -/
        module

        public import Mathlib.Probability.Moments.Tilted
        public meta import Mathlib.Tactic.Linarith

        /-! # Title -/

        @[expose] public section

        open MeasureTheory

        namespace ProbabilityTheory

        /-- A structure with an auto-param binder. -/
        structure Kernel.Foo (X : Nat) (ν : Nat := by exact 0) : Prop where
          le : X ≤ X + ν

        namespace Kernel.Foo

        /-! ### Basic -/

        lemma fun_zero : Foo 0 0 where
          le := Nat.le_refl _

        -- todo rename
        lemma _root_.ProbabilityTheory.Kernel.foo_congr : True := by
          calc True
          _ = True := rfl

        protected lemma const (h : Foo 1 1) : True := trivial

        end Kernel.Foo

        end ProbabilityTheory
    ''')
    assert not bp.findings
    assert [c.keyword for c in bp.commands][:4] == ["module", "import", "import", "/-!"]
    names = [d.name for d in bp.decls]
    assert names == ["ProbabilityTheory.Kernel.Foo", "ProbabilityTheory.Kernel.Foo.fun_zero",
                     "ProbabilityTheory.Kernel.foo_congr", "ProbabilityTheory.Kernel.Foo.const"]
    assert bp.decls[1].body_sep == "where" and bp.decls[1].status.value == "complete"
    assert bp.decls[0].modifiers == ()
    from harness.blueprint.imports import imported_modules
    assert imported_modules(bp) == ["Mathlib.Probability.Moments.Tilted",
                                    "Mathlib.Tactic.Linarith"]
