import Mathlib.Topology.MetricSpace.CoveringNumbers
import Mathlib.Analysis.Normed.Module.FiniteDimension
import Mathlib.MeasureTheory.Measure.Lebesgue.Basic
import Mathlib.Analysis.SpecialFunctions.Pow.Real
import Architect

/-!
# Covering numbers and the Dudley entropy integral (layer B of the SLT blueprint)

Metric entropy on top of Mathlib's covering API (`Metric.IsCover`, `Metric.coveringNumber`,
`Metric.packingNumber`): finiteness for totally bounded sets, monotonicity, behaviour under
isometries and Lipschitz maps, the volumetric bound for balls in finite dimension, and the Dudley
entropy integral. Covering numbers are Mathlib's *internal* ones (centres in the set), with values
in `ℕ∞` and radii in `ℝ≥0`.

The Dudley integrand and integral take values in `ℝ≥0∞`: the integrand is `⊤` when the covering
number is infinite, so no finiteness side condition is needed downstream.

## Main definitions

* `dudleyIntegrand T ε`: `⊤` if `N(ε, T) = ⊤`, else `√(log N(ε, T))`.
* `dudleyIntegral T D = ∫⁻ ε in (0, D], dudleyIntegrand T ε`.

## Main statements

* `coveringNumber_ne_top_of_totallyBounded`, `coveringNumber_antitone_and_eq_one`,
  `coveringNumber_image_le`: basic properties.
* `packingNumber_closedBall_le`, `coveringNumber_closedBall_le`: `N(ε, B(0,R)) ≤ (1 + 2R/ε)^d`.
* `coveringNumber_submodule_inter_closedBall_le`: the same bound for balls of a subspace.
* `sum_dyadic_le_dudleyIntegral`: the dyadic sum is at most twice the entropy integral to `D/2`.
* `lintegral_sqrt_log_le`, `dudleyIntegral_submodule_ball_le`: `J(W ∩ B(0,δ), 2δ) ≤ 4δ√(dim W)`.

## References

* [R. Vershynin, *High-Dimensional Probability*, 2018], §4.2 and §8.1.
* [M. J. Wainwright, *High-Dimensional Statistics*, 2019], §5.1 and §5.3.
* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], §13.1.
-/

open MeasureTheory Metric
open scoped ENNReal NNReal

namespace SLT

@[blueprint "lem:coveringNumber-ne-top-of-totallyBounded"
  (statement := /-- If $T$ is totally bounded and $\varepsilon > 0$, then the internal covering
    number $N(\varepsilon, T)$ is finite and is attained: some finite $\varepsilon$-cover $C
    \subseteq T$ has $|C| = N(\varepsilon, T)$. (Vershynin 2018, Def. 4.2.2 and Remark 4.2.3.) -/)
  (proof := /-- \texttt{Metric.exists\_finite\_isCover\_of\_totallyBounded} gives a finite internal
    cover $C_0 \subseteq T$, so \texttt{IsCover.coveringNumber\_le\_encard} bounds $N(\varepsilon,T)
    \le |C_0| < \top$ (\texttt{Set.Finite.encard\_lt\_top}). Attainment is
    \texttt{Metric.exists\_set\_encard\_eq\_coveringNumber} applied to this finiteness. -/)
  (title := "Finite covering numbers of totally bounded sets")
  (latexEnv := "lemma")]
theorem coveringNumber_ne_top_of_totallyBounded {E : Type*} [PseudoMetricSpace E] {T : Set E}
    (hT : TotallyBounded T) {ε : ℝ≥0} (hε : ε ≠ 0) :
    coveringNumber ε T ≠ ⊤ ∧
      ∃ C ⊆ T, C.Finite ∧ IsCover ε T C ∧ C.encard = coveringNumber ε T := by
  sorry_using []

@[blueprint "lem:coveringNumber-antitone-and-eq-one"
  (statement := /-- For every set $T$, $\varepsilon \mapsto N(\varepsilon, T)$ is antitone on
    $[0,\infty)$, and if $T \neq \emptyset$ and all pairwise distances in $T$ are at most
    $\varepsilon$ then $N(\varepsilon, T) = 1$. (Vershynin 2018, §4.2.) -/)
  (proof := /-- Antitonicity is \texttt{Metric.coveringNumber\_anti}. For the second claim, the
    distance bound gives $\mathrm{ediam}\,T \le \varepsilon$ (\texttt{EMetric.diam\_le} with
    \texttt{edist\_dist} and \texttt{ENNReal.ofReal\_le\_ofReal}; the extended diameter may be
    spelled \texttt{Metric.ediam} at the pinned tag), and
    \texttt{Metric.coveringNumber\_eq\_one\_of\_ediam\_le} concludes. -/)
  (title := "Monotonicity of covering numbers")
  (latexEnv := "lemma")]
