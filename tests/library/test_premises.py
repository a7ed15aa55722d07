"""Premise recall: gold sets resolved as Lean resolves names; both rankers on one index."""

from __future__ import annotations

from pathlib import Path

from harness.library.generate import generate_tree
from harness.library.premises import corpus_cases, recall_benchmark
from tests.library.conftest import write

CORPUS = """\
namespace Alpha

/-- Monotone bound. -/
theorem mono_bound (x : Nat) : x ≤ x + 1 := sorry

protected theorem hidden (x : Nat) : x = x := rfl

theorem uses_both (x : Nat) : x ≤ x + 1 := by
  have := Alpha.hidden x
  exact mono_bound x

end Alpha

open Alpha in
theorem outside (x : Nat) : x ≤ x + 1 := by
  have := hidden x
  exact mono_bound x

theorem unproved (x : Nat) : x ≤ x + 1 := by
  exact Alpha.mono_bound x
  sorry
"""


def test_gold_sets_follow_lean_resolution(tmp_path: Path):
    write(tmp_path / "C" / "A.lean", CORPUS)
    cases, n = corpus_cases(tmp_path)
    gold = {d.name: g for d, _, g in cases}
    assert gold["Alpha.uses_both"] == {"Alpha.hidden", "Alpha.mono_bound"}
    # `open Alpha` does not reach the protected `Alpha.hidden` by its last component
    assert gold["outside"] == {"Alpha.mono_bound"}
    assert "unproved" not in gold and "Alpha.mono_bound" not in gold  # sorry: not proved
    assert n == 5


def test_recall_benchmark_compares_with_the_baseline_in_one_run(tmp_path: Path):
    generate_tree(tmp_path, n_files=40, seed=2)
    r = recall_benchmark(tmp_path, sample=60)
    assert r["theorems"] == 60
    for key in ("ranker", "baseline_bm25", "baseline_bm25_accessible"):
        assert 0.0 <= r[key]["recall@1"] <= r[key]["recall@10"] <= 1.0
    assert r["recall@10_ratio"] == round(r["ranker"]["recall@10"]
                                         / r["baseline_bm25"]["recall@10"], 3)
