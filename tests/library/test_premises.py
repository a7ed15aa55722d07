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
    for key in ("ranker", "search", "search_for", "baseline_bm25", "baseline_bm25_accessible",
                "baseline_bm25_visible"):
        assert 0.0 <= r[key]["recall@1"] <= r[key]["recall@10"] <= 1.0
        assert r[key]["recall@1"] <= r[key]["mrr"] <= 1.0
    # the generated files import earlier ones: a filter by imports can only remove
    # non-gold rows, so BM25 with it never recalls less than BM25 with the place alone
    assert r["baseline_bm25_visible"]["recall@10"] >= r["baseline_bm25_accessible"]["recall@10"]
    assert r["recall@10_ratios"]["search_for"] == round(
        r["search_for"]["recall@10"] / r["baseline_bm25"]["recall@10"], 3)
    assert r["recall@10_ratio"] == round(r["ranker"]["recall@10"]
                                         / r["baseline_bm25"]["recall@10"], 3)


MENTIONS = """\
namespace Beta

structure Good (n : Nat) : Prop where
  small : n ≤ 10
  big : 0 ≤ n

theorem zero : True := trivial
theorem step_le (n : Nat) : n ≤ n + 1 := sorry
theorem base_pos : 0 < 1 := sorry
def width (n : Nat) : Nat := n

/-- Field notation on a constant (`step_le.trans`), locals that shadow constants (`zero`, `width`),
a case tag, a named argument and structure-instance fields. -/
theorem uses_mix (n : Nat) (width : Nat) (h : Good n) : Good n where
  small := by
    induction n with
    | zero => exact (step_le 0).trans base_pos.le
    | succ k ih => exact h.small
  big := by
    have zero : 0 ≤ n := h.big
    obtain ⟨a, b⟩ := h
    exact Nat.le_of_lt (lt_of_le_of_lt zero (f := width) base_pos)

theorem dotted (n : Nat) : n ≤ n + 1 := step_le.trans (step_le n)

protected theorem base_pos' : 0 < 1 := sorry

/-- Inside its own namespace a protected name is still not found by its last component. -/
theorem uses_root (h : 0 < 1) : 0 < 1 := base_pos'.trans_le (le_of_eq rfl)

theorem tactic_locals (p : Prop) : True := by
  rcases p with step_le | hq <;> exact zero
  intro x; exact base_pos
  fun y ↦ y

end Beta
"""


def test_gold_is_what_the_proof_mentions(tmp_path: Path):
    write(tmp_path / "M" / "B.lean", MENTIONS)
    gold = {d.name: g for d, _, g in corpus_cases(tmp_path)[0]}
    # `step_le.trans`: Lean's projection fallback resolves the constant prefix (ResolveName.lean);
    # `zero` is a case tag, then a `have`; `width` is the theorem's own binder and a named
    # argument; `small`/`big` are the instance's fields; `h.small` is field notation on a local
    assert gold["Beta.uses_mix"] == {"Beta.step_le", "Beta.base_pos"}
    assert gold["Beta.dotted"] == {"Beta.step_le"}
    # `rcases … with step_le | hq`, `intro x`, `fun y`: bound names; `<;>` and `;` end them
    assert gold["Beta.tactic_locals"] == {"Beta.zero", "Beta.base_pos"}
    assert "Beta.uses_root" not in gold  # `base_pos'` is protected: it names no corpus constant


RECENCY = """\
namespace Gamma

theorem bound_one (x : Nat) : x ≤ x + 1 := sorry
theorem bound_two (x : Nat) : x ≤ x + 2 := sorry
theorem bound_three (x : Nat) : x ≤ x + 3 := sorry

theorem bound_target (x : Nat) : x ≤ x + 4 := sorry

theorem bound_later (x : Nat) : x ≤ x + 5 := sorry

end Gamma
"""


def test_the_declarations_just_above_a_query_rank_first(tmp_path: Path):
    """Equal text matches: the nearest earlier declaration of the query's module wins, and a
    later one is never offered (Lean elaborates top to bottom)."""
    from harness.library.query import LibraryIndex, QueryContext
    from harness.library.store import build_index, check_index

    write(tmp_path / "G" / "A.lean", RECENCY)
    idx = tmp_path / "i.sqlite"
    build_index(tmp_path, path=idx, corpus=True)
    ix = LibraryIndex(check_index(idx), idx)
    try:
        ctx = QueryContext(namespace="Gamma", module="G.A", line=7,
                           exclude=frozenset({"Gamma.bound_target"}))
        names = [h.name for h in ix.search("(x : Nat) : x ≤ x + 4 bound", 5, ctx=ctx)]
    finally:
        ix.close()
    assert names[:3] == ["Gamma.bound_three", "Gamma.bound_two", "Gamma.bound_one"]
    assert "Gamma.bound_later" not in names


