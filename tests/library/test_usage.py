"""The proof-usage table and what reads it: the k-NN votes (a premise found only through a
neighbour's proof; the query's own proof and proofs invisible from a place never vote), usage
centrality, blueprint proximity. Real builds of small Lean trees in a tmp dir, real SQLite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import harness.library.rank as rank
from harness.library.integrity import check_index
from harness.library.query import LibraryIndex, QueryContext
from harness.library.store import build_index
from harness.library.usage import Usage

BASIC = """\
/-! Widgets and frobs. -/

namespace Corp

/-- A lemma about quux; nothing in its statement speaks of widgets. -/
theorem obscure_quux_zz (q : Quux) : q = q := rfl

theorem widget_frob_bound_left (x y : Nat) (hx : widget x ≤ frob y) :
    widget x ≤ frob y + 1 := by
  have := obscure_quux_zz default
  exact Nat.le_succ_of_le hx

theorem shadowed_user (x : Nat) : x = x := by
  intro obscure_quux_zz
  exact fun widget_frob_bound_left => rfl

end Corp
"""

SECRET = """\
import Corp.Basic

namespace Corp

/-- A fact about zeds. -/
theorem hidden_helper_qq {a b : Zed} (h : a ≤ b) : a ≤ b := h

theorem spline_gauge_mono (s t : Spline) (h : gauge s ≤ gauge t) : gauge s ≤ gauge t := by
  exact hidden_helper_qq h

theorem later_spline_gauge (s t : Spline) : gauge s ≤ gauge t + gauge s := by
  exact later_only_helper s t

theorem later_only_helper (s t : Spline) : Zed := sorry

end Corp
"""

OTHER = """\
namespace Corp

theorem spline_gauge_elsewhere (s t : Spline) : gauge s ≤ gauge t := by
  exact Aux.elsewhere_helper_ww

end Corp

