import Blueprint.SLT.GaussianConcentration
import Mathlib.Analysis.SpecialFunctions.Log.NegMulLog
import Mathlib.Analysis.Convex.Jensen
import Mathlib.MeasureTheory.Constructions.Pi
import Mathlib.Probability.ProbabilityMassFunction.Uniform
import Architect

/-!
# The entropy method (layer E of the SLT blueprint)

The variance and entropy inequalities of Boucheron–Lugosi–Massart (BLM 2013), ch. 3–6, on
product probability spaces given as `Measure.pi` of a family of probability measures: the
Efron–Stein inequality, Han's inequality for finite distributions, the duality formula and the
sub-additivity (tensorization) of entropy, the Bernoulli and Gaussian logarithmic Sobolev
inequalities, and Herbst's argument. Together they give Gaussian concentration of Lipschitz
functions by BLM's own route (log-Sobolev + Herbst), beside the interpolation route of
`Blueprint/SLT/GaussianConcentration.lean`.

`ent μ f = E[f log f] - E f · log E f` is stated for real functions; every statement that uses it
has the hypotheses (`0 ≤ f`, integrability of `f` and of `f log f`, or a growth bound implying
them) under which it is BLM's `Ent(f)`, so no statement relies on the value of an integral of a
non-integrable function.

Theorem numbers are those of the 2013 edition of BLM as we recall them; `docs/slt.md` lists which
were not checked against the book.

## Main definitions

