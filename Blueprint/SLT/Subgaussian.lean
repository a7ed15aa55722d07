import Mathlib.Probability.Moments.SubGaussian
import Mathlib.Probability.Distributions.Gaussian.Multivariate
import Mathlib.Probability.Distributions.Gaussian.Fernique
import Architect

/-!
# Scalar sub-Gaussian tools (layer A of the SLT blueprint)

Scalar facts about random variables with a sub-Gaussian moment-generating function, stated on top
of Mathlib's `ProbabilityTheory.HasSubgaussianMGF`, which bundles the integrability of every
`exp (t * X)`; no separate integrability or measurability hypotheses are needed. We write
`SG(X, c)` for `HasSubgaussianMGF X c μ` and `γ_E` for `stdGaussian E`.

## Main statements

* `subgaussian_tail_bounds`: one- and two-sided Chernoff tail bounds.
* `subgaussian_integral_eq_zero`: a sub-Gaussian variable is centred (probability measure).
* `subgaussian_mono`: the variance proxy can be enlarged.
* `subgaussian_integral_abs_le`: `E|X| ≤ √(2πc)`.
* `exp_mul_sup_le_sum_exp`: `exp (λ max xᵢ) ≤ Σ exp (λ xᵢ)`.
* `integral_sup_le_of_subgaussian`: `E maxᵢ Xᵢ ≤ √(2c log N)` (finite maximal inequality).
* `integral_sup_abs_le_of_subgaussian`: `E maxᵢ |Xᵢ| ≤ √(2c log 2N)`.
* `inner_stdGaussian_subgaussian`: `⟪a, w⟫` is `N(0, ‖a‖²)` under `γ_E`, hence `SG(⟪a, ·⟫, ‖a‖²)`.
* `integrable_exp_norm_stdGaussian`: exponential and polynomial moments of `‖w‖` under `γ_E`.

## References

* [M. J. Wainwright, *High-Dimensional Statistics*, 2019], Chapter 2.
* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], Chapter 2.
* [R. Vershynin, *High-Dimensional Probability*, 2018], Chapter 2.
-/

open MeasureTheory ProbabilityTheory
open scoped ENNReal NNReal InnerProductSpace

namespace SLT

variable {Ω : Type*} {mΩ : MeasurableSpace Ω} {μ : Measure Ω}

@[blueprint "lem:subgaussian-tail-bounds"
  (statement := /-- Let $X$ satisfy $\mathrm{SG}(X,c)$, i.e. $\mathbb E e^{tX} \le e^{ct^2/2}$ for
    all $t \in \mathbb R$ (with $e^{tX}$ integrable). Then for every $t \ge 0$, $\mu(X \ge t) \le
    e^{-t^2/(2c)}$ and $\mu(|X| \ge t) \le 2 e^{-t^2/(2c)}$. (Wainwright 2019, Prop. 2.5; Vershynin
    2018, Prop. 2.5.2.) -/)
  (proof := /-- The one-sided bound is Mathlib's Chernoff bound
    \texttt{HasSubgaussianMGF.measure\_ge\_le}. For the two-sided bound, write $\{t \le |X|\} = \{t
    \le X\} \cup \{t \le -X\}$, apply the one-sided bound to $X$ and to $-X$
    (\texttt{HasSubgaussianMGF.neg} gives $\mathrm{SG}(-X,c)$) and conclude with
    \texttt{measure\_union\_le} (for \texttt{Measure.real}, \texttt{measureReal\_union\_le}). The
    case $c = 0$ needs no separate treatment since Lean's division by zero gives $e^{0} = 1$ on the
    right-hand side and $\mu$ has mass at most one. -/)
  (title := "Sub-Gaussian tail bounds")
  (latexEnv := "lemma")]
theorem subgaussian_tail_bounds {X : Ω → ℝ} {c : ℝ≥0} (hX : HasSubgaussianMGF X c μ) {t : ℝ}
    (ht : 0 ≤ t) :
    μ.real {ω | t ≤ X ω} ≤ Real.exp (-t ^ 2 / (2 * c)) ∧
      μ.real {ω | t ≤ |X ω|} ≤ 2 * Real.exp (-t ^ 2 / (2 * c)) := by
  sorry_using []

