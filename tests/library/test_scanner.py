"""The declaration scanner on real Lean text: scopes, names, docstrings, attributes."""

from __future__ import annotations

from harness.library.names import additive_name, name_tokens
from harness.library.scanner import scan_file_text, scan_text
from tests.library.conftest import MONOID, SUBG


def _by_name(text: str, **kw):
    return {d.name: d for d in scan_text(text, **kw)}


def test_namespaces_open_root_and_end():
    got = _by_name("namespace A.B\nopen Real\n\ntheorem t1 : True := trivial\n\nend B\n\n"
                   "theorem t2 : True := trivial\n\nopen Filter in\ntheorem _root_.t3 : True :="
                   " trivial\n\ntheorem t4 : True := trivial\nend A\ntheorem t5 : True := trivial\n")
    assert set(got) == {"A.B.t1", "A.t2", "t3", "A.t4", "t5"}
    assert got["A.B.t1"].opens == ("Real",)
    assert got["t3"].opens == ("Filter",)  # `open … in` is for that declaration only
    assert got["A.t4"].opens == ()


def test_docstring_signature_private_protected_fields():
    got = _by_name(SUBG)
    tb = got["ProbabilityTheory.HasSubgaussianMGF.measure_ge_le"]
    assert tb.kind == "theorem" and tb.line == 17
    assert tb.doc.startswith("**Sub-Gaussian tail bound** (Chernoff)")
    assert tb.signature.startswith("(h : HasSubgaussianMGF X c μ) (hε : 0 ≤ ε) :")
    assert ":= by" not in tb.signature and "le_refl" not in tb.signature
    assert "Real.exp" in tb.consts and "h" not in tb.consts  # binders are not constants
    assert "ProbabilityTheory.HasSubgaussianMGF.mgf_le" in got  # a structure field
    assert got["ProbabilityTheory.HasSubgaussianMGF"].doc.startswith("A real random variable")
    text = ("/-- doc -/\nprivate theorem p : True := trivial\n"
            "protected def Nat.q (n : Nat) : Nat := n\n")
    more = _by_name(text)
    assert more["p"].private and more["p"].doc == "doc" and not more["p"].protected
    assert more["Nat.q"].protected and more["Nat.q"].kind == "def"


def test_comments_and_strings_are_not_code():
    got = _by_name('/- theorem in_comment : True := trivial -/\n'
                   'def s : String := "\ntheorem in_string : True := trivial"\n'
                   '-- theorem in_line_comment : True\ntheorem real_one : True := trivial\n')
    assert set(got) == {"s", "real_one"}


def test_unterminated_comment_is_one_problem_line():
    decls, problem = scan_file_text("theorem a : True := trivial\n/- open\n", "Bad.lean")
    assert decls == [] and problem == "Bad.lean:2:0: unterminated comment (missing `-/`)"


def test_to_additive_names():
    got = _by_name(MONOID)
    assert got["Finset.sum_empty"].origin == "to_additive"
    assert got["Finset.sum_empty"].doc == "The sum over the empty set is zero."
    assert "Finset.sum_const_nat'" in got  # an explicit name, in the same namespace
    assert "add_self_pos'" in got  # `attribute [to_additive] …`
    # Mathlib's rules: word dictionary then abbreviations (`le_zero` -> `nonpos`)
    assert additive_name("Finset.prod_le_one", None, {}) == "Finset.sum_nonpos"
    assert additive_name("Monoid.npow_succ", None, {"Monoid": "AddMonoid"}) == \
        "AddMonoid.nsmul_succ"
    assert additive_name("Foo.bar", None, {}) is None  # nothing multiplicative


def test_name_tokens():
    assert name_tokens("HasSubgaussianMGF.measure_ge_le") == (
        "has", "subgaussian", "mgf", "measure", "ge", "le")
    assert name_tokens("Real.exp_le_exp") == ("real", "exp", "le", "exp")


def test_uses_and_sorry():
    got = _by_name(SUBG, uses=True)
    tb = got["ProbabilityTheory.HasSubgaussianMGF.measure_ge_le"]
    assert "Real.exp_le_exp.mpr" in tb.uses and "le_refl" in tb.uses and not tb.has_sorry
