import Blueprint.SLT.Chaining
import Blueprint.SLT.GaussianConcentration
import Architect

/-!
# Least squares with Gaussian noise (layer F of the SLT blueprint)

The fixed-design regression model `y_i = f*(x_i) + σ w_i` with `w ~ γ_n`, the least-squares
estimator, localisation over star-shaped classes, the master error bound (Wainwright 2019,
Thm. 13.5), localized Gaussian complexity via Dudley, and the rate for linear regression
(Wainwright 2019, Example 13.8).

Conventions: `E_n = EuclideanSpace ℝ (Fin n)` and `γ_n = stdGaussian E_n`. Function values on
the design are turned into vectors of `E_n` by `evalVec`; the empirical norm is the Euclidean
norm divided by `√n`, so no separate "empirical space" with a hand-made metric is needed.
The localized Gaussian complexity is a lower integral in `ℝ≥0∞`, so it needs no integrability or
`BddAbove` side conditions; `sup_abs_inner_regular` supplies regularity where real integrals are
used. Probabilities of events that need not be measurable are outer measures.

Proofs use nodes of the earlier layers (A/B through C: `Blueprint/SLT/Chaining.lean`, D:
`Blueprint/SLT/GaussianConcentration.lean`) like same-file nodes: in `sorry_using` and by `\cref`.

## Main definitions

* `RegressionModel`, `response`, `IsLeastSquares`.
* `evalVec`, `empNorm`, `empProcess`: design evaluation, empirical norm, Gaussian process `Z_g`.
* `IsStarShaped`, `shiftedClass`, `localBall`, `localGaussComplexity`, `SatisfiesCriticalIneq`.
* `sphereSup`: the supremum of `|σ Z_g|` over the empirical sphere of radius `u`.
* `linearClass`, `designRange`, `designRank`.

## Main statements

* `basic_inequality`, `localGaussComplexity_div_antitoneOn` (Wainwright 2019, Lemma 13.6).
* `bad_event_measure_le` (Wainwright 2019, Lemma 13.12 style bound).
* `master_error_bound` (Wainwright 2019, Thm. 13.5): the bad event's probability;
  `master_error_bound_good_event`, the good event's outer measure (a weaker corollary).
* `localGaussComplexity_le_dudley` (Wainwright 2019, (5.48) / Cor. 13.7 style).
* `linear_regression_rate` (Wainwright 2019, Example 13.8), and its good-event corollary.

## References

* [M. J. Wainwright, *High-Dimensional Statistics*, 2019], Chapter 13 and §5.3.
* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], Thm. 5.6, Cor. 13.2.
-/

open MeasureTheory ProbabilityTheory
open scoped ENNReal NNReal InnerProductSpace

namespace SLT

@[blueprint "def:RegressionModel"
  (statement := /-- A fixed-design regression model with $n \ge 1$ observations consists of design
    points $x_1, \dots, x_n \in \mathcal X$, a function class $\mathcal F$ of real functions on
    $\mathcal X$, the true regression function $f^* \in \mathcal F$ and a noise level $\sigma > 0$.
    (Wainwright 2019, §13.1.) -/)
  (title := "Fixed-design regression model")
  (latexEnv := "definition")]
structure RegressionModel (α : Type*) (n : ℕ) where
  x : Fin n → α
  F : Set (α → ℝ)
  fStar : α → ℝ
  fStar_mem : fStar ∈ F
  σ : ℝ
  σ_pos : 0 < σ
  n_pos : 0 < n

@[blueprint "def:response"
  (statement := /-- For a model $M$ (\cref{def:RegressionModel}) and a noise vector $w \in \mathbb
    R^n$, the responses are $y_i(w) = f^*(x_i) + \sigma w_i$; the noise is $w \sim \gamma_n$.
    (Wainwright 2019, (13.1).) -/)
  (title := "Responses")
  (latexEnv := "definition")]
noncomputable def response {α : Type*} {n : ℕ} (M : RegressionModel α n)
    (w : EuclideanSpace ℝ (Fin n)) (i : Fin n) : ℝ :=
  M.fStar (M.x i) + M.σ * w i

@[blueprint "def:evalVec"
  (statement := /-- The evaluation vector of $g$ on the design is $\mathrm{ev}(g) = (g(x_1), \dots,
    g(x_n)) \in \mathbb R^n$ (Euclidean space). -/)
  (title := "Evaluation on the design")
  (latexEnv := "definition")]
noncomputable def evalVec {α : Type*} {n : ℕ} (x : Fin n → α) (g : α → ℝ) :
    EuclideanSpace ℝ (Fin n) :=
  WithLp.toLp 2 (fun i ↦ g (x i))

@[blueprint "def:empNorm"
  (statement := /-- The empirical norm is $\|g\|_n = \|\mathrm{ev}(g)\|/\sqrt n = (\frac1n\sum_i
    g(x_i)^2)^{1/2}$ (\cref{def:evalVec}). (Wainwright 2019, (13.3).) -/)
  (title := "Empirical norm")
  (latexEnv := "definition")]
noncomputable def empNorm {α : Type*} {n : ℕ} (x : Fin n → α) (g : α → ℝ) : ℝ :=
  ‖evalVec x g‖ / Real.sqrt n

@[blueprint "def:empProcess"
  (statement := /-- The Gaussian process of the design is $Z_g(w) = \frac1n\langle w,
    \mathrm{ev}(g)\rangle = \frac1n\sum_i w_i g(x_i)$ (\cref{def:evalVec}). (Wainwright 2019,
    §13.2.) -/)
  (title := "Design Gaussian process")
  (latexEnv := "definition")]
noncomputable def empProcess {α : Type*} {n : ℕ} (x : Fin n → α) (g : α → ℝ)
    (w : EuclideanSpace ℝ (Fin n)) : ℝ :=
  (n : ℝ)⁻¹ * ⟪w, evalVec x g⟫_ℝ

@[blueprint "def:IsLeastSquares"
  (statement := /-- $\hat f$ is a least-squares estimator for the model $M$ if for every noise
    vector $w$, $\hat f_w \in \mathcal F$ and $\sum_i (y_i(w) - \hat f_w(x_i))^2 \le \sum_i (y_i(w)
    - f(x_i))^2$ for all $f \in \mathcal F$ (\cref{def:response}). No measurability in $w$ is
    required. (Wainwright 2019, (13.2).) -/)
  (title := "Least-squares estimator")
  (latexEnv := "definition")]
def IsLeastSquares {α : Type*} {n : ℕ} (M : RegressionModel α n)
    (fhat : EuclideanSpace ℝ (Fin n) → α → ℝ) : Prop :=
  ∀ w, fhat w ∈ M.F ∧ ∀ f ∈ M.F,
    ∑ i, (response M w i - fhat w (M.x i)) ^ 2 ≤ ∑ i, (response M w i - f (M.x i)) ^ 2

