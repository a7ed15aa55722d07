"""A generated Lake workspace with `.lake/packages/*` sources and a Lean core toolchain tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TOOLCHAIN = "leanprover/lean4:v4.22.0"

CORE = """\
namespace Nat

theorem le_succ (n : Nat) : n ≤ n + 1 := sorry

protected theorem add_comm (n m : Nat) : n + m = m + n := sorry

end Nat

theorem le_refl {α : Type} [LE α] (a : α) : a ≤ a := sorry
"""

EXP = """\
import Mathlib.Init

/-!
# The real exponential
-/

open Finset

namespace Real

/-- The exponential function is monotone. -/
theorem exp_le_exp {x y : ℝ} : Real.exp x ≤ Real.exp y ↔ x ≤ y := sorry

/-- The exponential is positive. -/
theorem exp_pos (x : ℝ) : 0 < Real.exp x := sorry

private theorem exp_secret (x : ℝ) : 0 ≤ Real.exp x := sorry

end Real
"""

SUBG = """\
import Mathlib.Analysis.Exp

/-! Sub-Gaussian random variables. -/

namespace ProbabilityTheory

/-- A real random variable `X` is sub-Gaussian with parameter `c` when its moment
generating function is bounded by `exp (c * t^2 / 2)`. -/
structure HasSubgaussianMGF (X : Ω → ℝ) (c : NNReal) (μ : Measure Ω) : Prop where
  integrable_exp_mul : ∀ t, Integrable (fun ω => Real.exp (t * X ω)) μ
  mgf_le : ∀ t, mgf X μ t ≤ Real.exp (c * t ^ 2 / 2)

namespace HasSubgaussianMGF

/-- **Sub-Gaussian tail bound** (Chernoff): the probability that `X` exceeds `ε` is at most
`exp (-ε^2 / (2 c))`. -/
theorem measure_ge_le (h : HasSubgaussianMGF X c μ) (hε : 0 ≤ ε) :
    (μ {ω | ε ≤ X ω}).toReal ≤ Real.exp (-ε ^ 2 / (2 * c)) := by
  have := h.mgf_le
  exact Real.exp_le_exp.mpr (le_refl _)

end HasSubgaussianMGF

end ProbabilityTheory
"""

MONOID = """\
namespace Finset

/-- The product over the empty set is one. -/
@[to_additive (attr := simp) "The sum over the empty set is zero."]
theorem prod_empty [CommMonoid β] (f : α → β) : ∏ x ∈ ∅, f x = 1 := sorry

@[simp, to_additive sum_const_nat']
theorem prod_const_one [CommMonoid β] : ∏ _x ∈ s, (1 : β) = 1 := sorry

end Finset

theorem mul_self_pos' [Monoid M] (a : M) : a * a = a * a := rfl

attribute [to_additive] mul_self_pos'
"""

BATTERIES = """\
namespace List

/-- The length of an appended list. -/
theorem length_append' (as bs : List α) : (as ++ bs).length = as.length + bs.length := sorry

end List
"""


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def set_rev(ws: Path, name: str, rev: str) -> None:
    path = ws / "lake-manifest.json"
    data = json.loads(path.read_text())
    for p in data["packages"]:
        if p["name"] == name:
            p["rev"] = rev
    path.write_text(json.dumps(data))


def update_mathlib(ws: Path, rev: str) -> None:
    """A Mathlib update: one lemma renamed (`exp_pos'`), one new file, a new pinned rev."""
    exp = ws / ".lake/packages/mathlib/Mathlib/Analysis/Exp.lean"
    exp.write_text(exp.read_text().replace("exp_pos", "exp_pos'"))
    write(ws / ".lake/packages/mathlib/Mathlib/Analysis/New.lean",
          "/-- A brand new lemma. -/\ntheorem brand_new_lemma : True := trivial\n")
    set_rev(ws, "mathlib", rev)


@pytest.fixture
def lib_ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    write(ws / "lakefile.lean", "import Lake\nopen Lake DSL\npackage demo\n")
    write(ws / "lean-toolchain", TOOLCHAIN + "\n")
    write(ws / "lake-manifest.json", json.dumps({"version": 7, "packages": [
        {"name": "mathlib", "rev": "aaaa111", "type": "git"},
        {"name": "batteries", "rev": "bbbb222", "type": "git"}]}))
    m = ws / ".lake" / "packages" / "mathlib"
    write(m / "Mathlib" / "Analysis" / "Exp.lean", EXP)
    write(m / "Mathlib" / "Probability" / "Subgaussian.lean", SUBG)
    write(m / "Mathlib" / "Algebra" / "BigOperators.lean", MONOID)
    write(m / ".lake" / "build" / "Ignored.lean", "theorem ignored_build : True := trivial\n")
    write(ws / ".lake" / "packages" / "batteries" / "Batteries" / "List.lean", BATTERIES)
    elan = tmp_path / "elan"
    write(elan / "toolchains" / "leanprover--lean4---v4.22.0" / "src" / "lean" / "Init" /
          "Core.lean", CORE)
    monkeypatch.setenv("ELAN_HOME", str(elan))
    write(ws / "Local.lean", "namespace Local\n\ntheorem own_lemma : 1 = 1 := rfl\n\nend Local\n")
    return ws
