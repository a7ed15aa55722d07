"""The fourth round's usage signals (rank.KNN_CONST: neighbours compared by their statements'
constants too; rank.W_COUSE: co-usage) and their leak rules: the query's own proof, and proofs
invisible from a place, never speak. Real builds of a small Lean tree, real SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

import harness.library.rank as rank
from harness.library.integrity import check_index
from harness.library.query import LibraryIndex, QueryContext
from harness.library.store import build_index

CO = """\
namespace Co

theorem alpha_start_aa : True := trivial
theorem beta_thing_bb : True := trivial
theorem gamma_other_cc : True := trivial

theorem user_one (n : Nat) : n = n := by
  have := alpha_start_aa
  have := beta_thing_bb
  rfl

theorem user_two (n : Nat) : n + 0 = n := by
  have := alpha_start_aa
  have := gamma_other_cc
  rfl

/-- Splines and gauges, splines and gauges, splines and gauges. -/
theorem wordy_spline_gauge (s : Spline) : gauge s = gauge s := by
  exact delta_wordy_dd

/-- A spline gauge. -/
theorem const_spline_gauge (s : Spline) : Rare.zeta_qq s := by
  exact delta_const_ee

theorem delta_wordy_dd : True := trivial
theorem delta_const_ee : True := trivial

end Co
"""


@pytest.fixture
def ix(tmp_path: Path):
    root = tmp_path / "co"
    (root / "Co").mkdir(parents=True)
    (root / "Co/Basic.lean").write_text(CO, encoding="utf-8")
    idx = tmp_path / "idx.sqlite"
    build_index(root, path=idx, corpus=True, workers=1)
    index = LibraryIndex(check_index(idx), idx)
    yield index
    index.close()


def _ids(ix: LibraryIndex) -> dict[str, int]:
    return dict(ix.rows("SELECT name, id FROM decls"))


def _line(ix: LibraryIndex, name: str) -> int:
    return ix.rows("SELECT line FROM decls WHERE name = ?", (name,))[0][0]


def test_co_usage_never_counts_the_querys_own_or_an_invisible_proof(ix: LibraryIndex):
    ids = _ids(ix)
    alpha, beta, gamma = (ids[f"Co.{n}"] for n in ("alpha_start_aa", "beta_thing_bb",
                                                   "gamma_other_cc"))
    got = ix.co_usage([alpha], QueryContext(), 100)
    assert beta in got and gamma in got and alpha not in got
    # the query is user_one: its own proof (alpha with beta) never counts
    got = ix.co_usage([alpha], QueryContext(exclude=frozenset({"Co.user_one"})), 100)
    assert gamma in got and beta not in got
    # from a place between the two users, with and without its imports known: only the proof
    # above it speaks
    line = _line(ix, "Co.user_two")
    for vis in (None, frozenset()):
        got = ix.co_usage([alpha], QueryContext(module="Co.Basic", line=line, visible=vis), 100)
        assert beta in got and gamma not in got


def test_co_usage_finds_a_premise_no_word_of_the_query_names(ix: LibraryIndex, monkeypatch):
    query = "theorem q (n : Nat) (h : alpha_start_aa) : n + 0 = n"
    monkeypatch.setattr(rank, "W_KNN", 0.0)  # co-usage alone
    monkeypatch.setattr(rank, "W_COUSE", 0.0)
    assert "Co.gamma_other_cc" not in [h.name for h in ix.search(query, 10)]
    monkeypatch.setattr(rank, "W_COUSE", 1.0)
    assert "Co.gamma_other_cc" in [h.name for h in ix.search(query, 10)]
    # the query is user_two itself: its own proof is the only one using gamma with alpha
    mine = QueryContext(exclude=frozenset({"Co.user_two"}))
    assert "Co.gamma_other_cc" not in [h.name for h in ix.search(query, 10, ctx=mine)]


def test_constant_overlap_moves_a_neighbour_up_and_never_admits_the_query(ix: LibraryIndex,
                                                                          monkeypatch):
    ids = _ids(ix)
    words = ["spline", "gauge", "zeta", "qq"]
    qconsts = {"Rare.zeta_qq": 3.0, "zeta_qq": 3.0}
    w = (3.0, 1.0, 0.7)

    def sims(ctx: QueryContext) -> dict[int, float]:
        return dict(ix.neighbours(words, ctx, 10, w, qconsts))

    monkeypatch.setattr(rank, "KNN_CONST", 0.0)
    plain = sims(QueryContext())
    monkeypatch.setattr(rank, "KNN_CONST", 4.0)
    mixed = sims(QueryContext())
    wordy, const = ids["Co.wordy_spline_gauge"], ids["Co.const_spline_gauge"]
    assert mixed[const] / mixed[wordy] > plain[const] / plain[wordy]
    assert max(mixed, key=lambda i: mixed[i]) == const
    # the query is const_spline_gauge: its proof never votes, however much it shares
    mine = QueryContext(exclude=frozenset({"Co.const_spline_gauge"}))
    near = ix.neighbours(words, mine, 10, w, qconsts)
    assert const not in dict(near) and ids["Co.delta_const_ee"] not in ix.votes(near)


def test_naive_bayes_reads_only_proofs_that_may_vote(ix: LibraryIndex):
    ids = _ids(ix)
    beta, wordy, const = (ids[f"Co.{n}"] for n in ("beta_thing_bb", "delta_wordy_dd",
                                                   "delta_const_ee"))
    # a premise whose users' statements have the query's words scores higher
    got = ix.naive_bayes([wordy, const], ["zeta", "qq"], QueryContext())
    assert got[const] > got[wordy]
    assert beta in ix.naive_bayes([beta], ["nat"], QueryContext())
    # beta's only user is user_one: as the query, or from above it, nothing speaks for beta
    assert ix.naive_bayes([beta], ["nat"], QueryContext(exclude=frozenset({"Co.user_one"}))) \
        == {}
    line = _line(ix, "Co.user_one")
    for vis in (None, frozenset()):
        assert ix.naive_bayes([beta], ["nat"],
                              QueryContext(module="Co.Basic", line=line, visible=vis)) == {}