theorem Aux.elsewhere_helper_ww : Zed := sorry
"""


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corp"
    _write(root, "Corp/Basic.lean", BASIC)
    _write(root, "Corp/Secret.lean", SECRET)
    _write(root, "Corp/Other.lean", OTHER)
    return root


def _open(root: Path) -> LibraryIndex:
    idx = root.parent / "idx.sqlite"
    build_index(root, path=idx, corpus=True, workers=1)
    return LibraryIndex(check_index(idx), idx)


def _uses(ix: LibraryIndex) -> dict[str, set[str]]:
    use = Usage(ix.rows)
    name = dict(ix.rows("SELECT id, name FROM decls"))
    return {name[i]: {name[int(u)] for u in use.of(i)} for i in name}


def test_usage_table_resolves_as_lean_and_follows_incremental_builds(corpus: Path):
    ix = _open(corpus)
    try:
        got = _uses(ix)
    finally:
        ix.close()
    # `obscure_quux_zz` inside `namespace Corp` is `Corp.obscure_quux_zz`
    assert got["Corp.widget_frob_bound_left"] == {"Corp.obscure_quux_zz"}
    assert got["Corp.spline_gauge_mono"] == {"Corp.hidden_helper_qq"}
    # bound names shadow constants; a theorem with `sorry` uses nothing
    assert got["Corp.shadowed_user"] == set()
    assert got["Corp.later_only_helper"] == set() and got["Corp.obscure_quux_zz"] == set()
    # an edit: the helper moves to another file and the user now names a new lemma
    _write(corpus, "Corp/Basic.lean", BASIC.replace(
        "theorem obscure_quux_zz (q : Quux) : q = q := rfl\n", "").replace(
        "exact Nat.le_succ_of_le hx", "exact brand_new_yy hx"))
    _write(corpus, "Corp/More.lean", "namespace Corp\ntheorem obscure_quux_zz (q : Quux) : "
                                     "q = q := rfl\ntheorem brand_new_yy : True := trivial\n"
                                     "end Corp\n")
    # a new file whose name now wins, inside `namespace Corp`, for Other.lean's (unchanged)
    # `Aux.elsewhere_helper_ww`: the innermost namespace first
    _write(corpus, "Corp/Shadow.lean", "namespace Corp\ntheorem Aux.elsewhere_helper_ww : "
                                       "Zed := sorry\nend Corp\n")
    os.utime(corpus / "Corp/Basic.lean", ns=(1, 2))
    ix = _open(corpus)
    try:
        rep_rows = dict(ix.rows("SELECT name, rel FROM decls"))
        got = _uses(ix)
    finally:
        ix.close()
    assert rep_rows["Corp.obscure_quux_zz"] == "Corp/More.lean"
    assert got["Corp.widget_frob_bound_left"] == {"Corp.obscure_quux_zz", "Corp.brand_new_yy"}
    assert got["Corp.spline_gauge_mono"] == {"Corp.hidden_helper_qq"}  # unchanged, kept
    assert got["Corp.spline_gauge_elsewhere"] == {"Corp.Aux.elsewhere_helper_ww"}
    # the incremental table is the one a build from scratch writes
    fresh = corpus.parent / "fresh.sqlite"
    build_index(corpus, path=fresh, corpus=True, workers=1, rebuild=True)
    ix = LibraryIndex(check_index(fresh), fresh)
    try:
        assert _uses(ix) == got
    finally:
        ix.close()


def _names(ix: LibraryIndex, text: str, ctx: QueryContext | None = None, k: int = 10):
    return [h.name for h in ix.search(text, k, ctx=ctx)]


QUERY = "theorem widget_frob_bound_right (x y : Nat) (hy : widget y ≤ frob x) : widget y ≤ frob x + 2"


def test_a_premise_is_found_only_through_a_neighbours_proof(corpus: Path, monkeypatch):
    ix = _open(corpus)
    try:
        assert "Corp.obscure_quux_zz" in _names(ix, QUERY)
        monkeypatch.setattr(rank, "W_KNN", 0.0)
        assert "Corp.obscure_quux_zz" not in _names(ix, QUERY)  # no word of the query in it
    finally:
        ix.close()


def test_the_theorems_own_proof_never_votes(corpus: Path):
    ix = _open(corpus)
    try:
        me = "Corp.spline_gauge_mono"
        query = ("theorem spline_gauge_mono (s t : Spline) (h : gauge s ≤ gauge t) : "
                 "gauge s ≤ gauge t  The gauge of a spline is monotone.")
        ctx = QueryContext(exclude=frozenset({me}))
        near = ix.neighbours(["spline", "gauge", "mono"], ctx, 10, (3.0, 1.0, 0.7))
        ids = dict(ix.rows("SELECT name, id FROM decls"))
        assert near and ids[me] not in {i for i, _ in near}
        # its helper is named only by its own proof: it is no vote and no hit
        assert ids["Corp.hidden_helper_qq"] not in ix.votes(near)
        assert "Corp.hidden_helper_qq" not in _names(ix, query, ctx)
        # the same theorem not excluded (another theorem's query): its proof votes
        assert "Corp.hidden_helper_qq" in _names(ix, query)
    finally:
        ix.close()


def test_proofs_invisible_from_a_place_never_vote(corpus: Path):
    ix = _open(corpus)
    try:
        ids = dict(ix.rows("SELECT name, id FROM decls"))
        query = "theorem q (s t : Spline) : gauge s ≤ gauge t + gauge t  A spline gauge sum bound."
        # from Corp.Secret line 3: nothing of the file above, and Corp.Other is not imported
        ctx = QueryContext(namespace="Corp", module="Corp.Secret", line=3,
                           visible=frozenset({"Corp.Basic"}))
        near = {i for i, _ in ix.neighbours(["spline", "gauge"], ctx, 10, (3.0, 1.0, 0.7))}
        for hidden in ("Corp.later_spline_gauge", "Corp.spline_gauge_elsewhere",
                       "Corp.spline_gauge_mono"):
            assert ids[hidden] not in near
        hits = _names(ix, query, ctx)
        assert not {"Corp.later_only_helper", "Aux.elsewhere_helper_ww",
                    "Corp.hidden_helper_qq"} & set(hits)
        # below every theorem of the file and importing Corp.Other: they vote
        ctx = QueryContext(namespace="Corp", module="Corp.Secret", line=99,
                           visible=frozenset({"Corp.Basic", "Corp.Other"}))
        near = {i for i, _ in ix.neighbours(["spline", "gauge"], ctx, 10, (3.0, 1.0, 0.7))}
        assert {ids["Corp.later_spline_gauge"], ids["Corp.spline_gauge_elsewhere"]} <= near
    finally:
        ix.close()


def test_usage_centrality_counts_proofs(corpus: Path):
    _write(corpus, "Corp/Users.lean", "namespace Corp\n" + "".join(
        f"theorem user_{i} : True := by\n  exact (obscure_quux_zz default).symm ▸ trivial\n"
        for i in range(3)) + "end Corp\n")
    ix = _open(corpus)
    try:
        use = Usage(ix.rows)
        ids = dict(ix.rows("SELECT name, id FROM decls"))
        assert use.used[ids["Corp.obscure_quux_zz"]] == 4  # three users and the bound's proof
        assert use.used[ids["Corp.later_only_helper"]] == 1
        assert use.used[ids["Corp.widget_frob_bound_left"]] == 0
    finally:
        ix.close()


NODE = """\
import Corp.Basic
import Corp.Other

