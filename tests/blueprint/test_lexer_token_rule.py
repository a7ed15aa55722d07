"""The parser's lexer on the places where Lean's token rule decides (issue #20 item 4)."""

from __future__ import annotations

import pytest

from harness.blueprint.lexer import covering_token_end, in_identifier, mask, regions


@pytest.mark.parametrize(("src", "s", "end"), [
    ("a //-1", 3, 4),  # `/` of `/-` is inside the token `//`
    ("a \\/-1", 3, 4),
    ("x <--1", 3, 4),
    ("a ×'\"'", 3, 4),
    ("a /-1", 2, None),  # a token start: Lean's `whitespace` opens a comment
    ("a :=--", 4, None),
])
def test_covering_token(src: str, s: int, end: int | None) -> None:
    assert covering_token_end(src, s, 0) == end


@pytest.mark.parametrize(("src", "s", "inside"), [
    ("h'", 1, True), ("foo!'", 4, True), ("x₁'", 2, True), ("!'a'", 1, False),
    ("2'a'", 1, False), (" 'a'", 1, False),
])
def test_prime_inside_an_identifier(src: str, s: int, inside: bool) -> None:
    assert in_identifier(src, s, 0) is inside


def test_hidden_code_is_visible_after_the_fix() -> None:
    src = "theorem t : { x : Int //-1 < x } = { x : Int // -1 < x } := by native_decide -/ rfl\n"
    assert "native_decide" in mask(src)  # before: blanked as a comment up to `-/`
    assert [r.kind for r in regions("#eval s!\"{1}\" ++ String.mk ['\"']")] == ["string", "char"]