@[blueprint "def:IsStarShaped"
  (statement := /-- A class $\mathcal H$ of real functions is star-shaped (around $0$) if $0 \in
    \mathcal H$ and $a h \in \mathcal H$ for all $h \in \mathcal H$ and $a \in [0,1]$. (Wainwright
    2019, Def. 13.4.) -/)
  (title := "Star-shaped class")
  (latexEnv := "definition")]
def IsStarShaped {α : Type*} (H : Set (α → ℝ)) : Prop :=
  0 ∈ H ∧ ∀ h ∈ H, ∀ a : ℝ, 0 ≤ a → a ≤ 1 → a • h ∈ H

@[blueprint "def:shiftedClass"
  (statement := /-- The shifted class is $\mathcal F^* = \mathcal F - f^* = \{f - f^* : f \in
    \mathcal F\}$. (Wainwright 2019, §13.2.1.) -/)
  (title := "Shifted class")
  (latexEnv := "definition")]
def shiftedClass {α : Type*} (F : Set (α → ℝ)) (fStar : α → ℝ) : Set (α → ℝ) :=
  (fun f : α → ℝ ↦ f - fStar) '' F

@[blueprint "def:localBall"
  (statement := /-- The localized ball of radius $\delta$ in $\mathcal H$ is $B_n(\delta; \mathcal
    H) = \{h \in \mathcal H : \|h\|_n \le \delta\}$ (\cref{def:empNorm}). (Wainwright 2019,
    (13.14).) -/)
  (title := "Localized ball")
  (latexEnv := "definition")]
noncomputable def localBall {α : Type*} {n : ℕ} (x : Fin n → α) (H : Set (α → ℝ)) (δ : ℝ) :
    Set (α → ℝ) :=
  {h | h ∈ H ∧ empNorm x h ≤ δ}

@[blueprint "def:localGaussComplexity"
  (statement := /-- The localized Gaussian complexity is $\mathcal G_n(\delta; \mathcal H) = \mathbb
    E_{w\sim\gamma_n}\sup_{h \in B_n(\delta;\mathcal H)} |Z_h(w)| \in [0,\infty]$
    (\cref{def:localBall}, \cref{def:empProcess}), a lower integral. (Wainwright 2019, (13.15).) -/)
  (title := "Localized Gaussian complexity")
  (latexEnv := "definition")]
noncomputable def localGaussComplexity {α : Type*} {n : ℕ} (x : Fin n → α) (H : Set (α → ℝ))
    (δ : ℝ) : ℝ≥0∞ :=
  ∫⁻ w, ⨆ h ∈ localBall x H δ, ENNReal.ofReal |empProcess x h w|
    ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))

@[blueprint "def:SatisfiesCriticalIneq"
  (statement := /-- $\delta$ satisfies the critical inequality for $\mathcal H$ and noise level
    $\sigma$ if $\delta > 0$ and $\mathcal G_n(\delta;\mathcal H) \le \delta^2/(2\sigma)$
    (\cref{def:localGaussComplexity}). (Wainwright 2019, (13.17).) -/)
  (title := "Critical inequality")
  (latexEnv := "definition")]
def SatisfiesCriticalIneq {α : Type*} {n : ℕ} (x : Fin n → α) (H : Set (α → ℝ)) (σ δ : ℝ) :
    Prop :=
  0 < δ ∧ localGaussComplexity x H δ ≤ ENNReal.ofReal (δ ^ 2 / (2 * σ))

