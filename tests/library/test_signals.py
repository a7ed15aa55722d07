"""The fifth round's conclusion-shape signals (harness/library/signals.py): conclusion and head
read off a signature, what each weight moves, that a query with a place is left alone
(SHAPE_BARE_ONLY), and the leak rule (the query's own proof never counts). Real builds of small
Lean trees, real SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

import harness.library.signals as signals
from harness.library.integrity import check_index
from harness.library.query import LibraryIndex, QueryContext
from harness.library.rank import const_keys, parse_query
from harness.library.signals import conclusion, conclusion_keys, head_symbol
from harness.library.store import build_index


def test_conclusion_and_head_are_read_past_binders_hypotheses_and_quantifiers():
    sig = "(x y : E) (h : 0 < x) : ∀ ε > 0, ∃ δ, Tendsto (fun n ↦ f n) atTop (nhds 0)"
    assert conclusion(sig) == "Tendsto (fun n ↦ f n) atTop (nhds 0)"
    assert head_symbol(conclusion(sig)) == "Tendsto"
    assert conclusion("{s : Set α} (h : s ⊆ t) : a ∈ s → a ∈ t ∪ u") == "a ∈ t ∪ u"
    assert head_symbol("‖x - y‖ ≤ ‖x‖ + ‖y‖") == "≤"
    assert head_symbol("f x ≥ g (x ≤ y)") == "≤"  # `≥` is `≤`; a bracketed relation is not top
    # a sum's binder comma is inside the conclusion, not a quantifier's
    assert conclusion("(bg : B g) : eLpNorm (S g) 2 ≤ 2 * ∑ p ∈ 𝔄, ‖g p‖ₑ").startswith("eLpNorm")
    assert conclusion_keys("(h : Foo.bar x) : Real.exp x ≤ baz") == {"Real.exp", "exp", "baz"}
    assert head_symbol("") == ""


SHAPE = """\
namespace Sh

def zork (n : Nat) : Nat := n
def quux (n : Nat) : Nat := n

/-- zork quux facts. -/
theorem hyp_side (n : Nat) (h : zork n = quux n) : quux n = n := rfl

/-- zork quux facts. -/
theorem concl_side (n : Nat) (h : quux n = n) : zork n = quux n := rfl

end Sh
"""


@pytest.fixture
def shape_ix(tmp_path: Path):
    root = tmp_path / "sh"
    (root / "Sh").mkdir(parents=True)
    (root / "Sh/Basic.lean").write_text(SHAPE, encoding="utf-8")
    idx = tmp_path / "idx.sqlite"
    build_index(root, path=idx, corpus=True, workers=1)
    index = LibraryIndex(check_index(idx), idx)
    yield index
    index.close()


def _scores(ix: LibraryIndex, ctx: QueryContext) -> dict[str, float]:
    return {h.name: h.score for h in ix.search("(m : Nat) : zork m ≤ quux m zork quux", 10,
                                                ctx=ctx)}


def test_conclusion_constants_and_head_lift_the_declaration_concluding_alike(
        shape_ix: LibraryIndex, monkeypatch):
    # both theorems name zork and quux; only concl_side concludes with both (and with `=`,
    # not the query's `≤`: the head term is measured apart below)
    monkeypatch.setattr(signals, "W_HEAD", 0.0)
    monkeypatch.setattr(signals, "W_CONCL", 0.0)
    off = _scores(shape_ix, QueryContext())
    monkeypatch.setattr(signals, "W_CONCL", 0.5)
    on = _scores(shape_ix, QueryContext())
    gain = {n: on[n] - off[n] for n in ("Sh.concl_side", "Sh.hyp_side")}
    assert gain["Sh.concl_side"] == pytest.approx(0.5, abs=1e-3)  # all of the conclusion
    assert 0.0 < gain["Sh.hyp_side"] < gain["Sh.concl_side"]  # quux only
    # with a place (search --for) nothing changes: SHAPE_BARE_ONLY
    placed = QueryContext(module="Sh.Other", line=1)
    monkeypatch.setattr(signals, "W_CONCL", 0.0)
    p_off = _scores(shape_ix, placed)
    monkeypatch.setattr(signals, "W_CONCL", 0.5)
    assert _scores(shape_ix, placed) == p_off


def test_head_symbol_term_goes_only_to_the_same_top_relation(shape_ix: LibraryIndex,
                                                             monkeypatch):
    monkeypatch.setattr(signals, "W_CONCL", 0.0)
    monkeypatch.setattr(signals, "W_HEAD", 0.0)
    q = "(m : Nat) : zork m = quux m zork quux"
    off = {h.name: h.score for h in shape_ix.search(q, 10, ctx=QueryContext())}
    monkeypatch.setattr(signals, "W_HEAD", 0.25)
    on = {h.name: h.score for h in shape_ix.search(q, 10, ctx=QueryContext())}
    assert on["Sh.concl_side"] - off["Sh.concl_side"] == pytest.approx(0.25, abs=1e-3)
    assert on["Sh.hyp_side"] - off["Sh.hyp_side"] == pytest.approx(0.25, abs=1e-3)  # `=` too
    assert on["Sh.zork"] == pytest.approx(off["Sh.zork"], abs=1e-6)  # a def has no `=`


VOTE = """\
namespace Vo