* `ent`: the entropy `Ent_μ(f)` of a function.
* `shannonEntropy`, `marginalExcept`: Shannon entropy of a finite distribution and its marginal
  without one coordinate (for Han's inequality).

## Main statements

* `efron_stein` (BLM 2013, Thm. 3.1), `han_inequality` (BLM 2013, Thm. 4.1).
* `ent_nonneg`, `ent_duality` (BLM 2013, the duality formula of §4.9), `ent_subadditive`
  (BLM 2013, Thm. 4.10).
* `two_point_log_sobolev`, `bernoulli_log_sobolev` (BLM 2013, Thm. 5.1).
* `gaussian_log_sobolev_one_dim`, `gaussian_log_sobolev` (BLM 2013, Thm. 5.4).
* `herbst_argument` (BLM 2013, §6.1), `gaussian_concentration_of_contDiff_lsi` (BLM 2013,
  Thm. 5.6, by BLM's route).

## References

* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], ch. 3–6.
* [L. Gross, *Logarithmic Sobolev inequalities*, Amer. J. Math. 97, 1975] (the two-point space).
* [T. S. Han, *Nonnegative entropy measures of multivariate symmetric correlations*, 1978].
-/

open MeasureTheory ProbabilityTheory
open scoped ENNReal NNReal

namespace SLT

@[blueprint "def:ent"
  (statement := /-- The entropy of a real function $f$ under a measure $\mu$ is $\mathrm{Ent}_\mu(f)
    = \mathbb E_\mu[f\log f] - \mathbb E_\mu f\,\log\mathbb E_\mu f$. For a probability measure,
    $f \ge 0$ and $f$, $f\log f$ integrable this is BLM's $\mathrm{Ent}(f) = \mathbb E\Phi(f) -
    \Phi(\mathbb E f)$ with $\Phi(x) = x\log x$; every statement using it assumes as much. (BLM
    2013, ch. 4.) -/)
  (title := "Entropy of a function")
  (latexEnv := "definition")]
noncomputable def ent {Ω : Type*} [MeasurableSpace Ω] (μ : Measure Ω) (f : Ω → ℝ) : ℝ :=
  ∫ x, f x * Real.log (f x) ∂μ - (∫ x, f x ∂μ) * Real.log (∫ x, f x ∂μ)

@[blueprint "lem:ent-nonneg"
  (statement := /-- For a probability measure $\mu$ and $f \ge 0$ with $f$ and $f\log f$
    integrable, $\mathrm{Ent}_\mu(f) \ge 0$. (Jensen's inequality for $x\log x$; BLM 2013, ch. 4.)
    -/)
  (proof := /-- $\Phi(x) = x\log x$ is convex on $[0,\infty)$ (\texttt{Real.convexOn\_mul\_log}),
    $f$ takes values in $[0,\infty)$ (closed, \texttt{isClosed\_Ici}), so Jensen's inequality
    \texttt{ConvexOn.map\_integral\_le} gives $\Phi(\mathbb E f) \le \mathbb E\Phi(f)$, which is
    the claim after \texttt{sub\_nonneg}. -/)
  (title := "Entropy is nonnegative")
  (latexEnv := "lemma")]
theorem ent_nonneg {Ω : Type*} [MeasurableSpace Ω] {μ : Measure Ω} [IsProbabilityMeasure μ]
    {f : Ω → ℝ} (hf0 : ∀ x, 0 ≤ f x) (hf : Integrable f μ)
    (hflog : Integrable (fun x ↦ f x * Real.log (f x)) μ) :
    0 ≤ ent μ f := by
  sorry_using []

@[blueprint "thm:efron-stein"
  (statement := /-- \textbf{Efron–Stein inequality.} Let $\mu_1, \dots, \mu_n$ be probability
    measures, $\mu = \bigotimes_i \mu_i$ and $f \in L^2(\mu)$. With $\mathbb E^{(i)} f(x) = \int
    f(x_1, \dots, x_{i-1}, y, x_{i+1}, \dots, x_n)\,d\mu_i(y)$ (integrating out the $i$-th
    coordinate), $\mathrm{Var}_\mu(f) \le \sum_{i=1}^n \mathbb E_\mu\big[(f - \mathbb
    E^{(i)}f)^2\big]$. (BLM 2013, Thm. 3.1.) -/)
  (proof := /-- Let $\mathbb E_i$ integrate out the coordinates $i+1, \dots, n$ (so $\mathbb E_0 f
    = \mathbb E f$, $\mathbb E_n f = f$) and $\Delta_i = \mathbb E_i f - \mathbb E_{i-1} f$. Then
    $f - \mathbb E f = \sum_i \Delta_i$, and for $i < j$, $\mathbb E[\Delta_i\Delta_j] = 0$ since
    integrating out coordinate $j$ kills $\Delta_j$ while $\Delta_i$ does not depend on it (Fubini
    on the product, \texttt{MeasureTheory.integral\_prod},
    \texttt{MeasureTheory.measurePreserving\_piFinSuccAbove} to split off one coordinate). So
    $\mathrm{Var}(f) = \sum_i\mathbb E\Delta_i^2$ (\texttt{ProbabilityTheory.variance\_def'},
    \texttt{Finset.sum\_mul\_sum}). Next $\Delta_i = \mathbb E_i[f - \mathbb E^{(i)}f]$, because
    $\mathbb E_i\mathbb E^{(i)} f = \mathbb E_{i-1} f$ (integrating out coordinate $i$ then the
    later ones, in either order: Fubini). By Jensen for the square
    (\texttt{ConvexOn.map\_integral\_le} with \texttt{convexOn\_pow}, applied to the integral over
    the later coordinates), $\Delta_i^2 \le \mathbb E_i[(f - \mathbb E^{(i)}f)^2]$; integrate and
    sum. All functions are in $L^2$ by Fubini and \texttt{MemLp} of $f$
    (\texttt{MemLp.integrable\_sq}). -/)
  (title := "Efron–Stein inequality")
  (latexEnv := "theorem")]
theorem efron_stein {n : ℕ} {X : Fin n → Type*} [∀ i, MeasurableSpace (X i)]
    (μ : ∀ i, Measure (X i)) [∀ i, IsProbabilityMeasure (μ i)] {f : (∀ i, X i) → ℝ}
    (hf : MemLp f 2 (Measure.pi μ)) :
    variance f (Measure.pi μ) ≤
      ∑ i, ∫ x, (f x - ∫ y, f (Function.update x i y) ∂(μ i)) ^ 2 ∂(Measure.pi μ) := by
  sorry_using []

@[blueprint "def:shannonEntropy"
  (statement := /-- The Shannon entropy of a function $p$ on a finite type is $H(p) = -\sum_b p(b)
    \log p(b)$ (Mathlib's \texttt{Real.negMulLog}); it is the entropy of a distribution when $p \ge
    0$ and $\sum_b p(b) = 1$. (BLM 2013, §4.1.) -/)
  (title := "Shannon entropy of a finite distribution")
  (latexEnv := "definition")]
noncomputable def shannonEntropy {β : Type*} [Fintype β] (p : β → ℝ) : ℝ :=
  ∑ b, Real.negMulLog (p b)

@[blueprint "def:marginalExcept"
  (statement := /-- For $p$ on $\alpha^n$ ($\alpha$ finite) and a coordinate $i$, the marginal
    without $i$ is $p^{(i)}(y) = \sum_{x : x_{-i} = y} p(x)$ for $y$ a function on the other
    coordinates: the law of $X^{(i)} = (X_1, \dots, X_{i-1}, X_{i+1}, \dots, X_n)$ when $X \sim p$.
    (BLM 2013, §4.1.) -/)
  (title := "Marginal without one coordinate")
  (latexEnv := "definition")]
noncomputable def marginalExcept {n : ℕ} {α : Type*} [Fintype α] [DecidableEq α]
    (p : (Fin n → α) → ℝ) (i : Fin n) : ({j : Fin n // j ≠ i} → α) → ℝ :=
  fun y ↦ ∑ x ∈ Finset.univ.filter (fun x : Fin n → α ↦ (fun j : {j : Fin n // j ≠ i} ↦ x j) = y),
    p x

@[blueprint "thm:han-inequality"
  (statement := /-- \textbf{Han's inequality.} For a probability distribution $p$ on $\alpha^n$
    ($\alpha$ finite), $(n - 1)H(p) \le \sum_{i=1}^n H(p^{(i)})$, with $p^{(i)}$ the marginal
    without coordinate $i$ (\cref{def:marginalExcept}). (BLM 2013, Thm. 4.1; Han 1978.) -/)
  (proof := /-- Write $X \sim p$ and use conditional entropies as finite sums: $H(X_i \mid Y) =
    \sum_y P(Y = y)\, H(X_i \mid Y = y)$. The chain rule $H(X) = \sum_i H(X_i \mid X_1, \dots,
    X_{i-1})$ and $H(X) = H(X^{(i)}) + H(X_i \mid X^{(i)})$ are rearrangements of finite sums
    (\texttt{Finset.sum\_fiberwise}, \texttt{Real.negMulLog\_mul}, \texttt{Finset.sum\_comm}).
    Conditioning on more variables does not increase entropy: $H(X_i \mid X^{(i)}) \le H(X_i \mid
    X_1,\dots,X_{i-1})$, by concavity of \texttt{Real.negMulLog}
    (\texttt{Real.concaveOn\_negMulLog}) and Jensen for finite sums
    (\texttt{ConcaveOn.le\_map\_sum}) on each fibre. Summing $H(X^{(i)}) = H(X) - H(X_i\mid
    X^{(i)}) \ge H(X) - H(X_i \mid X_{<i})$ over $i$ gives $\sum_i H(X^{(i)}) \ge nH(X) - H(X) =
    (n-1)H(X)$. -/)
  (title := "Han's inequality")
  (latexEnv := "theorem")]
theorem han_inequality {n : ℕ} {α : Type*} [Fintype α] [DecidableEq α]
    (p : (Fin n → α) → ℝ) (hp : ∀ x, 0 ≤ p x) (hsum : ∑ x, p x = 1) :
    ((n : ℝ) - 1) * shannonEntropy p ≤ ∑ i, shannonEntropy (marginalExcept p i) := by
  sorry_using []

@[blueprint "thm:ent-duality"
  (statement := /-- \textbf{Duality formula for entropy} (the inequality half). Let $\mu$ be a
    probability measure, $f \ge 0$ with $f$, $f\log f$ integrable, and $g$ with $e^g$ and $fg$
    integrable. Then $\mathbb E[fg] - \mathbb E f\,\log\mathbb E e^g \le \mathrm{Ent}_\mu(f)$, with
    equality for $g = \log f$ when $f > 0$. (BLM 2013, the duality formula of entropy, §4.9.) -/)
  (proof := /-- If $\mathbb E f = 0$ then $f = 0$ a.e.
    (\texttt{MeasureTheory.integral\_eq\_zero\_iff\_of\_nonneg}) and both sides are $0$. Otherwise
    put $a = f/\mathbb E f$ and $b = e^g/\mathbb
    E e^g$ ($\mathbb E e^g > 0$, \texttt{MeasureTheory.integral\_exp\_pos}); both integrate to
    $1$. Pointwise $a\log a - a\log b \ge a - b$ for $a \ge 0$, $b > 0$ (from
    \texttt{Real.log\_le\_sub\_one\_of\_pos} applied to $b/a$, and the case $a = 0$). Integrate
    (\texttt{MeasureTheory.integral\_mono}, \texttt{MeasureTheory.integral\_sub}): $\mathbb
    E[a\log a] - \mathbb E[a\log b] \ge 0$. Multiply by $\mathbb E f$ and expand $\log a = \log f -
    \log\mathbb E f$, $\log b = g - \log\mathbb E e^g$ (\texttt{Real.log\_div},
    \texttt{Real.log\_exp}) to get the claim. -/)
  (title := "Duality formula for entropy")
  (latexEnv := "theorem")]
theorem ent_duality {Ω : Type*} [MeasurableSpace Ω] {μ : Measure Ω} [IsProbabilityMeasure μ]
    {f g : Ω → ℝ} (hf0 : ∀ x, 0 ≤ f x) (hf : Integrable f μ)
    (hflog : Integrable (fun x ↦ f x * Real.log (f x)) μ)
    (hg : Integrable (fun x ↦ Real.exp (g x)) μ) (hfg : Integrable (fun x ↦ f x * g x) μ) :
    ∫ x, f x * g x ∂μ - (∫ x, f x ∂μ) * Real.log (∫ x, Real.exp (g x) ∂μ) ≤ ent μ f := by
  sorry_using [ent_nonneg]

@[blueprint "thm:ent-subadditive"
  (statement := /-- \textbf{Sub-additivity (tensorization) of entropy.} Let $\mu = \bigotimes_i
    \mu_i$ be a product of probability measures and $f \ge 0$ with $f$ and $f\log f$ integrable.
    Then $\mathrm{Ent}_\mu(f) \le \sum_{i=1}^n \mathbb E_\mu\big[\mathrm{Ent}^{(i)}(f)\big]$, where
    $\mathrm{Ent}^{(i)}(f)(x)$ is the entropy under $\mu_i$ of $y \mapsto f(x_1, \dots, y, \dots,
    x_n)$. (BLM 2013, Thm. 4.10.) -/)
  (proof := /-- Let $\mathbb E_i$ integrate out the coordinates after $i$ and $f_i = \mathbb E_i f$
    ($f_n = f$, $f_0 = \mathbb E f$). Where $\mathbb E f > 0$ (else $f = 0$ a.e. and both sides
    vanish), $\log f - \log\mathbb E f = \sum_i g_i$ with $g_i = \log f_i - \log f_{i-1}$, so
    $\mathrm{Ent}(f) = \sum_i \mathbb E[f g_i]$ (\texttt{Finset.sum\_range\_sub},
    \texttt{MeasureTheory.integral\_finsetSum}). For fixed coordinates other than $i$, $\mathbb
    E^{(i)}e^{g_i} = \mathbb E^{(i)}[f_i]/f_{i-1} = 1$ (Fubini: $\mathbb E^{(i)} f_i =
    f_{i-1}$), so \cref{thm:ent-duality} under $\mu_i$ gives $\mathbb E^{(i)}[f g_i] \le
    \mathrm{Ent}^{(i)}(f)$. Integrate over the other coordinates
    (\texttt{MeasureTheory.measurePreserving\_piFinSuccAbove},
    \texttt{MeasureTheory.integral\_prod}) and sum over $i$. -/)
  (title := "Sub-additivity of entropy")
  (latexEnv := "theorem")]
theorem ent_subadditive {n : ℕ} {X : Fin n → Type*} [∀ i, MeasurableSpace (X i)]
    (μ : ∀ i, Measure (X i)) [∀ i, IsProbabilityMeasure (μ i)] {f : (∀ i, X i) → ℝ}
    (hf0 : ∀ x, 0 ≤ f x) (hf : Integrable f (Measure.pi μ))
    (hflog : Integrable (fun x ↦ f x * Real.log (f x)) (Measure.pi μ)) :
    ent (Measure.pi μ) f ≤
      ∑ i, ∫ x, ent (μ i) (fun y ↦ f (Function.update x i y)) ∂(Measure.pi μ) := by
  sorry_using [ent_duality]

@[blueprint "lem:two-point-log-sobolev"
  (statement := /-- \textbf{Two-point log-Sobolev inequality.} For real $a, b$: $\frac12(a^2\log a^2
    + b^2\log b^2) - \frac{a^2 + b^2}2\log\frac{a^2+b^2}2 \le \frac12(a - b)^2$. (Gross 1975; BLM
    2013, proof of Thm. 5.1.) -/)
  (proof := /-- Both sides are unchanged by $(a,b) \mapsto (b,a)$, and replacing $(a, b)$ by $(|a|,
    |b|)$ keeps the left side and does not increase the right, so assume $a \ge b \ge 0$. Fix $b$
    and let $h(a)$ be the right side minus the left for $a \ge b$. Then $h(b) = 0$, $h'(b) = 0$ and
    $h''(a) \ge 0$ for $a \ge b$ (derivatives from \texttt{Real.hasDerivAt\_mul\_log} and the chain
    rule; the sign of $h''$ reduces to $\log(1 + u) \le u$,
    \texttt{Real.log\_le\_sub\_one\_of\_pos}), so $h \ge 0$ (\texttt{monotoneOn\_of\_deriv\_nonneg}
    twice, or \texttt{ConvexOn} with a
    minimum at $b$). The case $b = 0$ uses $0 \log 0 = 0$ (\texttt{Real.log\_zero},
    \texttt{mul\_zero}). -/)
  (title := "Two-point log-Sobolev inequality")
  (latexEnv := "lemma")]
theorem two_point_log_sobolev (a b : ℝ) :
    (a ^ 2 * Real.log (a ^ 2) + b ^ 2 * Real.log (b ^ 2)) / 2 -
        (a ^ 2 + b ^ 2) / 2 * Real.log ((a ^ 2 + b ^ 2) / 2) ≤ (a - b) ^ 2 / 2 := by
  sorry_using []

@[blueprint "thm:bernoulli-log-sobolev"
  (statement := /-- \textbf{Bernoulli log-Sobolev inequality.} Let $\mu$ be the uniform
    distribution on $\{0,1\}^n$ and $f : \{0,1\}^n \to \mathbb R$. With $\bar x^{(i)}$ the point
    $x$ with coordinate $i$ flipped, $\mathrm{Ent}_\mu(f^2) \le \frac12\sum_{i=1}^n \mathbb
    E_\mu\big[(f(x) - f(\bar x^{(i)}))^2\big]$. (BLM 2013, Thm. 5.1: $\mathrm{Ent}(f^2) \le
    2\mathcal E(f)$ with $\mathcal E(f) = \frac14\mathbb E\sum_i(f(X) - f(\bar X^{(i)}))^2$.) -/)
  (proof := /-- The uniform distribution on \texttt{Fin n → Bool} is the product of the uniform
    distributions on \texttt{Bool} (\texttt{MeasureTheory.Measure.pi\_eq} on boxes, or by counting:
    both give mass $2^{-n}$ to each point). All functions are integrable (finite space). By
    \cref{thm:ent-subadditive} applied to $f^2 \ge 0$, $\mathrm{Ent}(f^2) \le \sum_i \mathbb
    E[\mathrm{Ent}^{(i)}(f^2)]$. For fixed $x$, the entropy under the uniform law on \texttt{Bool}
    of $y \mapsto f(x[i := y])^2$ is the left side of \cref{lem:two-point-log-sobolev} with $a =
    f(x[i:=\mathrm{true}])$, $b = f(x[i:=\mathrm{false}])$, hence at most $\frac12(a-b)^2 =
    \frac12(f(x) - f(\bar x^{(i)}))^2$ (\texttt{Function.update\_eq\_self}, the two cases of
    $x_i$). Integrate over $x$ and sum. -/)
  (title := "Bernoulli log-Sobolev inequality")
  (latexEnv := "theorem")]
theorem bernoulli_log_sobolev {n : ℕ} (f : (Fin n → Bool) → ℝ) :
    ent (PMF.uniformOfFintype (Fin n → Bool)).toMeasure (fun x ↦ f x ^ 2) ≤
      (1 / 2) * ∑ i, ∫ x, (f x - f (Function.update x i (!x i))) ^ 2
        ∂(PMF.uniformOfFintype (Fin n → Bool)).toMeasure := by
  sorry_using [ent_subadditive, two_point_log_sobolev]

@[blueprint "thm:gaussian-log-sobolev-one-dim"
  (statement := /-- \textbf{Gaussian log-Sobolev inequality, one dimension.} Let $f \in C^1(\mathbb
    R)$ with $|f(x)| + |f'(x)| \le Ce^{C|x|}$. Under the standard normal law $\gamma_1$,
    $\mathrm{Ent}_{\gamma_1}(f^2) \le 2\,\mathbb E_{\gamma_1} f'^2$. The growth condition is ours
    (it makes every integral finite); BLM state the inequality for all continuously differentiable
    $f$. (BLM 2013, Thm. 5.4 for $n = 1$.) -/)
  (proof := /-- BLM's proof. First let $f$ be $C^2$ with compact support. For $k$ independent
    uniform signs $\varepsilon_j \in \{-1, 1\}$ put $S_k = k^{-1/2}\sum_j\varepsilon_j$ and apply
    \cref{thm:bernoulli-log-sobolev} to $x \mapsto f(S_k(x))$: flipping coordinate $j$ moves $S_k$
    by $2k^{-1/2}$, so by Taylor's theorem with the bounded $f''$ the right side is $\frac12\sum_j
    \mathbb E[(2k^{-1/2}f'(S_k) + O(k^{-1}))^2] = 2\mathbb E f'(S_k)^2 + O(k^{-1/2})$. Let $k \to
    \infty$: $S_k$ converges in law to $\gamma_1$ (the central limit theorem; or directly by
    characteristic functions, \texttt{ProbabilityTheory.charFun}, with
    \texttt{charFun\_stdGaussian}), and both sides are integrals of bounded continuous functions
    of $S_k$, so they converge. For general $f$ of the growth class, approximate by $f\chi_R$ with
    smooth cutoffs $\chi_R$ and mollify (as in \cref{lem:exists-contDiff-lipschitz-approx}); pass to
    the limit by dominated convergence
    (\texttt{MeasureTheory.tendsto\_integral\_of\_dominated\_convergence}) with the dominating
    function $C'e^{C'|x|}$, integrable by \cref{lem:integrable-exp-norm-stdGaussian}. -/)
  (title := "Gaussian log-Sobolev inequality in one dimension")
  (latexEnv := "theorem")]
theorem gaussian_log_sobolev_one_dim {f : ℝ → ℝ} (hf : ContDiff ℝ 1 f) {C : ℝ}
    (hfC : ∀ x, |f x| + |deriv f x| ≤ C * Real.exp (C * |x|)) :
    ent (gaussianReal 0 1) (fun x ↦ f x ^ 2) ≤ 2 * ∫ x, deriv f x ^ 2 ∂(gaussianReal 0 1) := by
  sorry_using [bernoulli_log_sobolev, exists_contDiff_lipschitz_approx,
    integrable_exp_norm_stdGaussian]

@[blueprint "thm:gaussian-log-sobolev"
  (statement := /-- \textbf{Gaussian log-Sobolev inequality.} Let $f \in C^1(\mathbb R^n)$ with
    $|f| + \|Df\| \le Ce^{C\|x\|}$. Then $\mathrm{Ent}_{\gamma_n}(f^2) \le 2\,\mathbb
    E_{\gamma_n}\|\nabla f\|^2$. (BLM 2013, Thm. 5.4, under our growth condition.) -/)
  (proof := /-- Transport $\gamma_n$ to the product of $n$ standard normals on \texttt{Fin n → ℝ}
    (\texttt{pi\_eq\_stdGaussian}, \texttt{EuclideanSpace.equiv}, a measure-preserving linear
    isometry; \texttt{MeasureTheory.integral\_map}). Apply \cref{thm:ent-subadditive} to $f^2$
    (integrable with $f^2\log f^2$ by the growth bound and
    \cref{lem:integrable-exp-norm-stdGaussian}). For fixed other coordinates, $y \mapsto f(x[i :=
    y])$ is $C^1$ on $\mathbb R$ with derivative $\partial_i f(x[i:=y])$ and satisfies a growth
    bound of the same kind, so \cref{thm:gaussian-log-sobolev-one-dim} bounds
    $\mathrm{Ent}^{(i)}(f^2)$ by $2\mathbb E^{(i)}(\partial_i f)^2$. Summing over $i$, $\sum_i
    (\partial_i f)^2 = \|\nabla f\|^2$ (\texttt{EuclideanSpace.norm\_eq}, \texttt{gradient} and
    \texttt{InnerProductSpace.toDual\_symm\_apply}). -/)
  (title := "Gaussian log-Sobolev inequality")
  (latexEnv := "theorem")]
theorem gaussian_log_sobolev {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} (hf : ContDiff ℝ 1 f)
    {C : ℝ} (hfC : ∀ x, |f x| + ‖fderiv ℝ f x‖ ≤ C * Real.exp (C * ‖x‖)) :
    ent (stdGaussian (EuclideanSpace ℝ (Fin n))) (fun x ↦ f x ^ 2) ≤
      2 * ∫ x, ‖gradient f x‖ ^ 2 ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [ent_subadditive, gaussian_log_sobolev_one_dim, integrable_exp_norm_stdGaussian]

@[blueprint "thm:herbst-argument"
  (statement := /-- \textbf{Herbst's argument.} Let $\mu$ be a probability measure, $Z$ with
    $e^{tZ}$ integrable for every real $t$, and $v \ge 0$ such that $\mathrm{Ent}(e^{\lambda Z}) \le
    \frac{\lambda^2 v}2\mathbb E e^{\lambda Z}$ for all $\lambda \ge 0$. Then $\mathbb
    E e^{\lambda(Z - \mathbb EZ)} \le e^{\lambda^2 v/2}$ for all $\lambda \ge 0$. (BLM 2013, §6.1,
    Herbst's argument.) -/)
  (proof := /-- $Z$ and $Ze^{\lambda Z}$ are integrable ($|z| \le e^z + e^{-z}$ and $|z|e^{\lambda
    z} \le e^{(\lambda+1)z} + e^{(\lambda-1)z}$). Let $F(\lambda) = \mathbb E e^{\lambda Z} > 0$;
    by \texttt{ProbabilityTheory.hasDerivAt\_mgf} (all of $\mathbb R$ in
    \texttt{ProbabilityTheory.integrableExpSet}), $F'(\lambda) = \mathbb E[Ze^{\lambda Z}]$, so
    $\mathrm{Ent}(e^{\lambda Z}) = \lambda F'(\lambda) - F(\lambda)\log F(\lambda)$
    (\cref{def:ent}, \texttt{Real.log\_exp}). For $\lambda > 0$ let $G(\lambda) = \lambda^{-1}\log
    F(\lambda)$: $G'(\lambda) = \mathrm{Ent}(e^{\lambda Z})/(\lambda^2F(\lambda)) \le v/2$
    (\texttt{HasDerivAt.log}, \texttt{HasDerivAt.div}). As $\lambda \to 0^+$, $G(\lambda) \to
    F'(0) = \mathbb EZ$ (the derivative of $\log F$ at $0$, \texttt{HasDerivAt.log} with $F(0) =
    1$). The mean value inequality on $(0, \lambda]$ gives $G(\lambda) \le \mathbb EZ + \lambda v/2$
    (\texttt{image\_le\_of\_deriv\_right\_le\_deriv\_boundary}-style, or
    \cref{lem:le-exp-of-hasDerivAt-le}'s argument), i.e. $\log F(\lambda) \le \lambda\mathbb EZ +
    \lambda^2v/2$; subtract $\lambda\mathbb EZ$ inside the mgf (\texttt{ProbabilityTheory.mgf},
    \texttt{Real.exp\_sub}) and exponentiate. $\lambda = 0$ is trivial. -/)
  (title := "Herbst's argument")
  (latexEnv := "theorem")]
theorem herbst_argument {Ω : Type*} [MeasurableSpace Ω] {μ : Measure Ω} [IsProbabilityMeasure μ]
    {Z : Ω → ℝ} {v : ℝ} (hint : ∀ t : ℝ, Integrable (fun ω ↦ Real.exp (t * Z ω)) μ)
    (hent : ∀ l : ℝ, 0 ≤ l →
      ent μ (fun ω ↦ Real.exp (l * Z ω)) ≤ l ^ 2 * v / 2 * ∫ ω, Real.exp (l * Z ω) ∂μ)
    {l : ℝ} (hl : 0 ≤ l) :
    mgf (fun ω ↦ Z ω - ∫ ω', Z ω' ∂μ) μ l ≤ Real.exp (l ^ 2 * v / 2) := by
  sorry_using [le_exp_of_hasDerivAt_le]

@[blueprint "thm:gaussian-concentration-of-contDiff-lsi"
  (statement := /-- Let $f \in C^1(\mathbb R^n)$ be $L$-Lipschitz. Under $\gamma_n$, $f - \mathbb E
    f$ is sub-Gaussian with variance proxy $L^2$. This is
    \cref{lem:gaussian-concentration-of-contDiff} by BLM's route: the Gaussian log-Sobolev
    inequality and Herbst's argument. (BLM 2013, Thm. 5.6
    and its proof.) -/)
  (proof := /-- Fix $\lambda \ge 0$ and apply \cref{thm:gaussian-log-sobolev} to $g =
    e^{\lambda f/2}$, which is $C^1$ with $\nabla g = \frac\lambda2 g\nabla f$ and satisfies the
    growth bound by \cref{lem:lipschitz-bound-and-norm-fderiv-le}. Since $\|\nabla f\| \le L$,
    $\mathbb E\|\nabla g\|^2 \le \frac{\lambda^2L^2}4\mathbb E e^{\lambda f}$, hence
    $\mathrm{Ent}(e^{\lambda f}) \le \frac{\lambda^2L^2}2\mathbb E e^{\lambda f}$
    (\texttt{Real.exp\_mul}, \texttt{sq}, \texttt{Real.exp\_add}). Integrability of every
    $e^{tf}$ is part of \cref{lem:hasDerivAt-mgf-centered-lipschitz}. \cref{thm:herbst-argument}
    with $v = L^2$ gives the mgf bound for $\lambda \ge 0$; for $\lambda < 0$ apply it to $-f$
    (\texttt{LipschitzWith.neg}). Assemble \texttt{HasSubgaussianMGF} with its anonymous
    constructor. -/)
  (title := "Gaussian concentration by log-Sobolev and Herbst")
  (latexEnv := "theorem")]
theorem gaussian_concentration_of_contDiff_lsi {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ}
    {L : ℝ≥0} (hf : ContDiff ℝ 1 f) (hL : LipschitzWith L f) :
    HasSubgaussianMGF (fun x ↦ f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) (L ^ 2)
      (stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [gaussian_log_sobolev, herbst_argument, lipschitz_bound_and_norm_fderiv_le,
    hasDerivAt_mgf_centered_lipschitz]

end SLT