@[blueprint "lem:sup-abs-inner-regular"
  (statement := /-- Let $A \subseteq \mathbb R^m$ with $\|a\| \le \rho$ for all $a \in A$, and $S(w)
    = \sup_{a\in A}|\langle a, w\rangle|$ (real supremum; $0$ if $A = \emptyset$). Then $S$ is
    $\rho$-Lipschitz, $S(w) \le \rho\|w\|$, $S$ is $\gamma_m$-integrable, and $\mathrm{ofReal}(S(w))
    = \sup_{a\in A}\mathrm{ofReal}|\langle a,w\rangle|$ in $[0,\infty]$. (Regularity of suprema of
    linear forms; discharges all boundedness, measurability and integrability side conditions in
    this layer.) -/)
  (proof := /-- If $A = \emptyset$, $S = 0$ (\texttt{Real.iSup\_of\_isEmpty}) and all claims are
    trivial. Otherwise each $|\langle a, w\rangle| \le \|a\|\|w\| \le \rho\|w\|$
    (\texttt{abs\_real\_inner\_le\_norm}), so the family is bounded above and $S(w) \le \rho\|w\|$
    (\texttt{ciSup\_le}). Lipschitz: $|\langle a,w\rangle| \le |\langle a,w'\rangle| + \rho\|w -
    w'\|$ (\texttt{inner\_sub\_right}), take suprema (\texttt{ciSup\_le}, \texttt{le\_ciSup}) in
    both directions, then \texttt{LipschitzWith.of\_le\_add\_mul}. Integrability: continuous
    (\texttt{LipschitzWith.continuous}) hence measurable, dominated by $\rho\|w\|$, integrable by
    \cref{lem:integrable-exp-norm-stdGaussian} ($p = 1$) and \texttt{Integrable.mono'}. The last
    identity: \texttt{ENNReal.ofReal} is monotone and continuous, so it commutes with a bounded
    nonempty supremum (\texttt{ENNReal.ofReal\_iSup}-type lemma or
    \texttt{Monotone.map\_ciSup\_of\_continuousAt}), and \texttt{iSup\_subtype'} converts the
    subtype supremum to the bounded one. -/)
  (title := "Suprema of linear forms are regular")
  (latexEnv := "lemma")]
theorem sup_abs_inner_regular {m : ℕ} (A : Set (EuclideanSpace ℝ (Fin m))) {ρ : ℝ≥0}
    (hA : ∀ a ∈ A, ‖a‖ ≤ ρ) :
    LipschitzWith ρ
        (fun w : EuclideanSpace ℝ (Fin m) ↦ ⨆ a : A, |⟪(a : EuclideanSpace ℝ (Fin m)), w⟫_ℝ|) ∧
      (∀ w : EuclideanSpace ℝ (Fin m),
        (⨆ a : A, |⟪(a : EuclideanSpace ℝ (Fin m)), w⟫_ℝ|) ≤ ρ * ‖w‖) ∧
      Integrable (fun w : EuclideanSpace ℝ (Fin m) ↦
        ⨆ a : A, |⟪(a : EuclideanSpace ℝ (Fin m)), w⟫_ℝ|) (stdGaussian (EuclideanSpace ℝ (Fin m))) ∧
      ∀ w : EuclideanSpace ℝ (Fin m),
        ENNReal.ofReal (⨆ a : A, |⟪(a : EuclideanSpace ℝ (Fin m)), w⟫_ℝ|) =
          ⨆ a ∈ A, ENNReal.ofReal |⟪a, w⟫_ℝ| := by
  sorry_using [integrable_exp_norm_stdGaussian]

@[blueprint "lem:basic-inequality"
  (statement := /-- \textbf{Basic inequality.} For a least-squares estimator $\hat f$
    (\cref{def:IsLeastSquares}) and every noise vector $w$, with $\hat\Delta = \hat f_w - f^*$:
    $\tfrac12\|\hat\Delta\|_n^2 \le \sigma Z_{\hat\Delta}(w) = \frac{\sigma}{n}\sum_i w_i
    \hat\Delta(x_i)$. (Wainwright 2019, (13.18).) -/)
  (proof := /-- From the definition with $f = f^* \in \mathcal F$ (field \texttt{fStar\_mem}):
    $\sum_i(\sigma w_i - \hat\Delta_i)^2 \le \sum_i (\sigma w_i)^2$ where $\hat\Delta_i =
    \hat\Delta(x_i)$ (unfold \texttt{response}). Expanding (\texttt{Finset.sum\_sub\_distrib},
    \texttt{sub\_sq}, \texttt{Finset.mul\_sum}) gives $\sum_i\hat\Delta_i^2 \le 2\sigma\sum_i
    w_i\hat\Delta_i$. Then $\|\hat\Delta\|_n^2 = \frac1n\sum_i\hat\Delta_i^2$
    (\texttt{EuclideanSpace.norm\_eq}, \texttt{Real.sq\_sqrt}, \texttt{div\_pow}, $n > 0$ from field
    \texttt{n\_pos}) and $\langle w, \mathrm{ev}\,\hat\Delta \rangle = \sum_i w_i\hat\Delta_i$
    (\texttt{PiLp.inner\_apply}); divide by $2n$ (\texttt{div\_le\_div\_of\_nonneg\_right},
    \texttt{field\_simp}, \texttt{nlinarith}). -/)
  (title := "Basic inequality")
  (latexEnv := "lemma")]
theorem basic_inequality {α : Type*} {n : ℕ} (M : RegressionModel α n)
    {fhat : EuclideanSpace ℝ (Fin n) → α → ℝ} (hfhat : IsLeastSquares M fhat)
    (w : EuclideanSpace ℝ (Fin n)) :
    empNorm M.x (fhat w - M.fStar) ^ 2 / 2 ≤ M.σ * empProcess M.x (fhat w - M.fStar) w := by
  sorry_using []

@[blueprint "lem:star-shaped-rescale"
  (statement := /-- Let $\mathcal H$ be star-shaped (\cref{def:IsStarShaped}), $0 < \delta \le t$
    and $h \in B_n(t; \mathcal H)$. Then $(\delta/t) h \in B_n(\delta;\mathcal H)$ and
    $Z_{(\delta/t)h} = (\delta/t) Z_h$. (Wainwright 2019, proof of Lemma 13.6.) -/)
  (proof := /-- $t > 0$ and $a = \delta/t \in (0,1]$ (\texttt{div\_pos}, \texttt{div\_le\_one}), so
    $a h \in \mathcal H$ by star-shapedness. Homogeneity: $\mathrm{ev}(a h) = a\,\mathrm{ev}(h)$
    (unfold \texttt{evalVec}, \texttt{WithLp.toLp\_smul} or \texttt{PiLp.ext}), hence $\|a h\|_n =
    a\|h\|_n \le a t = \delta$ (\texttt{norm\_smul}, \texttt{abs\_of\_pos},
    \texttt{mul\_div\_assoc}) and $Z_{ah} = a Z_h$ (\texttt{inner\_smul\_right},
    \texttt{mul\_left\_comm}). -/)
  (title := "Rescaling in a star-shaped class")
  (latexEnv := "lemma")]
theorem star_shaped_rescale {α : Type*} {n : ℕ} {x : Fin n → α} {H : Set (α → ℝ)}
    (hH : IsStarShaped H) {δ t : ℝ} (hδ : 0 < δ) (hδt : δ ≤ t) {h : α → ℝ}
    (hh : h ∈ localBall x H t) :
    (δ / t) • h ∈ localBall x H δ ∧
      ∀ w, empProcess x ((δ / t) • h) w = δ / t * empProcess x h w := by
  sorry_using []

@[blueprint "lem:localGaussComplexity-div-antitoneOn"
  (statement := /-- For star-shaped $\mathcal H$, $\delta \mapsto \mathcal G_n(\delta;\mathcal H)/
    \delta$ is nonincreasing on $(0,\infty)$ (\cref{def:localGaussComplexity}, values in
    $[0,\infty]$). (Wainwright 2019, Lemma 13.6.) -/)
  (proof := /-- Let $0 < \delta \le t$ and $a = \delta/t$. By \cref{lem:star-shaped-rescale}, for
    each $w$: $a\sup_{h\in B_n(t)}|Z_h(w)| = \sup_{h \in B_n(t)}|Z_{ah}(w)| \le \sup_{g\in
    B_n(\delta)}|Z_g(w)|$ (\texttt{ENNReal.mul\_iSup}, \texttt{ENNReal.ofReal\_mul},
    \texttt{abs\_mul}, \texttt{iSup₂\_le}, \texttt{le\_iSup₂}). Integrate: by
    \texttt{MeasureTheory.lintegral\_const\_mul\_le} and \texttt{MeasureTheory.lintegral\_mono},
    $a\,\mathcal G_n(t) \le \mathcal G_n(\delta)$; divide by $\delta$
    (\texttt{ENNReal.div\_le\_div\_right}, \texttt{ENNReal.mul\_div\_right\_comm},
    \texttt{ENNReal.ofReal\_div\_of\_pos}). No integrability is needed since everything is in
    $[0,\infty]$. -/)
  (title := "Monotonicity of the localized complexity ratio")
  (latexEnv := "lemma")]
theorem localGaussComplexity_div_antitoneOn {α : Type*} {n : ℕ} {x : Fin n → α}
    {H : Set (α → ℝ)} (hH : IsStarShaped H) :
    AntitoneOn (fun δ ↦ localGaussComplexity x H δ / ENNReal.ofReal δ) (Set.Ioi 0) := by
  sorry_using [star_shaped_rescale]

@[blueprint "def:sphereSup"
  (statement := /-- For $u \ge 0$ and $\sigma$, $\mathcal Z(u)(w) = \sup\{|\sigma Z_g(w)| : g \in
    \mathcal H,\ \|g\|_n = u\}$ (a real supremum; $0$ if the empirical sphere is empty)
    (\cref{def:empNorm}, \cref{def:empProcess}). (Wainwright 2019, proof of Lemma 13.12.) -/)
  (title := "Supremum over the empirical sphere")
  (latexEnv := "definition")]
noncomputable def sphereSup {α : Type*} {n : ℕ} (x : Fin n → α) (H : Set (α → ℝ)) (σ u : ℝ)
    (w : EuclideanSpace ℝ (Fin n)) : ℝ :=
  ⨆ g : {g : α → ℝ // g ∈ H ∧ empNorm x g = u}, |σ * empProcess x g.1 w|

@[blueprint "lem:sphereSup-regular"
  (statement := /-- For $\sigma, u \ge 0$ and $n \ge 1$, $\mathcal Z(u)$ (\cref{def:sphereSup}) is
    $(\sigma u/\sqrt n)$-Lipschitz on $\mathbb R^n$, nonnegative, and $\gamma_n$-integrable.
    (Wainwright 2019, proof of Lemma 13.12.) -/)
  (proof := /-- $|\sigma Z_g(w)| = |\langle a_g, w\rangle|$ with $a_g = \sigma n^{-1}\mathrm{ev}(g)$
    (\texttt{real\_inner\_comm}, \texttt{inner\_smul\_left}), and on the sphere $\|a_g\| = \sigma
    n^{-1}\sqrt n\,\|g\|_n = \sigma u/\sqrt n$ (\texttt{norm\_smul}, \texttt{Real.sqrt\_mul\_self},
    \texttt{div\_sqrt}). So $\mathcal Z(u)(w) = \sup_{a\in A} |\langle a, w\rangle|$ for $A =
    \{a_g\}$ (reindex: \texttt{iSup\_range'} / \texttt{iSup\_image}), and
    \cref{lem:sup-abs-inner-regular} with $\rho = \sigma u/\sqrt n$ gives Lipschitz and
    integrability. Nonnegativity: \texttt{Real.iSup\_nonneg} with \texttt{abs\_nonneg}. -/)
  (title := "Regularity of the sphere supremum")
  (latexEnv := "lemma")]
theorem sphereSup_regular {α : Type*} {n : ℕ} (x : Fin n → α) (H : Set (α → ℝ)) {σ u : ℝ}
    (hσ : 0 ≤ σ) (hu : 0 ≤ u) (hn : 0 < n) :
    LipschitzWith (Real.toNNReal (σ * u / Real.sqrt n)) (sphereSup x H σ u) ∧
      (∀ w, 0 ≤ sphereSup x H σ u w) ∧
      Integrable (sphereSup x H σ u) (stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [sup_abs_inner_regular]

@[blueprint "lem:integral-sphereSup-le"
  (statement := /-- Let $\mathcal H$ be star-shaped, $\sigma > 0$, $\delta$ satisfy the critical
    inequality (\cref{def:SatisfiesCriticalIneq}) and $u \ge \delta$. Then $\mathbb E\,\mathcal Z(u)
    \le u\delta/2$. (Wainwright 2019, proof of Lemma 13.12.) -/)
  (proof := /-- The empirical sphere of radius $u$ lies in $B_n(u;\mathcal H)$, so pointwise
    $\mathrm{ofReal}(\mathcal Z(u)(w)) \le \sigma\sup_{h\in B_n(u)}\mathrm{ofReal}|Z_h(w)|$
    (\texttt{ciSup\_le} with \cref{lem:sup-abs-inner-regular}'s boundedness, \texttt{abs\_mul},
    \texttt{ENNReal.ofReal\_mul}, \texttt{le\_iSup₂}). Integrating
    (\texttt{MeasureTheory.ofReal\_integral\_eq\_lintegral\_ofReal} using
    \cref{lem:sphereSup-regular}; \texttt{MeasureTheory.lintegral\_mono},
    \texttt{MeasureTheory.lintegral\_const\_mul'}): $\mathbb E\mathcal Z(u) \le \sigma\,\mathcal
    G_n(u)$. By \cref{lem:localGaussComplexity-div-antitoneOn} with $\delta \le u$: $\mathcal G_n(u)
    \le (u/\delta)\mathcal G_n(\delta) \le (u/\delta)\delta^2/(2\sigma) = u\delta/(2\sigma)$.
    Multiply by $\sigma$ and return to $\mathbb R$ (\texttt{ENNReal.ofReal\_le\_ofReal\_iff},
    \texttt{ENNReal.toReal\_le\_of\_le\_ofReal}). -/)
  (title := "Expected sphere supremum")
  (latexEnv := "lemma")]
theorem integral_sphereSup_le {α : Type*} {n : ℕ} {x : Fin n → α} {H : Set (α → ℝ)}
    (hH : IsStarShaped H) {σ δ u : ℝ} (hσ : 0 < σ) (hCI : SatisfiesCriticalIneq x H σ δ)
    (hu : δ ≤ u) (hn : 0 < n) :
    ∫ w, sphereSup x H σ u w ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) ≤ u * δ / 2 := by
  sorry_using [sup_abs_inner_regular, localGaussComplexity_div_antitoneOn, sphereSup_regular]

@[blueprint "lem:sphereSup-ge-of-bad"
  (statement := /-- Let $\mathcal H$ be star-shaped, $u > 0$, $g \in \mathcal H$ with $\|g\|_n \ge
    u$ and $|\sigma Z_g(w)| \ge 2\|g\|_n u$. Then $\mathcal Z(u)(w) \ge 2u^2$
    (\cref{def:sphereSup}). In particular the empirical sphere of radius $u$ is nonempty whenever
    such a $g$ exists. (Wainwright 2019, proof of Lemma 13.12.) -/)
  (proof := /-- Put $t = \|g\|_n \ge u > 0$ and $h = (u/t) g$. By \cref{lem:star-shaped-rescale}
    (with $\delta = u$, and $g \in B_n(t;\mathcal H)$), $h \in \mathcal H$ and $Z_h = (u/t)Z_g$;
    also $\|h\|_n = (u/t)t = u$ exactly (homogeneity as in that lemma). Then $|\sigma Z_h(w)| =
    (u/t)|\sigma Z_g(w)| \ge (u/t)\cdot 2tu = 2u^2$, and $\mathcal Z(u)(w) \ge |\sigma Z_h(w)|$ by
    \texttt{le\_ciSup} (bounded above by \cref{lem:sup-abs-inner-regular}: each term is at most
    $|\sigma|\,n^{-1}\|\mathrm{ev}\,h\|\|w\|$ with $\|\mathrm{ev}\,h\| = \sqrt n u$). -/)
  (title := "Bad events reach the sphere")
  (latexEnv := "lemma")]
theorem sphereSup_ge_of_bad {α : Type*} {n : ℕ} {x : Fin n → α} {H : Set (α → ℝ)}
    (hH : IsStarShaped H) {σ u : ℝ} (hu : 0 < u) {g : α → ℝ} (hg : g ∈ H)
    (hgu : u ≤ empNorm x g) {w : EuclideanSpace ℝ (Fin n)}
    (hw : 2 * empNorm x g * u ≤ |σ * empProcess x g w|) :
    2 * u ^ 2 ≤ sphereSup x H σ u w := by
  sorry_using [star_shaped_rescale, sup_abs_inner_regular]

@[blueprint "lem:bad-event-measure-le"
  (statement := /-- Let $\mathcal H$ be star-shaped, $\sigma > 0$, $n \ge 1$, $\delta$ satisfy the
    critical inequality and $u \ge \delta$. The event $\mathcal A(u) = \{w : \exists g \in \mathcal
    H, \|g\|_n \ge u,\ |\sigma Z_g(w)| \ge 2\|g\|_n u\}$ has outer measure $\gamma_n(\mathcal A(u))
    \le e^{-nu^2/(2\sigma^2)}$. No measurability of $\mathcal A(u)$ is needed. (Wainwright 2019,
    Lemma 13.12.) -/)
  (proof := /-- By \cref{lem:sphereSup-ge-of-bad}, on $\mathcal A(u)$ we have $\mathcal Z(u) \ge
    2u^2$, while $\mathbb E\mathcal Z(u) \le u\delta/2 \le u^2/2$ by
    \cref{lem:integral-sphereSup-le}. Hence $\mathcal A(u) \subseteq \{\mathcal Z(u) - \mathbb
    E\mathcal Z(u) \ge u^2\}$ and \texttt{MeasureTheory.measure\_mono} reduces to the latter
    (measurable) set. By \cref{lem:sphereSup-regular}, $\mathcal Z(u)$ is $L$-Lipschitz with $L =
    \sigma u/\sqrt n$, so \cref{thm:gaussian-lipschitz-concentration} gives $\gamma_n(\mathcal Z(u)
    - \mathbb E\mathcal Z(u) \ge u^2) \le e^{-u^4/(2L^2)} = e^{-nu^2/(2\sigma^2)}$
    (\texttt{Real.sq\_sqrt}, \texttt{field\_simp}). Convert \texttt{Measure.real} to the measure
    (\texttt{ofReal\_measureReal}, \texttt{ENNReal.ofReal\_le\_ofReal}). -/)
  (title := "Bad-event bound")
  (latexEnv := "lemma")]
theorem bad_event_measure_le {α : Type*} {n : ℕ} {x : Fin n → α} {H : Set (α → ℝ)}
    (hH : IsStarShaped H) {σ δ u : ℝ} (hσ : 0 < σ) (hCI : SatisfiesCriticalIneq x H σ δ)
    (hu : δ ≤ u) (hn : 0 < n) :
    stdGaussian (EuclideanSpace ℝ (Fin n))
        {w | ∃ g ∈ H, u ≤ empNorm x g ∧ 2 * empNorm x g * u ≤ |σ * empProcess x g w|} ≤
      ENNReal.ofReal (Real.exp (-(n * u ^ 2) / (2 * σ ^ 2))) := by
  sorry_using [sphereSup_regular, integral_sphereSup_le, sphereSup_ge_of_bad,
    gaussian_lipschitz_concentration]

@[blueprint "thm:master-error-bound"
  (statement := /-- \textbf{Master error bound for least squares.} Let $M$ be a regression model
    whose shifted class $\mathcal F^* = \mathcal F - f^*$ is star-shaped, $\hat f$ a least-squares
    estimator, $\delta$ a solution of the critical inequality for $\mathcal F^*$ and $\sigma$, and
    $t \ge \delta$. Then the bad event has small probability: $\gamma_n\big(\|\hat f - f^*\|_n^2 >
    16 t\delta\big) \le e^{-nt\delta/(2\sigma^2)}$, $\gamma_n$ applied to a set that need not be
    measurable being the outer measure. (Wainwright 2019, Thm. 13.5.) -/)
  (proof := /-- Let $u = \sqrt{t\delta} \ge \delta$ (as $t \ge \delta > 0$; \texttt{Real.le\_sqrt}).
    We show that the bad event lies in $\mathcal A(u)$, the set of \cref{lem:bad-event-measure-le}
    for $\mathcal H = \mathcal F^*$. Fix $w$ outside $\mathcal A(u)$ and put $\hat\Delta = \hat f_w
    - f^* \in \mathcal F^*$ (\texttt{Set.mem\_image\_of\_mem}). If $\|\hat\Delta\|_n < u$ then
    $\|\hat\Delta\|_n^2 < t\delta \le 16t\delta$. Otherwise $w \notin \mathcal A(u)$ gives
    $|\sigma Z_{\hat\Delta}(w)| < 2\|\hat\Delta\|_n u$, and \cref{lem:basic-inequality} gives
    $\frac12\|\hat\Delta\|_n^2 \le \sigma Z_{\hat\Delta}(w) < 2\|\hat\Delta\|_n u$, so
    $\|\hat\Delta\|_n < 4u$ and $\|\hat\Delta\|_n^2 < 16u^2 = 16t\delta$ (\texttt{nlinarith}). So
    $w$ is not in the bad event (\texttt{not\_lt}). Hence
    \texttt{MeasureTheory.measure\_mono} and \cref{lem:bad-event-measure-le} conclude, with
    $nu^2 = nt\delta$ (\texttt{Real.sq\_sqrt}, \texttt{mul\_nonneg}); $n > 0$ is the model's field
    \texttt{n\_pos}. -/)
  (title := "Master error bound (Wainwright Thm. 13.5)")
  (latexEnv := "theorem")]
theorem master_error_bound {α : Type*} {n : ℕ} (M : RegressionModel α n)
    {fhat : EuclideanSpace ℝ (Fin n) → α → ℝ} (hfhat : IsLeastSquares M fhat)
    (hH : IsStarShaped (shiftedClass M.F M.fStar)) {δ : ℝ}
    (hCI : SatisfiesCriticalIneq M.x (shiftedClass M.F M.fStar) M.σ δ) {t : ℝ} (ht : δ ≤ t) :
    stdGaussian (EuclideanSpace ℝ (Fin n))
        {w | 16 * t * δ < empNorm M.x (fhat w - M.fStar) ^ 2} ≤
      ENNReal.ofReal (Real.exp (-(n * t * δ) / (2 * M.σ ^ 2))) := by
  sorry_using [basic_inequality, bad_event_measure_le]

@[blueprint "cor:master-error-bound-good-event"
  (statement := /-- Under the hypotheses of \cref{thm:master-error-bound}, the good event has outer
    measure $\gamma_n^*\big(\|\hat f - f^*\|_n^2 \le 16 t\delta\big) \ge 1 -
    e^{-nt\delta/(2\sigma^2)}$. For a non-measurable good event this is weaker than the theorem:
    $\gamma^*(G) \ge 1 - \varepsilon$ does not bound $\gamma^*(G^c)$. (Wainwright 2019, Thm. 13.5,
    as usually quoted.) -/)
  (proof := /-- The good and the bad event of \cref{thm:master-error-bound} cover the space
    (\texttt{Set.ext}, \texttt{not\_lt}), so $1 = \gamma_n(\mathrm{univ}) \le
    \gamma_n^*(\mathrm{good}) + \gamma_n^*(\mathrm{bad})$ (\texttt{MeasureTheory.measure\_univ},
    \texttt{MeasureTheory.measure\_union\_le}, \texttt{MeasureTheory.measure\_mono}); conclude
    with \texttt{tsub\_le\_iff\_right} and the theorem's bound on the bad event. -/)
  (title := "Master error bound, good-event form")
  (latexEnv := "corollary")]
theorem master_error_bound_good_event {α : Type*} {n : ℕ} (M : RegressionModel α n)
    {fhat : EuclideanSpace ℝ (Fin n) → α → ℝ} (hfhat : IsLeastSquares M fhat)
    (hH : IsStarShaped (shiftedClass M.F M.fStar)) {δ : ℝ}
    (hCI : SatisfiesCriticalIneq M.x (shiftedClass M.F M.fStar) M.σ δ) {t : ℝ} (ht : δ ≤ t) :
    1 - ENNReal.ofReal (Real.exp (-(n * t * δ) / (2 * M.σ ^ 2))) ≤
      stdGaussian (EuclideanSpace ℝ (Fin n))
        {w | empNorm M.x (fhat w - M.fStar) ^ 2 ≤ 16 * t * δ} := by
  sorry_using [master_error_bound]

@[blueprint "lem:scaled-inner-isSubgaussianProcess"
  (statement := /-- The process $Y_v(w) = n^{-1/2}\langle w, v\rangle$, $v \in \mathbb R^n$, under
    $w\sim\gamma_n$ is an $n^{-1/2}$-sub-Gaussian process on all of $\mathbb R^n$ for the Euclidean
    metric, with continuous paths $v \mapsto Y_v(w)$. (Wainwright 2019, Example 5.14 / proof of Cor.
    13.7.) -/)
  (proof := /-- For $s, t$: $Y_s - Y_t = \langle n^{-1/2}(s - t), \cdot\rangle$
    (\texttt{inner\_sub\_right}, \texttt{real\_inner\_comm}, \texttt{inner\_smul\_left}), which by
    \cref{lem:inner-stdGaussian-subgaussian} is $\mathrm{SG}(\cdot, \|n^{-1/2}(s-t)\|^2)$, and
    $\|n^{-1/2}(s - t)\| = n^{-1/2} d(s,t)$ (\texttt{norm\_smul}, \texttt{dist\_eq\_norm},
    \texttt{NNReal.coe\_sqrt}); rewrite the proxy with \texttt{HasSubgaussianMGF.congr} or by
    \texttt{convert} and \texttt{NNReal.eq}. For $n = 0$ both sides are $0$. Continuity:
    \texttt{Continuous.mul}, \texttt{continuous\_const}, \texttt{Continuous.inner}. -/)
  (title := "The canonical Gaussian process on Euclidean space")
  (latexEnv := "lemma")]
theorem scaled_inner_isSubgaussianProcess (n : ℕ) :
    IsSubgaussianProcess (fun v w : EuclideanSpace ℝ (Fin n) ↦ (Real.sqrt n)⁻¹ * ⟪w, v⟫_ℝ)
        Set.univ (NNReal.sqrt n)⁻¹ (stdGaussian (EuclideanSpace ℝ (Fin n))) ∧
      ∀ w : EuclideanSpace ℝ (Fin n),
        Continuous (fun v : EuclideanSpace ℝ (Fin n) ↦ (Real.sqrt n)⁻¹ * ⟪w, v⟫_ℝ) := by
  sorry_using [inner_stdGaussian_subgaussian]

@[blueprint "thm:localGaussComplexity-le-dudley"
  (statement := /-- Let $\mathcal H$ be star-shaped, $\delta > 0$, $n \ge 1$ and $V(\delta) =
    \{n^{-1/2}\mathrm{ev}(h) : h \in B_n(\delta;\mathcal H)\} \subseteq \mathbb R^n$. Then $\mathcal
    G_n(\delta;\mathcal H) \le \frac{24}{\sqrt n} J(V(\delta), \delta)$: distances in $V(\delta)$
    are at most $2\delta$ and Dudley's integral runs to half of that. (Wainwright 2019, (5.48) and
    Cor. 13.7 route; BLM 2013, Cor. 13.2.) -/)
  (proof := /-- For $h \in B_n(\delta)$ and $v = n^{-1/2}\mathrm{ev}(h)$: $Z_h(w) = Y_v(w)$ with $Y$
    the process of \cref{lem:scaled-inner-isSubgaussianProcess} ($n^{-1} = n^{-1/2}n^{-1/2}$,
    \texttt{inner\_smul\_right}, \texttt{Real.sqrt\_mul\_self}), and $\|v\| = \|h\|_n \le \delta$.
    Hence $\mathcal G_n(\delta) = \int^-\sup_{v\in V(\delta)}\mathrm{ofReal}|Y_v - Y_0|$
    (\texttt{iSup\_image}; $Y_0 = 0$). $V(\delta) \subseteq B(0,\delta)$ is bounded in finite
    dimension, hence totally bounded (\texttt{Metric.isCompact\_closedBall} via \texttt{ProperSpace}
    and \texttt{IsCompact.totallyBounded}, then \texttt{TotallyBounded.subset}); $0 \in V(\delta)$
    ($0 \in \mathcal H$ by star-shapedness, \texttt{evalVec} of $0$ is $0$); all distances in
    $V(\delta)$ are at most $2\delta$ (\texttt{dist\_le\_norm\_add\_norm}-style triangle
    inequality); paths are continuous. Apply \cref{thm:dudley-entropy-bound-abs} with $T =
    V(\delta)$, $t_0 = 0$, $D = 2\delta$, $\sigma = n^{-1/2}$ (restricting the process of
    \cref{lem:scaled-inner-isSubgaussianProcess} from \texttt{Set.univ} to $V(\delta)$); continuity
    on $V(\delta)$ from \texttt{Continuous.continuousOn}. Its integral is $J(V(\delta), 2\delta/2) =
    J(V(\delta), \delta)$ (\texttt{mul\_div\_cancel\_left₀}). Finally $24 n^{-1/2} = 24/\sqrt n$
    (\texttt{NNReal.coe\_inv}, \texttt{div\_eq\_mul\_inv}). -/)
  (title := "Localized complexity via Dudley")
  (latexEnv := "theorem")]
theorem localGaussComplexity_le_dudley {α : Type*} {n : ℕ} {x : Fin n → α} {H : Set (α → ℝ)}
    (hH : IsStarShaped H) {δ : ℝ} (hδ : 0 < δ) (hn : 0 < n) :
    localGaussComplexity x H δ ≤
      ENNReal.ofReal (24 / Real.sqrt n) *
        dudleyIntegral ((fun h ↦ (Real.sqrt n)⁻¹ • evalVec x h) '' localBall x H δ) δ := by
  sorry_using [scaled_inner_isSubgaussianProcess, dudley_entropy_bound_abs]

@[blueprint "def:linearClass"
  (statement := /-- The linear class on $\mathbb R^d$ is $\mathcal F_{\mathrm{lin}} = \{z \mapsto
    \langle\theta, z\rangle : \theta \in \mathbb R^d\}$. (Wainwright 2019, Example 13.8.) -/)
  (title := "Linear function class")
  (latexEnv := "definition")]
noncomputable def linearClass (d : ℕ) : Set (EuclideanSpace ℝ (Fin d) → ℝ) :=
  Set.range fun θ : EuclideanSpace ℝ (Fin d) ↦ fun z ↦ ⟪θ, z⟫_ℝ

@[blueprint "def:designRange"
  (statement := /-- For a design $x_1,\dots,x_n \in \mathbb R^d$, the design range is the subspace
    of $\mathbb R^n$ spanned by $\{\mathrm{ev}(\langle\theta,\cdot\rangle) : \theta \in \mathbb
    R^d\}$, i.e. the range of the design matrix $X\theta = (\langle\theta, x_i\rangle)_i$
    (\cref{def:evalVec}). -/)
  (title := "Range of the design matrix")
  (latexEnv := "definition")]
noncomputable def designRange {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) :
    Submodule ℝ (EuclideanSpace ℝ (Fin n)) :=
  Submodule.span ℝ (Set.range fun θ : EuclideanSpace ℝ (Fin d) ↦ evalVec x fun z ↦ ⟪θ, z⟫_ℝ)

@[blueprint "def:designRank"
  (statement := /-- The rank of the design is $r = \dim$ of the design range
    (\cref{def:designRange}). (Wainwright 2019, Example 13.8.) -/)
  (title := "Rank of the design")
  (latexEnv := "definition")]
noncomputable def designRank {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) : ℕ :=
  Module.finrank ℝ (designRange x)

@[blueprint "lem:linearClass-shifted-eq-and-isStarShaped"
  (statement := /-- If $f^* \in \mathcal F_{\mathrm{lin}}$ then $\mathcal F_{\mathrm{lin}} - f^* =
    \mathcal F_{\mathrm{lin}}$, and $\mathcal F_{\mathrm{lin}}$ is star-shaped
    (\cref{def:linearClass}, \cref{def:shiftedClass}, \cref{def:IsStarShaped}). -/)
  (proof := /-- With $f^* = \langle\theta^*,\cdot\rangle$: $\langle\theta,\cdot\rangle - f^* =
    \langle\theta - \theta^*,\cdot\rangle$ (\texttt{inner\_sub\_left}, \texttt{funext}) and
    conversely $\langle\theta,\cdot\rangle = \langle\theta + \theta^*,\cdot\rangle - f^*$, giving
    the set equality (\texttt{Set.ext}, \texttt{Set.mem\_image}, \texttt{Set.mem\_range}).
    Star-shaped: $0 = \langle 0,\cdot\rangle$ (\texttt{inner\_zero\_left}) and
    $a\langle\theta,\cdot\rangle = \langle a\theta,\cdot\rangle$ (\texttt{real\_inner\_smul\_left}).
    -/)
  (title := "The linear class is a star-shaped shift-invariant class")
  (latexEnv := "lemma")]
theorem linearClass_shifted_eq_and_isStarShaped {d : ℕ} {fStar : EuclideanSpace ℝ (Fin d) → ℝ}
    (hf : fStar ∈ linearClass d) :
    shiftedClass (linearClass d) fStar = linearClass d ∧ IsStarShaped (linearClass d) := by
  sorry_using []

@[blueprint "lem:scaled-localBall-linearClass-eq"
  (statement := /-- For a design in $\mathbb R^d$, $n \ge 1$ and $\delta \in \mathbb R$:
    $\{n^{-1/2}\mathrm{ev}(h) : h \in B_n(\delta;\mathcal F_{\mathrm{lin}})\} = \mathrm{range}(X)
    \cap B(0,\delta)$ (\cref{def:designRange}, \cref{def:localBall}). (Wainwright 2019, Example
    13.8.) -/)
  (proof := /-- The map $\theta \mapsto \mathrm{ev}(\langle\theta,\cdot\rangle)$ is linear, so its
    range is already a subspace and equals its span (build it as a \texttt{LinearMap} and use
    \texttt{LinearMap.range} with \texttt{Submodule.span\_eq}, or \texttt{Submodule.span\_induction}
    with closure under $+$ and scalars). $\subseteq$: $n^{-1/2}\mathrm{ev}(h)$ is in the subspace
    (\texttt{Submodule.smul\_mem}, \texttt{Submodule.subset\_span}) and its norm is $\|h\|_n \le
    \delta$ (\texttt{norm\_smul}, \texttt{mem\_closedBall\_zero\_iff}). $\supseteq$: for $v$ in the
    range with $\|v\| \le \delta$, write $\sqrt n v = \mathrm{ev}(\langle\theta,\cdot \rangle)$;
    then $h = \langle\theta,\cdot\rangle$ has $\|h\|_n = \|v\|$ and $n^{-1/2}\mathrm{ev}(h) = v$
    (\texttt{smul\_smul}, \texttt{inv\_mul\_cancel₀} with $\sqrt n \ne 0$). -/)
  (title := "Localized linear class as a ball in the design range")
  (latexEnv := "lemma")]
theorem scaled_localBall_linearClass_eq {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) (δ : ℝ)
    (hn : 0 < n) :
    (fun h ↦ (Real.sqrt n)⁻¹ • evalVec x h) '' localBall x (linearClass d) δ =
      (designRange x : Set (EuclideanSpace ℝ (Fin n))) ∩ Metric.closedBall 0 δ := by
  sorry_using []

@[blueprint "lem:dudleyIntegral-linear-le"
  (statement := /-- For a design of rank $r$, $n \ge 1$ and $\delta > 0$: $J(V(\delta), \delta) \le
    4\delta\sqrt r$ where $V(\delta) = \{n^{-1/2}\mathrm{ev}(h) : h \in B_n(\delta;\mathcal
    F_{\mathrm{lin}})\}$ (\cref{def:designRank}). (Wainwright 2019, Example 13.8.) -/)
  (proof := /-- $J(V(\delta), \delta) \le J(V(\delta), 2\delta)$: the integrand is the same and
    $(0, \delta] \subseteq (0, 2\delta]$ (\texttt{MeasureTheory.lintegral\_mono\_set},
    \texttt{Set.Ioc\_subset\_Ioc\_right}, $\delta \le 2\delta$ by \texttt{linarith}). Rewrite
    $V(\delta)$ with \cref{lem:scaled-localBall-linearClass-eq} and apply
    \cref{lem:dudleyIntegral-submodule-ball-le} to $W = \mathrm{range}(X)$, which is
    finite-dimensional (the instance for submodules of finite-dimensional spaces) of dimension $r$
    by definition. -/)
  (title := "Entropy integral for the linear class")
  (latexEnv := "lemma")]
theorem dudleyIntegral_linear_le {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) {δ : ℝ}
    (hδ : 0 < δ) (hn : 0 < n) :
    dudleyIntegral ((fun h ↦ (Real.sqrt n)⁻¹ • evalVec x h) '' localBall x (linearClass d) δ)
        δ ≤
      ENNReal.ofReal (4 * δ * Real.sqrt (designRank x)) := by
  sorry_using [scaled_localBall_linearClass_eq, dudleyIntegral_submodule_ball_le]

@[blueprint "lem:localGaussComplexity-linear-le"
  (statement := /-- For a design of rank $r$, $n \ge 1$ and $\delta > 0$: $\mathcal
    G_n(\delta;\mathcal F_{\mathrm{lin}}) \le 96\,\delta\sqrt{r/n}$. (Wainwright 2019, Example 13.8,
    with explicit constant.) -/)
  (proof := /-- $\mathcal F_{\mathrm{lin}}$ is star-shaped by
    \cref{lem:linearClass-shifted-eq-and-isStarShaped}, so \cref{thm:localGaussComplexity-le-dudley}
    gives $\mathcal G_n(\delta) \le \frac{24}{\sqrt n}J(V(\delta), \delta)$, and
    \cref{lem:dudleyIntegral-linear-le} bounds $J$ by $4\delta\sqrt r$. Combine
    (\texttt{ENNReal.ofReal\_mul}, \texttt{Real.sqrt\_div'}, \texttt{mul\_le\_mul\_left'}):
    $\frac{24}{\sqrt n}4\delta\sqrt r = 96\delta\sqrt{r/n}$. -/)
  (title := "Localized complexity of the linear class")
  (latexEnv := "lemma")]
theorem localGaussComplexity_linear_le {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) {δ : ℝ}
    (hδ : 0 < δ) (hn : 0 < n) :
    localGaussComplexity x (linearClass d) δ ≤
      ENNReal.ofReal (96 * δ * Real.sqrt ((designRank x : ℝ) / n)) := by
  sorry_using [localGaussComplexity_le_dudley, linearClass_shifted_eq_and_isStarShaped,
    dudleyIntegral_linear_le]

@[blueprint "lem:satisfiesCriticalIneq-linear"
  (statement := /-- For a design of rank $r \ge 1$, $n \ge 1$ and $\sigma > 0$, the radius $\delta^*
    = 192\,\sigma\sqrt{r/n}$ satisfies the critical inequality for $\mathcal F_{\mathrm{lin}}$
    (\cref{def:SatisfiesCriticalIneq}). (Wainwright 2019, Example 13.8.) -/)
  (proof := /-- $\delta^* > 0$ since $r, n \ge 1$ (\texttt{Real.sqrt\_pos}, \texttt{div\_pos}). By
    \cref{lem:localGaussComplexity-linear-le}, $\mathcal G_n(\delta^*) \le 96\delta^*\sqrt{r/n} =
    96\delta^*\cdot\delta^*/(192\sigma) = (\delta^*)^2/(2\sigma)$ (\texttt{field\_simp},
    \texttt{ring}, \texttt{ENNReal.ofReal\_le\_ofReal}). -/)
  (title := "Critical radius of the linear class")
  (latexEnv := "lemma")]
theorem satisfiesCriticalIneq_linear {n d : ℕ} (x : Fin n → EuclideanSpace ℝ (Fin d)) {σ : ℝ}
    (hσ : 0 < σ) (hn : 0 < n) (hr : 1 ≤ designRank x) :
    SatisfiesCriticalIneq x (linearClass d) σ (192 * σ * Real.sqrt ((designRank x : ℝ) / n)) := by
  sorry_using [localGaussComplexity_linear_le]

@[blueprint "thm:linear-regression-rate"
  (statement := /-- \textbf{Least squares for linear regression.} Let $M$ be a regression model with
    design in $\mathbb R^d$ of rank $r$, class $\mathcal F = \mathcal F_{\mathrm{lin}}$ and a
    least-squares estimator $\hat f$. Then $\gamma_n\big(\|\hat f - f^*\|_n^2 > 16\cdot
    192^2\,\sigma^2 r/n\big) \le e^{-192^2 r/2}$ (outer measure). (Wainwright 2019, Example 13.8:
    the $\sigma^2 r/n$ rate.) -/)
  (proof := /-- If $r = 0$ the right-hand side is $e^{0} = 1$ (\texttt{Real.exp\_zero},
    \texttt{ENNReal.ofReal\_one}) and every set has outer measure at most $1$ under a probability
    measure (\texttt{MeasureTheory.prob\_le\_one}). If $r \ge 1$: by
    \cref{lem:linearClass-shifted-eq-and-isStarShaped} (with $f^* \in \mathcal F$) the shifted class
    is $\mathcal F_{\mathrm{lin}}$, which is star-shaped; by
    \cref{lem:satisfiesCriticalIneq-linear}, $\delta^* = 192\sigma\sqrt{r/n}$ satisfies the
    critical inequality. Apply \cref{thm:master-error-bound} with $t = \delta = \delta^*$:
    $16t\delta = 16\cdot 192^2\sigma^2 r/n$ and $nt\delta/(2\sigma^2) = 192^2 r/2$
    (\texttt{Real.sq\_sqrt},
    \texttt{field\_simp}; $n > 0$ from field \texttt{n\_pos}). -/)
  (title := "Linear regression rate")
  (latexEnv := "theorem")]
theorem linear_regression_rate {n d : ℕ} (M : RegressionModel (EuclideanSpace ℝ (Fin d)) n)
    (hF : M.F = linearClass d)
    {fhat : EuclideanSpace ℝ (Fin n) → EuclideanSpace ℝ (Fin d) → ℝ}
    (hfhat : IsLeastSquares M fhat) :
    stdGaussian (EuclideanSpace ℝ (Fin n))
        {w | 16 * 192 ^ 2 * M.σ ^ 2 * (designRank M.x : ℝ) / n <
          empNorm M.x (fhat w - M.fStar) ^ 2} ≤
      ENNReal.ofReal (Real.exp (-(192 ^ 2 * (designRank M.x : ℝ) / 2))) := by
  sorry_using [master_error_bound, linearClass_shifted_eq_and_isStarShaped,
    satisfiesCriticalIneq_linear]

@[blueprint "cor:linear-regression-rate-good-event"
  (statement := /-- Under the hypotheses of \cref{thm:linear-regression-rate},
    $\gamma_n^*\big(\|\hat f - f^*\|_n^2 \le 16\cdot 192^2\,\sigma^2 r/n\big) \ge 1 -
    e^{-192^2 r/2}$ (outer measure; weaker than the theorem for non-measurable events). -/)
  (proof := /-- As in \cref{cor:master-error-bound-good-event}: the good and bad events cover the
    space (\texttt{Set.ext}, \texttt{not\_lt}), so \texttt{MeasureTheory.measure\_univ},
    \texttt{MeasureTheory.measure\_union\_le} and \texttt{tsub\_le\_iff\_right} turn the bound of
    \cref{thm:linear-regression-rate} on the bad event into this one. -/)
  (title := "Linear regression rate, good-event form")
  (latexEnv := "corollary")]
theorem linear_regression_rate_good_event {n d : ℕ}
    (M : RegressionModel (EuclideanSpace ℝ (Fin d)) n) (hF : M.F = linearClass d)
    {fhat : EuclideanSpace ℝ (Fin n) → EuclideanSpace ℝ (Fin d) → ℝ}
    (hfhat : IsLeastSquares M fhat) :
    1 - ENNReal.ofReal (Real.exp (-(192 ^ 2 * (designRank M.x : ℝ) / 2))) ≤
      stdGaussian (EuclideanSpace ℝ (Fin n))
        {w | empNorm M.x (fhat w - M.fStar) ^ 2 ≤
          16 * 192 ^ 2 * M.σ ^ 2 * (designRank M.x : ℝ) / n} := by
  sorry_using [linear_regression_rate]

end SLT