theorem lem_a : True := trivial
theorem lem_b : True := trivial

/-- Wibble wobble frob. -/
theorem near_hyp (n : Nat) (h : frob n = wobble n) : n = n := by
  have := lem_a
  rfl

/-- Wibble wobble frob. -/
theorem near_concl (n : Nat) (h : n = n) : frob n = wobble n := by
  have := lem_b
  rfl

/-- Wibble wobble frob. -/
theorem query_thm (n : Nat) : frob n = wobble n := by
  have := PROOF_USES
  rfl

end Vo
"""


def _build(tmp_path: Path, name: str, proof_uses: str) -> LibraryIndex:
    root = tmp_path / name
    (root / "Vo").mkdir(parents=True)
    (root / "Vo/Basic.lean").write_text(VOTE.replace("PROOF_USES", proof_uses),
                                         encoding="utf-8")
    idx = tmp_path / f"{name}.sqlite"
    build_index(root, path=idx, corpus=True, workers=1)
    return LibraryIndex(check_index(idx), idx)


def test_knn_conclusion_prefers_the_neighbour_concluding_alike(tmp_path: Path, monkeypatch):
    ix = _build(tmp_path, "a", "lem_a")
    try:
        ids = dict(ix.rows("SELECT name, id FROM decls"))
        q = parse_query("(n : Nat) : frob n = wobble n  Wibble wobble frob.")
        words = ix._informative(q.words)
        ctx = QueryContext(exclude=frozenset({"Vo.query_thm"}))
        shape = signals.query_shape(q.text, const_keys(q.idents), False)
        assert shape is not None and {"frob", "wobble"} <= shape[0] and shape[1] == "="
        qc = {k: 1.0 for k in const_keys(q.idents)}
        for w in (0.0, 1.0):
            monkeypatch.setattr(signals, "KNN_CONCL", w)
            monkeypatch.setattr(signals, "KNN_HEAD", 0.0)
            near = dict(ix.neighbours(words, ctx, 5, (3.0, 1.0, 0.7), qc, shape))
            if w == 0.0:
                before = near[ids["Vo.near_concl"]] / near[ids["Vo.near_hyp"]]
            else:
                assert near[ids["Vo.near_concl"]] / near[ids["Vo.near_hyp"]] > before
            assert ids["Vo.query_thm"] not in near  # however alike its conclusion
    finally:
        ix.close()


def test_the_querys_own_proof_never_counts(tmp_path: Path, monkeypatch):
    """Two trees differing only in what the query theorem's proof uses: with every shape
    weight on, a bare search for its statement ranks and scores alike in both (fails if the
    query's theorem votes as its own nearest neighbour: its conclusion is the query's)."""
    monkeypatch.setattr(signals, "KNN_CONCL", 4.0)
    monkeypatch.setattr(signals, "KNN_HEAD", 2.0)
    monkeypatch.setattr(signals, "W_CONCL", 2.0)
    monkeypatch.setattr(signals, "W_HEAD", 1.0)
    got = []
    for name, uses in (("a", "lem_a"), ("b", "lem_b")):
        ix = _build(tmp_path, name, uses)
        try:
            hits = ix.search("(n : Nat) : frob n = wobble n  Wibble wobble frob.", 10,
                             ctx=QueryContext(exclude=frozenset({"Vo.query_thm"})))
            got.append([(h.name, h.score) for h in hits])
        finally:
            ix.close()
    assert got[0] and got[0] == got[1]
    assert "Vo.query_thm" not in {n for n, _ in got[0]}
