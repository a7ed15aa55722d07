"""The gate's own Lean lexer, and its agreement with the parser's."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.gate.tokens import divergence, lex
from tests.gate.corpus import BASE

ROOT = Path(__file__).resolve().parents[2]


def values(text: str) -> list[str]:
    return [t.value for t in lex(text).tokens]


def test_comments_are_not_tokens() -> None:
    assert values("a -- b c\nd /- e /- f -/ g -/ h") == ["a", "d", "h"]
    assert values("/-- doc -/ x /-! mod -/ y") == ["x", "y"]


def test_lean_comment_quirk_after_opener() -> None:
    # `/-` skips one character, so `/-/-` opens only one level: Lean reads `native_decide` as code
    text = "/-/- -/ native_decide -- -/\n"
    assert values(text) == ["native_decide"]
    assert divergence(text, lex(text)) is not None  # the parser's lexer thinks it is a comment


def test_strings_chars_and_primes() -> None:
    assert values('f "a -- b" \'x\' h\' \'\\n\'') == ["f", '"a -- b"', "'x'", "h'", "'\\n'"]
    assert values("f '' s") == ["f", "''", "s"]
    assert values('r#"a "quoted" b"# x') == ['r#"a "quoted" b"#', "x"]


def test_identifiers_follow_lean() -> None:
    assert values("h₁ α.β x! y? «a b».c Lean.ofReduceBool") == \
        ["h₁", "α.β", "x!", "y?", "a b.c", "Lean.ofReduceBool"]
    # λ is not an identifier character; é is not either (Lean's isLetter is ASCII)
    assert values("λx") == ["λ", "x"]
    assert values("énative_decide") == ["é", "native_decide"]


def test_interpolated_string_code_is_scanned() -> None:
    lx = lex('#eval s!"a{native_decide}b"')
    inner = [t.value for t in lx.tokens if t.in_string]
    assert inner == ["native_decide"]


def test_ambiguous_interpolated_string_is_an_error() -> None:
    lx = lex('x := s!"{"--"}" native_decide\n')
    assert lx.error is not None and "ambiguous" in lx.error[1]


def test_plain_string_with_braces_after_a_symbol_is_fine() -> None:
    text = '(title := "set {x | x > 0")\n'
    lx = lex(text)
    assert lx.error is None and divergence(text, lx) is None


def test_unterminated_comment_is_an_error() -> None:
    assert lex("a /- b").error is not None
    assert lex('a "b').error is not None


def test_real_blueprints_agree_with_the_parser() -> None:
    for text in (BASE, (ROOT / "Blueprint" / "Demo.lean").read_text(encoding="utf-8")):
        lx = lex(text)
        assert lx.error is None
        assert divergence(text, lx) is None


FRAGMENTS = ["x", "h₁", "foo.bar", " ", "\n", "  ", "-- c\n", "/- c -/", "/-- d -/", '"s"',
             '"a -- b"', "'c'", "(", ")", ":=", "+", "=", "[", "]", ",", "«q r»", "0", "1.5",
             "f'", "''", "⟨", "⟩", "·", "/- a /- b -/ c -/", "by", "simp"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
def test_lexers_agree_on_ordinary_lean(parts: list[str]) -> None:
    text = " ".join(parts) + "\n"
    lx = lex(text)
    assert lx.error is None
    assert divergence(text, lx) is None


def test_quote_inside_notation_tokens() -> None:
    # Mathlib's preimage `f ⁻¹' s` and image `f '' s`: `'` is part of a token, not a char literal
    for text in ("theorem t : f ⁻¹' s = s := rfl\n", "theorem t : f '' s = s := rfl\n"):
        lx = lex(text)
        assert lx.error is None and divergence(text, lx) is None
        assert "s" in [t.value for t in lx.tokens]