@[blueprint "lem:subgaussian-integral-eq-zero"
  (statement := /-- If $\mu$ is a probability measure and $\mathrm{SG}(X,c)$ holds, then $\mathbb E
    X = 0$. (Wainwright 2019, §2.1.2; the remark after Vershynin 2018, Prop. 2.5.2.) -/)
  (proof := /-- Let $M(t) = \mathrm{mgf}(X)(t)$. Since $\mu$ is a probability measure, $M(0) = 1 =
    e^{c\cdot 0^2/2}$, so $g(t) = e^{ct^2/2} - M(t) \ge 0$ has a local minimum at $0$
    (\texttt{HasSubgaussianMGF.mgf\_le}). All exponential moments exist
    (\texttt{HasSubgaussianMGF.integrableExpSet\_eq\_univ}), so by \texttt{hasDerivAt\_mgf} $M'(0) =
    \mathbb E X$; the derivative of $e^{ct^2/2}$ at $0$ is $0$. Fermat's rule
    \texttt{IsLocalMin.hasDerivAt\_eq\_zero} applied to $g$ gives $0 - \mathbb E X = 0$. -/)
  (title := "Sub-Gaussian variables are centred")
  (latexEnv := "lemma")]
theorem subgaussian_integral_eq_zero [IsProbabilityMeasure μ] {X : Ω → ℝ} {c : ℝ≥0}
    (hX : HasSubgaussianMGF X c μ) :
    ∫ ω, X ω ∂μ = 0 := by
  sorry_using []

@[blueprint "lem:subgaussian-mono"
  (statement := /-- If $\mathrm{SG}(X,c)$ and $c \le c'$ then $\mathrm{SG}(X,c')$. (Monotonicity of
    the variance proxy; Wainwright 2019, Def. 2.2.) -/)
  (proof := /-- The integrability field is unchanged. For the bound, $\mathrm{mgf}(X)(t) \le
    e^{ct^2/2} \le e^{c't^2/2}$ because $ct^2 \le c't^2$ (\texttt{mul\_le\_mul\_of\_nonneg\_right}
    with $t^2 \ge 0$) and \texttt{Real.exp\_le\_exp}. Build the structure with the anonymous
    constructor of \texttt{HasSubgaussianMGF}. -/)
  (title := "Monotonicity of the variance proxy")
  (latexEnv := "lemma")]
theorem subgaussian_mono {X : Ω → ℝ} {c c' : ℝ≥0} (hX : HasSubgaussianMGF X c μ) (hc : c ≤ c') :
    HasSubgaussianMGF X c' μ := by
  sorry_using []

@[blueprint "lem:subgaussian-integral-abs-le"
  (statement := /-- If $\mu$ is a probability measure and $\mathrm{SG}(X,c)$ holds, then $\mathbb
    E|X| \le \sqrt{2\pi c}$. (Vershynin 2018, Prop. 2.5.2 (ii) with explicit constant.) -/)
  (proof := /-- Layer-cake: $\mathbb E|X| = \int_0^\infty \mu(|X| > t)\,dt$
    (\texttt{MeasureTheory.lintegral\_eq\_lintegral\_meas\_lt} for the nonnegative function $|X|$,
    then \texttt{ofReal\_integral\_eq\_lintegral\_ofReal}; $|X|$ is integrable by
    \texttt{HasSubgaussianMGF.integrable}). By \cref{lem:subgaussian-tail-bounds}, $\mu(|X| > t) \le
    2e^{-t^2/(2c)}$, and $\int_0^\infty 2 e^{-t^2/(2c)}\,dt = \sqrt{2\pi c}$
    (\texttt{integral\_gaussian} gives $\int_{\mathbb R} e^{-bt^2} = \sqrt{\pi/b}$, take half). For
    $c = 0$, $X = 0$ a.s. by \texttt{HasSubgaussianMGF.ae\_eq\_zero\_of\_hasSubgaussianMGF\_zero}
    and both sides vanish. -/)
  (title := "First absolute moment of a sub-Gaussian variable")
  (latexEnv := "lemma")]
theorem subgaussian_integral_abs_le [IsProbabilityMeasure μ] {X : Ω → ℝ} {c : ℝ≥0}
    (hX : HasSubgaussianMGF X c μ) :
    ∫ ω, |X ω| ∂μ ≤ Real.sqrt (2 * Real.pi * c) := by
  sorry_using [subgaussian_tail_bounds]

