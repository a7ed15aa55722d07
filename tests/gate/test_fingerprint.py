"""Fingerprints: insensitive to whitespace amount, comments and CRLF; sensitive to every token."""

from __future__ import annotations

from harness.blueprint import parse_text
from harness.gate import fingerprint as fp
from harness.gate.tokens import lex

HEAD = "import Architect\n\nset_option autoImplicit false\n\nnamespace N\n\n"


def stmt(decl_text: str, prefix: str = HEAD) -> str:
    text = prefix + decl_text + "\n\nend N\n"
    bp = parse_text(text)
    norm = fp.Normaliser(text, lex(text))
    return fp.statement_fp(norm, bp.decls[0])


def normal(text: str) -> str:
    return fp.Normaliser(text, lex(text)).normal(0, len(text))


def test_whitespace_and_comments_do_not_matter() -> None:
    a = stmt("theorem t (a b : Nat) (h : a ≤ b) : a + 0 ≤ b := by\n  sorry")
    b = stmt("theorem t (a b : Nat) -- two numbers\n    (h : a ≤ b) :\n    a + /- zero -/ 0 ≤ b := by\n  sorry")
    c = stmt("theorem t ( a b : Nat ) ( h : a ≤ b ) : a + 0 ≤ b := by sorry")
    assert a == b == c


def test_every_token_matters() -> None:
    a = stmt("theorem t (a b : Nat) (h : a ≤ b) : a + 0 ≤ b := by\n  sorry")
    assert a != stmt("theorem t (a b : Nat) (h : a < b) : a + 0 ≤ b := by\n  sorry")
    assert a != stmt("theorem t (a b : Nat) : a + 0 ≤ b := by\n  sorry")
    assert a != stmt("theorem t' (a b : Nat) (h : a ≤ b) : a + 0 ≤ b := by\n  sorry")
    assert a != stmt("private theorem t (a b : Nat) (h : a ≤ b) : a + 0 ≤ b := by\n  sorry")
    assert a != stmt("@[simp] theorem t (a b : Nat) (h : a ≤ b) : a + 0 ≤ b := by\n  sorry")


def test_body_does_not_matter_for_theorems() -> None:
    assert stmt("theorem t : 1 = 1 := by\n  sorry") == stmt("theorem t : 1 = 1 := rfl")


def test_presence_of_whitespace_matters_where_lean_cares() -> None:
    assert normal("x[i]") != normal("x [i]")
    assert normal("f.1") != normal("f .1")
    assert normal("(a , b)") == normal("(a, b)") == normal("( a, b )")


def test_string_contents_matter_but_crlf_does_not() -> None:
    assert normal('f "a  b"') != normal('f "a b"')
    assert normal('f "a -- b"') != normal('f "a"')
    assert normal("a\r\n  b") == normal("a\n b")


def test_definition_fingerprint_includes_the_body() -> None:
    def dfp(body: str) -> str:
        text = HEAD + f"def d (n : Nat) : Nat := {body}\n\nend N\n"
        bp = parse_text(text)
        return fp.definition_fp(fp.Normaliser(text, lex(text)), bp.decls[0])
    assert dfp("n + n") == dfp("n  +  n -- same")
    assert dfp("n + n") != dfp("2 * n")


def test_context_sees_scope_commands() -> None:
    def ctx(prefix: str) -> str:
        text = HEAD + prefix + "theorem t : True := trivial\n\nend N\n"
        bp = parse_text(text)
        norm = fp.Normaliser(text, lex(text))
        return fp.Contexts(norm, bp).fp(bp.decls[0])
    base = ctx("")
    assert base == ctx("-- a comment\n\n")
    for extra in ("open Nat\n\n", "variable (k : Nat)\n\n", "universe v\n\n",
                  "set_option pp.all true\n\n", "open Nat in\n", "attribute [simp] Nat.add_comm\n\n",
                  "set_option autoImplicit true in\n"):
        assert ctx(extra) != base, extra


def test_header_ignores_module_doc_but_not_imports() -> None:
    def hfp(text: str) -> str:
        text = text + "namespace N\n\ntheorem t : True := trivial\n\nend N\n"
        bp = parse_text(text)
        return fp.header_fp(fp.Normaliser(text, lex(text)), bp)
    a = hfp("import Architect\n\n")
    assert a == hfp("import Architect\n\n/-! # Docs -/\n\n")
    assert a != hfp("import Architect\nimport Mathlib\n\n")
    assert a != hfp("import Architect\n\nset_option maxHeartbeats 0\n\n")


def test_informal_statement_whitespace_insensitive() -> None:
    def ifp(s: str) -> str | None:
        text = HEAD + f'@[blueprint "lem:t"\n  (statement := /-- {s} -/)]\ntheorem t : True := trivial\n\nend N\n'
        return fp.informal_fp(parse_text(text).decls[0])
    assert ifp("$a \\le b$") == ifp("$a  \\le\n   b$")
    assert ifp("$a \\le b$") != ifp("$a < b$")
