"""Exact round-trip and span-local edits, on hand-written and generated blueprints."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.blueprint import parse_file, parse_text
from harness.blueprint.generate import generate_blueprint
from harness.blueprint.write import apply_edit, insert_before, render, replace_body

DEMO = Path(__file__).resolve().parents[2] / "Blueprint" / "Demo.lean"

# Building blocks of a random blueprint: awkward-but-valid Lean fragments.
COMMENTS = st.sampled_from([
    "", "-- a line comment with sorry\n", "/- block /- nested -/ theorem fake : False -/\n",
    "/-- doc comment -/\n", "-- «weird» \"quote\n",
])
BODIES = st.sampled_from([
    "by\n  sorry", "by\n  simp [foo]\n  omega", "rfl", "by\n  sorry_using [a, b]",
    "by\n  -- sorry in a comment\n  exact trivial", 'by\n  have : "s--" = "s--" := rfl\n  trivial',
    "by admit", "⟨fun x => x, rfl⟩",
])
NAMES = st.sampled_from(["a_{i}", "b_c{i}", "«q r{i}»", "ℓ₂_{i}", "h{i}'", "x.y{i}"])


@st.composite
def blueprints(draw) -> tuple[str, int]:
    n = draw(st.integers(1, 6))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    parts = ["import Architect\n\nnamespace T\n"]
    for i in range(n):
        parts.append(draw(COMMENTS))
        attr = draw(st.booleans())
        if attr:
            parts.append(f'@[blueprint "lem:n{i}"\n  (statement := /-- stmt {i} $x$ -/)\n'
                         f'  (proof := /-- proof {i} -/)]\n')
        name = draw(NAMES)
        parts.append(f"theorem {name.format(i=i)} (x : Nat) :\n    x = x := {draw(BODIES)}\n\n")
    parts.append("end T\n")
    text = "".join(parts).replace("\n", nl)
    return text, n


@settings(max_examples=150, deadline=None)
@given(blueprints(), st.booleans())
def test_round_trip_is_byte_identical(case, bom):
    text, n = case
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    from harness.blueprint.source import decode

    decoded, has_bom = decode(data)
    bp = parse_text(decoded, "g.lean", bom=has_bom)
    assert render(bp) == data
    assert len(bp.decls) == n


@settings(max_examples=150, deadline=None)
@given(blueprints(), st.data())
def test_replace_body_changes_only_that_span(case, data):
    text, n = case
    bp = parse_text(text, "g.lean")
    d = data.draw(st.sampled_from(bp.decls))
    new = replace_body(bp, d.key, "by\n  exact rfl")
    s, e = d.body_span.start, d.body_span.end
    assert new[:s] == text[:s]
    assert new[len(new) - (len(text) - e):] == text[e:]
    bp2 = parse_text(new, "g.lean")
    d2 = bp2.by_key(d.key)
    nl = "\r\n" if "\r\n" in text else "\n"
    assert bp2.text[d2.body_span.start:d2.body_span.end] == f"by{nl}  exact rfl"
    others = [x for x in bp.decls if x.key != d.key]
    for x in others:
        y = bp2.by_key(x.key)
        assert bp2.text[y.span.start:y.span.end] == text[x.span.start:x.span.end]


@settings(max_examples=100, deadline=None)
@given(blueprints(), st.data())
def test_insert_helpers_before_node(case, data):
    text, _ = case
    bp = parse_text(text, "g.lean")
    d = data.draw(st.sampled_from(bp.decls))
    helper = "theorem helper_zz : True := trivial"
    new = insert_before(bp, d.key, helper)
    assert new[:d.span.start] == text[:d.span.start]
    assert new.endswith(text[d.span.start:])
    bp2 = parse_text(new, "g.lean")
    keys = [x.key for x in bp2.decls]
    assert keys.index("T.helper_zz") == keys.index(d.key) - 1


def test_demo_round_trip_and_apply_edit(tmp_path):
    bp = parse_file(DEMO)
    assert render(bp) == DEMO.read_bytes()
    new = apply_edit(bp, "lem:sum-to-succ", "by\n  simp [sumTo]",
                     "theorem sum_to_succ_aux : True := trivial")
    bp2 = parse_text(new, "Demo.lean")
    d = bp2.node("lem:sum-to-succ")
    assert bp2.text[d.body_span.start:d.body_span.end] == "by\n  simp [sumTo]"
    assert bp2.by_name("Demo.sum_to_succ_aux") is not None
    assert d.status.value == "complete"


def test_generated_blueprint_parses_with_expected_counts():
    text = generate_blueprint(300, seed=3)
    bp = parse_text(text, "gen.lean")
    assert len(bp.nodes) == 300 and not bp.findings
    assert render(bp) == text.encode()