@[blueprint "lem:exp-mul-sup-le-sum-exp"
  (statement := /-- For a finite nonempty index set $s$, reals $(x_i)_{i\in s}$ and any $\lambda \in
    \mathbb R$: $e^{\lambda \max_{i\in s} x_i} \le \sum_{i\in s} e^{\lambda x_i}$. (The first step
    of the maximal inequality, Wainwright 2019, Exercise 2.12.) -/)
  (proof := /-- By \texttt{Finset.exists\_mem\_eq\_sup'} there is $j \in s$ with $\max_{i\in s} x_i
    = x_j$. Then $e^{\lambda x_j}$ is one summand of a sum of nonnegative terms:
    \texttt{Finset.single\_le\_sum} with \texttt{Real.exp\_nonneg}. -/)
  (title := "Exponential of a maximum")
  (latexEnv := "lemma")]
theorem exp_mul_sup_le_sum_exp {ι : Type*} (s : Finset ι) (hs : s.Nonempty) (x : ι → ℝ) (l : ℝ) :
    Real.exp (l * s.sup' hs x) ≤ ∑ i ∈ s, Real.exp (l * x i) := by
  sorry_using []

@[blueprint "lem:integral-sup-le-of-subgaussian"
  (statement := /-- Let $\mu$ be a probability measure, $s$ a finite nonempty index set with $N =
    |s|$, and $\mathrm{SG}(X_i, c)$ for every $i \in s$ (no independence assumed). Then $\mathbb E
    \max_{i\in s} X_i \le \sqrt{2c\log N}$. (Wainwright 2019, Exercise 2.12;
    Boucheron–Lugosi–Massart 2013, Thm. 2.5.) -/)
  (proof := /-- The maximum is integrable since it is bounded by $\sum_i |X_i|$ and each $X_i$ is
    integrable (\texttt{HasSubgaussianMGF.integrable}). If $N = 1$ the maximum is $X_j$, whose mean
    is $0$ by \cref{lem:subgaussian-integral-eq-zero}, and $\log 1 = 0$. If $c = 0$, every $X_i = 0$
    a.s. (\texttt{HasSubgaussianMGF.ae\_eq\_zero\_of\_hasSubgaussianMGF\_zero}), so both sides are
    $0$. Otherwise $N \ge 2$, $c > 0$; fix $\lambda > 0$. By Jensen
    (\texttt{ConvexOn.map\_integral\_le} with \texttt{convexOn\_exp}), $e^{\lambda \mathbb E \max
    X_i} \le \mathbb E e^{\lambda\max X_i}$; by \cref{lem:exp-mul-sup-le-sum-exp} and
    \texttt{integral\_finsetSum} this is at most $\sum_i \mathrm{mgf}(X_i)(\lambda) \le N
    e^{c\lambda^2/2}$. Taking logarithms (\texttt{Real.log\_le\_log}, \texttt{Real.log\_exp}),
    $\mathbb E\max X_i \le \log N/\lambda + c\lambda/2$; choose $\lambda = \sqrt{2\log N/c}$. -/)
  (title := "Maximal inequality for finitely many sub-Gaussian variables")
  (latexEnv := "lemma")]
theorem integral_sup_le_of_subgaussian [IsProbabilityMeasure μ] {ι : Type*} {X : ι → Ω → ℝ}
    {c : ℝ≥0} (s : Finset ι) (hs : s.Nonempty) (hX : ∀ i ∈ s, HasSubgaussianMGF (X i) c μ) :
    ∫ ω, s.sup' hs (fun i ↦ X i ω) ∂μ ≤ Real.sqrt (2 * c * Real.log (s.card : ℝ)) := by
  sorry_using [subgaussian_integral_eq_zero, exp_mul_sup_le_sum_exp]

@[blueprint "lem:integral-sup-abs-le-of-subgaussian"
  (statement := /-- Under the hypotheses of \cref{lem:integral-sup-le-of-subgaussian}, $\mathbb E
    \max_{i\in s} |X_i| \le \sqrt{2c\log (2N)}$. (Wainwright 2019, Exercise 2.12 (b).) -/)
  (proof := /-- Index the family $\pm X_i$ by $s \times \{\mathrm{true},\mathrm{false}\}$
    (\texttt{Finset.product} with \texttt{Finset.univ : Finset Bool}); it has $2N$ elements
    (\texttt{Finset.card\_product}) and each member is $\mathrm{SG}(\cdot,c)$ by
    \texttt{HasSubgaussianMGF.neg}. Since $|a| = \max(a,-a)$, the maximum of $|X_i|$ over $s$ equals
    the maximum over the doubled family (\texttt{le\_antisymm} with \texttt{Finset.sup'\_le} and
    \texttt{Finset.le\_sup'}). Apply \cref{lem:integral-sup-le-of-subgaussian} to the doubled
    family. -/)
  (title := "Maximal inequality for absolute values")
  (latexEnv := "lemma")]
theorem integral_sup_abs_le_of_subgaussian [IsProbabilityMeasure μ] {ι : Type*}
    {X : ι → Ω → ℝ} {c : ℝ≥0} (s : Finset ι) (hs : s.Nonempty)
    (hX : ∀ i ∈ s, HasSubgaussianMGF (X i) c μ) :
    ∫ ω, s.sup' hs (fun i ↦ |X i ω|) ∂μ ≤ Real.sqrt (2 * c * Real.log (2 * s.card : ℝ)) := by
  sorry_using [integral_sup_le_of_subgaussian]

@[blueprint "lem:inner-stdGaussian-subgaussian"
  (statement := /-- Let $E$ be a finite-dimensional real inner product space, $\gamma_E$ its
    standard Gaussian measure and $a \in E$. Under $\gamma_E$ the linear form $w \mapsto \langle a,
    w\rangle$ has law $N(0, \|a\|^2)$; consequently $\mathrm{SG}(\langle a,\cdot\rangle, \|a\|^2)$
    holds exactly. (Vershynin 2018, Prop. 3.3.3 / rotation invariance; Wainwright 2019, Example
    2.1.) -/)
  (proof := /-- $\gamma_E$ is Gaussian (\texttt{isGaussian\_stdGaussian}), so the image of
    $\gamma_E$ under the continuous linear form $L = \texttt{innerSL}\ \mathbb R\ a$ is the real
    Gaussian with mean $\gamma_E[L]$ and variance $\mathrm{Var}[L;\gamma_E]$ (the
    \texttt{IsGaussian} map lemma for continuous linear forms,
    \texttt{IsGaussian.map\_eq\_gaussianReal}). The mean is $0$ by
    \texttt{integral\_strongDual\_stdGaussian}, the variance is $\|L\|^2$ by
    \texttt{variance\_dual\_stdGaussian}, and $\|L\| = \|a\|$ (\texttt{innerSL\_apply\_norm}). For
    the sub-Gaussian part use \texttt{HasSubgaussianMGF.id\_map\_iff} to reduce to the identity
    under $N(0,\|a\|^2)$, whose mgf is $e^{\|a\|^2 t^2/2}$ (\texttt{mgf\_id\_gaussianReal}), and
    whose exponentials are integrable (\texttt{integrable\_exp\_mul\_gaussianReal}). -/)
  (title := "Gaussian linear forms are sub-Gaussian")
  (latexEnv := "lemma")]
theorem inner_stdGaussian_subgaussian {E : Type*} [NormedAddCommGroup E] [InnerProductSpace ℝ E]
    [FiniteDimensional ℝ E] [MeasurableSpace E] [BorelSpace E] (a : E) :
    (stdGaussian E).map (fun w ↦ ⟪a, w⟫_ℝ) = gaussianReal 0 (‖a‖₊ ^ 2) ∧
      HasSubgaussianMGF (fun w ↦ ⟪a, w⟫_ℝ) (‖a‖₊ ^ 2) (stdGaussian E) := by
  sorry_using []

@[blueprint "lem:integrable-exp-norm-stdGaussian"
  (statement := /-- Let $E$ be a finite-dimensional real inner product space. For every $C \in
    \mathbb R$, $w \mapsto e^{C\|w\|}$ is $\gamma_E$-integrable, and so is $w \mapsto \|w\|^p$ for
    every $p \in \mathbb N$. (Fernique's theorem in the finite-dimensional case; Vershynin 2018,
    §3.1.) -/)
  (proof := /-- By Fernique's theorem for the Gaussian measure $\gamma_E$
    (\texttt{IsGaussian.exists\_integrable\_exp\_sq}) there is $a > 0$ with $e^{a\|w\|^2}$
    integrable. Since $C\|w\| \le a\|w\|^2 + C^2/(4a)$ (AM-GM, \texttt{nlinarith}), $e^{C\|w\|} \le
    e^{C^2/(4a)} e^{a\|w\|^2}$ and \texttt{Integrable.mono'} applies (measurability from
    continuity). For the moments, \texttt{IsGaussian.memLp\_id} (Fernique.lean; needs
    \texttt{SecondCountableTopology}, true in finite dimension) gives $\mathrm{id} \in L^p$ for
    every finite $p$, hence $\|w\|^p$ is integrable (\texttt{MemLp.integrable\_norm\_pow}). -/)
  (title := "Exponential moments of the Gaussian norm")
  (latexEnv := "lemma")]
theorem integrable_exp_norm_stdGaussian {E : Type*} [NormedAddCommGroup E]
    [InnerProductSpace ℝ E] [FiniteDimensional ℝ E] [MeasurableSpace E] [BorelSpace E] (C : ℝ) :
    Integrable (fun w ↦ Real.exp (C * ‖w‖)) (stdGaussian E) ∧
      ∀ p : ℕ, Integrable (fun w ↦ ‖w‖ ^ p) (stdGaussian E) := by
  sorry_using []

end SLT
