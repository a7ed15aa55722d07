"""Issue #20 item 4 (our lexers follow Lean's token rule, fail closed where they cannot decide) and
issue #19 item 7 (outside the editable nodes any context change is a lock failure)."""

from __future__ import annotations

import pytest

from harness.blueprint import parse_text
from harness.blueprint.lexer import regions
from harness.errors import InputError
from harness.gate.lock import make_lock
from harness.gate.tokens import divergence, lex
from harness.gate.verify import verify
from tests.gate.corpus import BASE

# (source, what Lean reads as comments/literals: kinds in order)
TOKEN_RULE = [
    ("{ x : Int //-1 < x }", []),  # `//` then `-1`: no comment
    ("a \\/-1 < x", []),  # the ASCII or `\/`
    ("x <--(1 : Int)", []),  # `<-` then `-(1 : Int)`
    ("x ×'\"' y\"", ["string"]),  # `×'` then the string `"' y"`
    ("f ⁻¹' s ∪ t", []),  # Mathlib's preimage token
    ("∑' i, f i", []),
    ("f '' s", []),
    ("!'a'", ["char"]),  # `!` then a character literal
    ("h' x!'", []),  # primes in identifiers
    ("a /-1 -/ b", ["block_comment"]),  # `/` is no longer token: Lean opens a comment
    ("a --b", ["line_comment"]),
    ("a :=--b", ["line_comment"]),
]


@pytest.mark.parametrize(("src", "kinds"), TOKEN_RULE)
def test_both_lexers_follow_the_longest_token_rule(src: str, kinds: list[str]) -> None:
    assert [r.kind for r in regions(src)] == kinds
    lexed = lex(src)
    assert lexed.error is None
    assert divergence(src, lexed) is None


def test_the_tokens_read_by_lean_are_the_ones_we_scan() -> None:
    toks = [t.value for t in lex("{ x : Int //-1 < x } ×'\"a\" <--1").tokens]
    assert "//" in toks and "×'" in toks and "<-" in toks
    assert [t.value for t in lex("theorem t : True := by bv_decide?").tokens][-1] == "bv_decide?"


@pytest.mark.parametrize("src", ["x ∮--y", "x ∮/-y -/", "x ∮'a'"])
def test_an_opener_glued_to_an_unknown_symbol_is_undecidable(src: str) -> None:
    with pytest.raises(InputError, match="cannot decide"):
        regions(src)
    assert lex(src).error is not None and "cannot decide" in lex(src).error[1]


def test_interpolation_only_after_the_syntaxes_that_declare_it() -> None:
    src = 'def f : Nat := String.length "{" + (s!"{1}").length'
    lexed = lex(src)
    assert lexed.error is None and divergence(src, lexed) is None
    assert [t.value for t in lexed.tokens if t.in_string] == ["1"]  # the code inside s!"{…}"


def test_module_doc_opener_is_recorded() -> None:
    src = "theorem t : True := by\n  trivial\n  /-! doc -/\n"
    assert lex(src).module_docs == [src.index("/-!")]


# ----------------------------------------------------------------------------- issue 19, item 7

LOCK = make_lock(parse_text(BASE))
NODE = '@[blueprint "lem:double-succ"'


@pytest.mark.parametrize("prefix", [
    "open Classical in\n", "open scoped Classical in\n", "set_option maxHeartbeats 400000 in\n",
    "set_option linter.unusedVariables false in\n", "variable {β : Type}\n",
    "local notation \"D\" => double\n", "attribute [local instance] Nat.instLENat\n",
    "open Nat\n",
])
def test_context_change_before_a_locked_node_is_a_lock_failure(prefix: str) -> None:
    text = BASE.replace(NODE, prefix + NODE, 1)
    r = verify(text, None, LOCK, static_only=True)
    assert r.exit_code == 1, prefix
    assert any(f.check in ("lock", "forbidden") for f in r.failures), r.failures


def test_a_harmless_prefix_stays_allowed_on_the_node_being_proved() -> None:
    text = BASE.replace(NODE, "set_option maxHeartbeats 400000 in\n" + NODE, 1)
    text = text.replace("double (Nat.succ n) = double n + 2 := by\n  sorry",
                        "double (Nat.succ n) = double n + 2 := by\n  unfold double\n  omega")
    r = verify(text, None, LOCK, base_text=BASE, allow={"lem:double-succ"}, static_only=True)
    assert r.exit_code == 0, r.failures
    # the same prefix with the limit removed or unbounded is refused
    for bad in ("0", "100000000000"):
        r = verify(text.replace("400000 in", f"{bad} in"), None, LOCK, base_text=BASE,
                   allow={"lem:double-succ"}, static_only=True)
        assert r.exit_code == 1


@pytest.mark.parametrize("word", ["coinductive Stream' : Type where", "variable? [Fact False]",
                                  "my_new_command Foo"])
def test_an_unknown_command_at_column_0_is_rejected_not_ignored(word: str) -> None:
    text = BASE.replace(NODE, word + "\n\n" + NODE, 1)
    r = verify(text, None, LOCK, static_only=True)
    # after a body it is read as part of it (column 0 in a body), elsewhere as a command
    assert any(f.rule in ("command-unknown", "command-in-body") for f in r.failures), r.failures
    text = BASE.replace("universe u\n", "universe u\n\n" + word + "\n", 1)  # between commands
    r = verify(text, None, LOCK, static_only=True)
    assert any(f.rule == "command-unknown" for f in r.failures), r.failures


def test_a_mathlib_only_token_that_decides_a_char_literal_is_undecidable() -> None:
    src = "x ∘'\"' ; sorry ; \""  # with Mathlib: `∘'` then a string; without: `∘` then a char
    with pytest.raises(InputError, match="only when Mathlib is imported"):
        regions(src)
    assert "only when Mathlib is imported" in (lex(src).error or (0, ""))[1]
    assert regions("g ∘' f") == [] and lex("g ∘' f").error is None  # no literal either way