theorem coveringNumber_antitone_and_eq_one {E : Type*} [PseudoMetricSpace E] (T : Set E) :
    Antitone (fun ε : ℝ≥0 ↦ coveringNumber ε T) ∧
      ∀ ε : ℝ≥0, T.Nonempty → (∀ x ∈ T, ∀ y ∈ T, dist x y ≤ ε) → coveringNumber ε T = 1 := by
  sorry_using []

@[blueprint "lem:coveringNumber-image-le"
  (statement := /-- Let $f : E \to F$. If $f$ is an isometry that is injective on $T$, then
    $N(\varepsilon, f(T)) = N(\varepsilon, T)$. If $f$ is $K$-Lipschitz, then $N(K\varepsilon, f(T))
    \le N(\varepsilon, T)$. (Vershynin 2018, Exercise 4.2.9.) -/)
  (proof := /-- The isometry case is \texttt{Isometry.coveringNumber\_image'}. For the Lipschitz
    case, unfold \texttt{Metric.coveringNumber} as an infimum (\texttt{le\_iInf\_iff}); for an
    internal cover $C \subseteq T$, \texttt{Metric.IsCover.image\_lipschitz} shows that $f(C)$ is a
    $K\varepsilon$-cover of $f(T)$, it lies in $f(T)$ (\texttt{Set.image\_mono}), and $|f(C)| \le
    |C|$ (\texttt{Set.encard\_image\_le}); conclude with
    \texttt{IsCover.coveringNumber\_le\_encard}. -/)
  (title := "Covering numbers under isometries and Lipschitz maps")
  (latexEnv := "lemma")]
theorem coveringNumber_image_le {E F : Type*} [PseudoMetricSpace E] [PseudoMetricSpace F]
    {f : E → F} (T : Set E) (ε : ℝ≥0) :
    (Isometry f → Set.InjOn f T → coveringNumber ε (f '' T) = coveringNumber ε T) ∧
      ∀ K : ℝ≥0, LipschitzWith K f → coveringNumber (K * ε) (f '' T) ≤ coveringNumber ε T := by
  sorry_using []

@[blueprint "lem:packingNumber-closedBall-le"
  (statement := /-- Let $E$ be a real normed space of finite dimension $d$, $\varepsilon > 0$ and $R
    \ge 0$. Then every $\varepsilon$-separated subset of the closed ball $B(0,R)$ has at most $(1 +
    2R/\varepsilon)^d$ points; that is, the packing number of $B(0,R)$ is finite and at most $(1 +
    2R/\varepsilon)^d$. (Vershynin 2018, Prop. 4.2.12; Wainwright 2019, Example 5.8.) -/)
  (proof := /-- Equip $E$ with its Borel $\sigma$-algebra and an additive Haar measure $\mu$
    (\texttt{borelize}, \texttt{MeasureTheory.Measure.addHaar}). Let $S \subseteq B(0,R)$ be
    $\varepsilon$-separated (\texttt{Metric.IsSeparated}: distinct points at distance $>
    \varepsilon$). The open balls $B(x,\varepsilon/2)$, $x \in S$, are pairwise disjoint and
    contained in $B(0, R+\varepsilon/2)$. For finite $S' \subseteq S$,
    \texttt{MeasureTheory.measure\_biUnion\_finset₀} and
    \texttt{MeasureTheory.Measure.addHaar\_ball} (stated for \texttt{Nontrivial E}; treat $d = 0$
    separately) ($\mu B(x,\rho) = \rho^d \mu B(0,1)$, with $0 < \mu B(0,1) < \infty$ by
    \texttt{measure\_ball\_pos} and \texttt{measure\_ball\_lt\_top}) give $|S'| (\varepsilon/2)^d
    \le (R + \varepsilon/2)^d$, so $|S'| \le (1+2R/\varepsilon)^d$. Hence every separated subset is
    finite with that bound, and \texttt{Metric.packingNumber} (a supremum of \texttt{encard}) is at
    most it (\texttt{iSup\_le}); convert with \texttt{ENat.toNat} and \texttt{ENat.coe\_toNat}. The
    case $d = 0$ is included. -/)
  (title := "Volumetric packing bound")
  (latexEnv := "lemma")]
theorem packingNumber_closedBall_le {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    [FiniteDimensional ℝ E] {ε : ℝ≥0} (hε : ε ≠ 0) {R : ℝ} (hR : 0 ≤ R) :
    packingNumber ε (closedBall (0 : E) R) ≠ ⊤ ∧
      ((packingNumber ε (closedBall (0 : E) R)).toNat : ℝ) ≤
        (1 + 2 * R / (ε : ℝ)) ^ Module.finrank ℝ E := by
  sorry_using []

@[blueprint "lem:coveringNumber-closedBall-le"
  (statement := /-- In a real normed space of finite dimension $d$, for $\varepsilon > 0$ and $R \ge
    0$, the internal covering number of $B(0,R)$ satisfies $N(\varepsilon, B(0,R)) \le (1 +
    2R/\varepsilon)^d$ (in particular it is finite). (Vershynin 2018, Cor. 4.2.13.) -/)
  (proof := /-- \texttt{Metric.coveringNumber\_le\_packingNumber} gives $N(\varepsilon, B) \le
    P(\varepsilon, B)$, and \cref{lem:packingNumber-closedBall-le} bounds the packing number;
    transfer through \texttt{ENat.toNat\_le\_toNat} (both are finite). -/)
  (title := "Volumetric covering bound for balls")
  (latexEnv := "lemma")]
theorem coveringNumber_closedBall_le {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    [FiniteDimensional ℝ E] {ε : ℝ≥0} (hε : ε ≠ 0) {R : ℝ} (hR : 0 ≤ R) :
    coveringNumber ε (closedBall (0 : E) R) ≠ ⊤ ∧
      ((coveringNumber ε (closedBall (0 : E) R)).toNat : ℝ) ≤
        (1 + 2 * R / (ε : ℝ)) ^ Module.finrank ℝ E := by
  sorry_using [packingNumber_closedBall_le]

@[blueprint "lem:coveringNumber-submodule-inter-closedBall-le"
  (statement := /-- Let $W$ be a finite-dimensional linear subspace of a real normed space $E$, with
    $\dim W = r$. For $\varepsilon > 0$ and $R \ge 0$, $N(\varepsilon, W \cap B(0,R)) \le (1 +
    2R/\varepsilon)^r$ (internal covering number in $E$). (Vershynin 2018, Cor. 4.2.13 applied
    inside $W$; used in Wainwright 2019, Example 13.8.) -/)
  (proof := /-- The inclusion \texttt{Subtype.val} $: W \to E$ is an injective isometry
    (\texttt{isometry\_subtype\_coe}), and $W \cap B_E(0,R)$ is the image of the ball $B_W(0,R)$ of
    the normed space $W$ (\texttt{Set.ext}, norms agree: \texttt{Submodule.coe\_norm}). By
    \cref{lem:coveringNumber-image-le} the covering numbers agree, and
    \cref{lem:coveringNumber-closedBall-le} applied to $W$ (a finite-dimensional normed space with
    \texttt{Module.finrank} $r$) gives the bound. -/)
  (title := "Covering balls of a linear subspace")
  (latexEnv := "lemma")]
theorem coveringNumber_submodule_inter_closedBall_le {E : Type*} [NormedAddCommGroup E]
    [NormedSpace ℝ E] (W : Submodule ℝ E) [FiniteDimensional ℝ W] {ε : ℝ≥0} (hε : ε ≠ 0)
    {R : ℝ} (hR : 0 ≤ R) :
    coveringNumber ε ((W : Set E) ∩ closedBall 0 R) ≠ ⊤ ∧
      ((coveringNumber ε ((W : Set E) ∩ closedBall 0 R)).toNat : ℝ) ≤
        (1 + 2 * R / (ε : ℝ)) ^ Module.finrank ℝ W := by
  sorry_using [coveringNumber_image_le, coveringNumber_closedBall_le]

@[blueprint "def:dudleyIntegrand"
  (statement := /-- The Dudley integrand of a set $T$ at scale $\varepsilon \in \mathbb R$ is
    $h(\varepsilon, T) = \top$ if $N(\varepsilon^+, T) = \top$, and $h(\varepsilon, T) = \sqrt{\log
    N(\varepsilon^+, T)} \in [0,\infty)$ otherwise (this is $0$ when $N \le 1$). Values are in
    $[0,\infty]$, so infinite covering numbers are not silently replaced by a junk value. (Vershynin
    2018, §8.1; Wainwright 2019, (5.47).) -/)
  (title := "Dudley integrand")
  (latexEnv := "definition")]
noncomputable def dudleyIntegrand {E : Type*} [PseudoMetricSpace E] (T : Set E) (ε : ℝ) :
    ℝ≥0∞ := by
  classical
  exact if coveringNumber ε.toNNReal T = ⊤ then ⊤
    else ENNReal.ofReal (Real.sqrt (Real.log ((coveringNumber ε.toNNReal T).toNat : ℝ)))

@[blueprint "def:dudleyIntegral"
  (statement := /-- The Dudley entropy integral of $T$ up to scale $D$ is $J(T, D) = \int_{(0, D]}
    h(\varepsilon, T)\, d\varepsilon \in [0,\infty]$, a lower Lebesgue integral of the integrand of
    \cref{def:dudleyIntegrand}. (Vershynin 2018, Thm. 8.1.3; Wainwright 2019, Thm. 5.22.) -/)
  (title := "Dudley entropy integral")
  (latexEnv := "definition")]
noncomputable def dudleyIntegral {E : Type*} [PseudoMetricSpace E] (T : Set E) (D : ℝ) : ℝ≥0∞ :=
  ∫⁻ ε in Set.Ioc 0 D, dudleyIntegrand T ε

@[blueprint "lem:dudleyIntegrand-antitone"
  (statement := /-- For every set $T$, $\varepsilon \mapsto h(\varepsilon, T)$
    (\cref{def:dudleyIntegrand}) is antitone on $\mathbb R$, hence measurable. -/)
  (proof := /-- If $\varepsilon \le \varepsilon'$ then $\varepsilon^+ \le \varepsilon'^+$
    (\texttt{Real.toNNReal\_le\_toNNReal}), so $N(\varepsilon'^+, T) \le N(\varepsilon^+, T)$ by
    \cref{lem:coveringNumber-antitone-and-eq-one}. The map $N \mapsto (\top \text{ if } N = \top
    \text{ else } \sqrt{\log N})$ is monotone on $\mathbb N_\infty$ (case split;
    \texttt{ENat.toNat\_le\_toNat}, \texttt{Real.log\_le\_log} for $N \ge 1$,
    \texttt{Real.log\_natCast\_nonneg}, \texttt{Real.sqrt\_le\_sqrt},
    \texttt{ENNReal.ofReal\_le\_ofReal}). Measurability is \texttt{Antitone.measurable}. -/)
  (title := "The Dudley integrand is antitone")
  (latexEnv := "lemma")]
theorem dudleyIntegrand_antitone {E : Type*} [PseudoMetricSpace E] (T : Set E) :
    Antitone (dudleyIntegrand T) ∧ Measurable (dudleyIntegrand T) := by
  sorry_using [coveringNumber_antitone_and_eq_one]

@[blueprint "lem:sum-dyadic-le-dudleyIntegral"
  (statement := /-- Let $D > 0$ and $\varepsilon_k = D 2^{-k}$. For every $K \in \mathbb N$,
    $\sum_{k=1}^{K} \varepsilon_k\, h(\varepsilon_k, T) \le 2 J(T, D/2)$ in $[0,\infty]$: the
    scales used are $\varepsilon_1 = D/2$ and below. (Dyadic comparison; BLM 2013, proof of Cor.
    13.2, whose integral runs to half the diameter; Vershynin 2018, proof of Thm. 8.1.3.) -/)
  (proof := /-- For each $k \ge 1$, $h(\cdot, T) \ge h(\varepsilon_k, T)$ on $(\varepsilon_{k+1},
    \varepsilon_k]$ by \cref{lem:dudleyIntegrand-antitone}, so $\varepsilon_k h(\varepsilon_k,T) =
    2(\varepsilon_k - \varepsilon_{k+1}) h(\varepsilon_k,T) \le 2\int_{(\varepsilon_{k+1},
    \varepsilon_k]} h$ (\texttt{MeasureTheory.setLIntegral\_mono\_ae} against the constant,
    \texttt{setLIntegral\_const}, \texttt{Real.volume\_Ioc}). The intervals $(\varepsilon_{k+1},
    \varepsilon_k]$, $1 \le k \le K$, are pairwise disjoint and contained in $(0, \varepsilon_1] =
    (0, D/2]$ (\texttt{Set.Ioc\_subset\_Ioc}), so the sum of the integrals is at most $J(T,
    D/2)$ (\texttt{MeasureTheory.lintegral\_biUnion\_finset₀} or induction with
    \texttt{MeasureTheory.lintegral\_union}, then \texttt{MeasureTheory.lintegral\_mono\_set}).
    Multiply by $2$ (\texttt{Finset.mul\_sum}). -/)
  (title := "Dyadic sums versus the entropy integral")
  (latexEnv := "lemma")]
theorem sum_dyadic_le_dudleyIntegral {E : Type*} [PseudoMetricSpace E] (T : Set E) {D : ℝ}
    (hD : 0 < D) (K : ℕ) :
    ∑ k ∈ Finset.Icc 1 K, ENNReal.ofReal (D / 2 ^ k) * dudleyIntegrand T (D / 2 ^ k) ≤
      2 * dudleyIntegral T (D / 2) := by
  sorry_using [dudleyIntegrand_antitone]

@[blueprint "lem:lintegral-sqrt-log-le"
  (statement := /-- For $\delta > 0$ and $r \ge 0$, $\int_{(0, 2\delta]} \sqrt{r \log(1 +
    2\delta/\varepsilon)}\, d\varepsilon \le 4\delta\sqrt r$. (Wainwright 2019, Example 5.24
    computation.) -/)
  (proof := /-- Pointwise, $\log(1 + x) \le x$ for $x > -1$
    (\texttt{Real.log\_le\_sub\_one\_of\_pos} applied to $1 + x$), so the integrand is at most
    $\sqrt{2 r\delta}\,\varepsilon^{-1/2}$ (\texttt{Real.sqrt\_le\_sqrt}, \texttt{Real.sqrt\_mul},
    \texttt{Real.sqrt\_inv}). Then \texttt{MeasureTheory.setLIntegral\_mono\_ae} and $\int_{(0,
    2\delta]} \varepsilon^{-1/2}\, d\varepsilon = 2\sqrt{2\delta}$ (\texttt{integral\_rpow} on the
    interval, converted with \texttt{ofReal\_integral\_eq\_lintegral\_ofReal} and
    \texttt{intervalIntegral.integral\_of\_le}). Finally $\sqrt{2r\delta}\cdot 2\sqrt{2\delta} =
    4\delta\sqrt r$. -/)
  (title := "An elementary entropy integral")
  (latexEnv := "lemma")]
theorem lintegral_sqrt_log_le {δ : ℝ} (hδ : 0 < δ) {r : ℝ} (hr : 0 ≤ r) :
    ∫⁻ ε in Set.Ioc 0 (2 * δ), ENNReal.ofReal (Real.sqrt (r * Real.log (1 + 2 * δ / ε))) ≤
      ENNReal.ofReal (4 * δ * Real.sqrt r) := by
  sorry_using []

@[blueprint "lem:dudleyIntegral-submodule-ball-le"
  (statement := /-- Let $W$ be a linear subspace of dimension $r$ of a real normed space and $\delta
    > 0$. Then $J(W \cap B(0,\delta), 2\delta) \le 4\delta\sqrt r$. (Wainwright 2019, Example 5.24
    and Example 13.8.) -/)
  (proof := /-- For $\varepsilon \in (0, 2\delta]$,
    \cref{lem:coveringNumber-submodule-inter-closedBall-le} gives $N(\varepsilon, W \cap
    B(0,\delta)) \le (1 + 2\delta/\varepsilon)^r < \top$, so $h(\varepsilon) = \sqrt{\log N} \le
    \sqrt{r \log(1 + 2\delta/\varepsilon)}$ (\texttt{Real.log\_le\_log} when $N \ge 1$,
    \texttt{Real.log\_pow}; $\log 0 = 0$ when the set is empty). Hence $J \le \int_{(0,2\delta]}
    \sqrt{r\log(1+2\delta/\varepsilon)}$ by \texttt{MeasureTheory.setLIntegral\_mono\_ae}
    (measurability of the right side from continuity on $(0,\infty)$), and
    \cref{lem:lintegral-sqrt-log-le} concludes. -/)
  (title := "Entropy integral of a ball in a subspace")
  (latexEnv := "lemma")]
theorem dudleyIntegral_submodule_ball_le {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    (W : Submodule ℝ E) [FiniteDimensional ℝ W] {δ : ℝ} (hδ : 0 < δ) :
    dudleyIntegral ((W : Set E) ∩ closedBall 0 δ) (2 * δ) ≤
      ENNReal.ofReal (4 * δ * Real.sqrt (Module.finrank ℝ W)) := by
  sorry_using [coveringNumber_submodule_inter_closedBall_le, lintegral_sqrt_log_le]

end SLT