namespace Corp

@[blueprint "thm:spline-node"
  (statement := /-- The gauge of one spline is below another's, plus one. -/)
  (uses := [spline_gauge_elsewhere])]
theorem spline_node (s t : Spline) : gauge s ≤ gauge t + 1 := sorry

end Corp
"""


def test_blueprint_dependencies_and_what_their_proofs_use_rank_higher(corpus: Path,
                                                                      monkeypatch):
    from harness.blueprint.source import parse_file
    from harness.library.where import blueprint_deps, node_context

    _write(corpus, "Corp/Node.lean", NODE)
    ix = _open(corpus)
    try:
        bp = parse_file(corpus / "Corp/Node.lean")
        node = bp.node("thm:spline-node")
        assert blueprint_deps(bp, node) == ("spline_gauge_elsewhere",)
        w = node_context(ix.rows, corpus, bp, node)
        assert w.ctx.near == ("spline_gauge_elsewhere",) and w.ctx.module == "Corp.Node"
        monkeypatch.setattr(rank, "W_KNN", 0.0)  # proximity alone
        got = _names(ix, w.query, w.ctx)
        assert got[0] == "Corp.spline_gauge_elsewhere"
        # named by no word of the node: found because the dependency's proof uses it
        assert "Aux.elsewhere_helper_ww" in got
        monkeypatch.setattr(rank, "W_BLUEPRINT", 0.0)
        got = _names(ix, w.query, w.ctx)
        assert "Aux.elsewhere_helper_ww" not in got
    finally:
        ix.close()


def test_usage_counts_never_include_the_query_or_invisible_proofs(corpus: Path):
    ix = _open(corpus)
    try:
        ids = dict(ix.rows("SELECT name, id FROM decls"))
        helper, later = ids["Corp.hidden_helper_qq"], ids["Corp.later_only_helper"]
        assert ix.centrality_of(QueryContext()).used[helper] == 1  # spline_gauge_mono's proof
        mine = QueryContext(exclude=frozenset({"Corp.spline_gauge_mono"}))
        assert ix.centrality_of(mine).used[helper] == 0  # the query's own proof never counts
        for vis in (None, frozenset({"Corp.Basic"})):
            top = QueryContext(module="Corp.Secret", line=3, visible=vis)
            got = ix.centrality_of(top).used
            assert got[later] == 0 and got[helper] == 0  # proofs below the place
            assert got[ids["Corp.obscure_quux_zz"]] == 1  # Basic's proof: above, imported
        below = QueryContext(module="Corp.Secret", line=99, visible=frozenset({"Corp.Basic"}))
        assert ix.centrality_of(below).used[later] == 1
        assert ix.centrality_of(below).used[ids["Aux.elsewhere_helper_ww"]] == 0  # not imported
    finally:
        ix.close()


def test_a_blueprint_dependency_the_place_cannot_see_lends_nothing_its_proof_uses(
        corpus: Path, monkeypatch):
    # `late_dep_zz` (in a module the place does not import) is the node's dependency; its proof
    # uses `hidden_helper_qq` (imported there): a proof the place cannot see says nothing
    _write(corpus, "Corp/Late.lean", "namespace Corp\ntheorem late_dep_zz (s t : Spline) : "
                                     "gauge s ≤ gauge t := by\n  exact hidden_helper_qq le_rfl\n"
                                     "end Corp\n")
    ix = _open(corpus)
    monkeypatch.setattr(rank, "W_KNN", 0.0)
    text = "theorem q (s t : Spline) : gauge s ≤ gauge t + 7"

    def helper_rank(visible: frozenset[str], w: float) -> int:
        monkeypatch.setattr(rank, "W_BLUEPRINT", w)
        ctx = QueryContext(module="Corp.Node", namespace="Corp", near=("late_dep_zz",),
                           visible=visible)
        got = _names(ix, text, ctx, k=40)
        return got.index("Corp.hidden_helper_qq") if "Corp.hidden_helper_qq" in got else 99

    try:
        seen = frozenset({"Corp.Secret", "Corp.Late"})
        assert helper_rank(seen, 1.0) < helper_rank(seen, 0.0)  # visible: its proof counts
        unseen = frozenset({"Corp.Secret"})
        assert helper_rank(unseen, 1.0) == helper_rank(unseen, 0.0)
    finally:
        ix.close()
