"""The fourth round's k-NN change (rank.KNN_CONST: neighbours compared by their statements'
constants too) and its leak rule: the query's own proof never votes, however much its
statement shares. Real builds of a small Lean tree, real SQLite."""

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



def test_a_vote_counts_its_neighbours_similarity_to_the_power_knn_pow(ix: LibraryIndex,
                                                                      monkeypatch):
    from harness.library.rank import parse_query

    ids = _ids(ix)
    q = parse_query("theorem q (s : Spline) : gauge s = gauge s  Splines and gauges, a spline gauge.")
    words = ix._informative(q.words)
    wordy, const = ids["Co.delta_wordy_dd"], ids["Co.delta_const_ee"]

    def ratio(power: float) -> float:
        monkeypatch.setattr(rank, "KNN_POW", power)
        got = ix._usage_bonus(q, words, lambda rows: None)
        return got[const] / got[wordy]

    one, three = ratio(1.0), ratio(3.0)
    assert 0 < one < 1 and three == pytest.approx(one ** 3)