BASE = """\
theorem obscure_qq (p : Prop) (h : p) : p := h
"""

MAIN = """\
import G.Base

theorem pad_one (x : Nat) : x ≤ x + 4 := sorry
theorem pad_two (x : Nat) : x ≤ x + 4 := sorry

/-- Main claim bound. -/
theorem main_claim (x : Nat) : x ≤ x + 4 := by
  have := obscure_qq True trivial
  exact pad_one x
"""

TEX = r"""
\begin{lemma}\label{lem:qq}\lean{obscure_qq}\leanok\end{lemma}
\begin{theorem}\label{thm:main}\lean{main_claim}\leanok\end{theorem}
\begin{proof}\uses{lem:qq}\leanok\end{proof}
"""


def test_blueprint_runs_pass_the_nodes_uses_as_search_for_does(tmp_path: Path):
    """A gold premise no query word matches is found only through the node's proof `\\uses`;
    the statement-only run (no statement `\\uses` here) equals plain `search --for`."""
    write(tmp_path / "G" / "Base.lean", BASE)
    write(tmp_path / "G" / "Main.lean", MAIN)
    src = tmp_path / "blueprint" / "src"
    src.mkdir(parents=True)
    (src / "content.tex").write_text(TEX, encoding="utf-8")
    r = recall_benchmark(tmp_path, sample=None, tex_blueprint=src)["blueprint"]
    assert (r["theorems_with_node"], r["with_statement_uses"], r["with_any_uses"]) == (1, 0, 1)
    assert r["gold_named_by_all_uses"] == 0.5 and r["gold_named_by_statement_uses"] == 0.0
    assert r["search_for"]["recall@10"] == 0.5  # pad_one, just above; obscure_qq not found
    assert r["search_for_statement_uses"] == r["search_for"] | {
        k: r["search_for_statement_uses"][k] for k in ("ms_per_query", "ms_p95")}
    assert r["search_for_all_uses"]["recall@10"] == 1.0


LATER = """\
import G.Main

/-- Main claim bound again. -/
theorem main_claim_again (x : Nat) : x ≤ x + 4 := by
  have := obscure_qq True trivial
  exact pad_one x
"""


def test_the_ranker_run_never_lets_an_importing_modules_proof_vote(tmp_path: Path):
    """`main_claim_again` (in a module importing `main_claim`'s) has the same statement and
    proof: from `main_claim`'s place it must not vote for `obscure_qq` (no query word finds
    it), while `main_claim` may vote for `main_claim_again` — as in `search --for`."""
    write(tmp_path / "G" / "Base.lean", BASE)
    write(tmp_path / "G" / "Main.lean", MAIN)
    write(tmp_path / "G" / "Later.lean", LATER)
    r = recall_benchmark(tmp_path, sample=None)
    assert r["theorems"] == 2
    assert r["search_for"]["recall@10"] == 0.75  # 1.0 from Later, 0.5 from Main
    assert r["ranker"]["recall@10"] == 0.75


def test_bench_premises_tex_blueprint_through_the_cli(tmp_path: Path):
    import json

    from tests.library.test_cli import harness

    write(tmp_path / "G" / "Base.lean", BASE)
    write(tmp_path / "G" / "Main.lean", MAIN)
    src = tmp_path / "blueprint" / "src"
    src.mkdir(parents=True)
    (src / "content.tex").write_text(TEX, encoding="utf-8")
    r = harness("bench", "premises", "--corpus", str(tmp_path), "--tex-blueprint", str(src),
                "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["blueprint"]
    assert got["theorems_with_node"] == 1 and got["search_for_all_uses"]["recall@10"] == 1.0
    r = harness("bench", "premises", "--corpus", str(tmp_path), "--tex-blueprint",
                str(tmp_path / "nope"), cwd=tmp_path)
    assert r.returncode == 2 and "nope: no such directory" in r.stderr
    assert "Traceback" not in r.stderr
