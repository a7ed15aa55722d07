import Blueprint.SLT.Subgaussian
import Blueprint.SLT.Covering
import Architect

/-!
# Sub-Gaussian processes, chaining and Dudley's bound (layer C of the SLT blueprint)

A process `X : E → Ω → ℝ` indexed by a pseudo-metric space is `σ`-sub-Gaussian on `T` if every
increment `X s - X t` (`s, t ∈ T`) satisfies Mathlib's `HasSubgaussianMGF` with variance proxy
`(σ d(s,t))²`. We prove Dudley's entropy bound by finite-level chaining along dyadic nets.

Expected suprema are stated as lower Lebesgue integrals of `⨆ t ∈ T, ENNReal.ofReal (…)`: the
quantities are nonnegative (because `t₀ ∈ T`), no integrability or `BddAbove` hypotheses are
needed, and the entropy integral may be `⊤`.

Proofs use nodes of the earlier layers (`Blueprint/SLT/Subgaussian.lean`,
`Blueprint/SLT/Covering.lean`) like same-file nodes: in `sorry_using` and by `\cref`.

## Main definitions

* `IsSubgaussianProcess X T σ μ`.
* `ChainingNets T t₀ D`: nets `N_k ⊆ T` at scales `D 2^{-k}` with `N_0 = {t₀}` and projections.
* `linkSet c k`: the finite set of links between consecutive nets.

## Main statements

* `integral_sup_increment_le`: expected maxima of finitely many increments.
* `integral_sup_chaining_level_le`, `integral_sup_finset_le`: chaining bounds for finite sets.
* `integral_sup_finset_le_one_step`, `integral_sup_finset_le_truncated`: the one-step
  discretization bound and the truncated Dudley bound (Wainwright 2019, Prop. 5.17, Thm. 5.22).
* `dudley_entropy_bound`: `E sup_{t ∈ T} (X_t - X_{t₀}) ≤ 12 σ J(T, D/2)` (BLM 2013, Cor. 13.2).
* `exists_countable_dense_sup_eq`: separability from continuous paths.
* `dudley_entropy_bound_abs`: `E sup_{t ∈ T} |X_t - X_{t₀}| ≤ 24 σ J(T, D/2)`.

## References

* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], §13.1.
* [R. Vershynin, *High-Dimensional Probability*, 2018], §8.1.
* [M. J. Wainwright, *High-Dimensional Statistics*, 2019], §5.3.
-/

open MeasureTheory ProbabilityTheory Metric
open scoped ENNReal NNReal

namespace SLT

variable {Ω E : Type*} {mΩ : MeasurableSpace Ω} {μ : Measure Ω} [PseudoMetricSpace E]

@[blueprint "def:IsSubgaussianProcess"
  (statement := /-- A real process $(X_t)_{t\in E}$ on $(\Omega,\mu)$ is $\sigma$-sub-Gaussian on $T
    \subseteq E$ if for all $s, t \in T$ the increment $X_s - X_t$ satisfies $\mathrm{SG}(X_s - X_t,
    \sigma^2 d(s,t)^2)$ (Mathlib's \texttt{HasSubgaussianMGF}, which includes integrability of every
    $e^{\lambda(X_s - X_t)}$). (BLM 2013, §13.1; Vershynin 2018, Def. 8.1.1.) -/)
  (title := "Sub-Gaussian process")
  (latexEnv := "definition")]
def IsSubgaussianProcess (X : E → Ω → ℝ) (T : Set E) (σ : ℝ≥0) (μ : Measure Ω) : Prop :=
  ∀ s ∈ T, ∀ t ∈ T, HasSubgaussianMGF (fun ω ↦ X s ω - X t ω) ((σ * nndist s t) ^ 2) μ

@[blueprint "lem:subgaussianProcess-increment-props"
  (statement := /-- Let $\mu$ be a probability measure and $X$ a $\sigma$-sub-Gaussian process on
    $T$ (\cref{def:IsSubgaussianProcess}). For $s, t \in T$: if $d(s,t) = 0$ then $X_s = X_t$ a.s.;
    $\mathbb E(X_s - X_t) = 0$; and $\mathbb E|X_s - X_t| \le \sqrt{2\pi}\,\sigma d(s,t)$. -/)
  (proof := /-- If $d(s,t) = 0$ the variance proxy is $0$ and
    \texttt{HasSubgaussianMGF.ae\_eq\_zero\_of\_hasSubgaussianMGF\_zero} gives $X_s - X_t = 0$ a.s.
    (then \texttt{Filter.EventuallyEq} via \texttt{sub\_eq\_zero}). The mean is $0$ by
    \cref{lem:subgaussian-integral-eq-zero}. The absolute moment bound is
    \cref{lem:subgaussian-integral-abs-le} with $c = (\sigma d)^2$ and $\sqrt{2\pi(\sigma d)^2} =
    \sqrt{2\pi}\,\sigma d$ (\texttt{Real.sqrt\_mul}, \texttt{Real.sqrt\_sq}). -/)
  (title := "Increments of a sub-Gaussian process")
  (latexEnv := "lemma")]
theorem subgaussianProcess_increment_props [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) {s t : E} (hs : s ∈ T) (ht : t ∈ T) :
    (dist s t = 0 → X s =ᵐ[μ] X t) ∧ ∫ ω, (X s ω - X t ω) ∂μ = 0 ∧
      ∫ ω, |X s ω - X t ω| ∂μ ≤ Real.sqrt (2 * Real.pi) * σ * dist s t := by
  sorry_using [subgaussian_integral_eq_zero, subgaussian_integral_abs_le]

@[blueprint "lem:integral-sup-increment-le"
  (statement := /-- Let $\mu$ be a probability measure, $X$ a $\sigma$-sub-Gaussian process on $T$
    and $S$ a finite nonempty set of pairs in $T \times T$ with $d(s,s') \le \rho$ for all $(s,s')
    \in S$. Then $\mathbb E \max_{(s,s')\in S}(X_s - X_{s'}) \le \sigma\rho\sqrt{2\log|S|}$ and
    $\mathbb E \max_{(s,s')\in S}|X_s - X_{s'}| \le \sigma\rho\sqrt{2\log(2|S|)}$. (BLM 2013, proof
    of Thm. 13.1; Vershynin 2018, proof of Thm. 8.1.3.) -/)
  (proof := /-- Each increment is $\mathrm{SG}(\cdot, (\sigma d(s,s'))^2)$ by
    \cref{def:IsSubgaussianProcess}; since $(\sigma d)^2 \le (\sigma\rho)^2$
    (\texttt{mul\_le\_mul\_left'}, \texttt{pow\_le\_pow\_left}) it is also $\mathrm{SG}(\cdot,
    (\sigma\rho)^2)$ by \cref{lem:subgaussian-mono}. Apply
    \cref{lem:integral-sup-le-of-subgaussian} and \cref{lem:integral-sup-abs-le-of-subgaussian}
    with index set $S$ and $c = (\sigma\rho)^2$, then $\sqrt{2 (\sigma\rho)^2 \log N} =
    \sigma\rho\sqrt{2\log N}$ (\texttt{Real.sqrt\_mul'}, \texttt{Real.sqrt\_sq}; $\rho \ge 0$
    because $S \neq \emptyset$). -/)
  (title := "Expected maximum of finitely many increments")
  (latexEnv := "lemma")]
theorem integral_sup_increment_le [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) (S : Finset (E × E)) (hS : S.Nonempty)
    (hST : ∀ p ∈ S, p.1 ∈ T ∧ p.2 ∈ T) {ρ : ℝ} (hρ : ∀ p ∈ S, dist p.1 p.2 ≤ ρ) :
    ∫ ω, S.sup' hS (fun p ↦ X p.1 ω - X p.2 ω) ∂μ ≤
        σ * ρ * Real.sqrt (2 * Real.log (S.card : ℝ)) ∧
      ∫ ω, S.sup' hS (fun p ↦ |X p.1 ω - X p.2 ω|) ∂μ ≤
        σ * ρ * Real.sqrt (2 * Real.log (2 * S.card : ℝ)) := by
  sorry_using [subgaussian_mono, integral_sup_le_of_subgaussian,
    integral_sup_abs_le_of_subgaussian]

@[blueprint "def:ChainingNets"
  (statement := /-- A chaining system for $T$ with base point $t_0$ and scale $D$ consists of finite
    sets $N_k \subseteq T$ ($k \in \mathbb N$) with $N_0 = \{t_0\}$ and $|N_k| \le N(D 2^{-k}, T)$
    for $k \ge 1$, and maps $\pi_k$ with $\pi_k(t) \in N_k$ and $d(t, \pi_k(t)) \le D 2^{-k}$ for
    all $t \in T$. (BLM 2013, proof of Thm. 13.1; Vershynin 2018, proof of Thm. 8.1.3.) -/)
  (title := "Dyadic chaining nets")
  (latexEnv := "definition")]
structure ChainingNets (T : Set E) (t₀ : E) (D : ℝ) where
  net : ℕ → Finset E
  proj : ℕ → E → E
  net_zero : net 0 = {t₀}
  net_subset : ∀ k, (net k : Set E) ⊆ T
  card_net_le : ∀ k, 1 ≤ k → ((net k).card : ℕ∞) ≤ coveringNumber (D / 2 ^ k).toNNReal T
  proj_mem : ∀ k, ∀ t ∈ T, proj k t ∈ net k
  dist_proj_le : ∀ k, ∀ t ∈ T, dist t (proj k t) ≤ D / 2 ^ k

@[blueprint "lem:exists-chainingNets"
  (statement := /-- If $T$ is totally bounded, $t_0 \in T$, $D > 0$ and all pairwise distances in
    $T$ are at most $D$, then a chaining system (\cref{def:ChainingNets}) for $T$, $t_0$, $D$
    exists. -/)
  (proof := /-- For $k \ge 1$ take $N_k$ a minimal internal $D2^{-k}$-cover:
    \cref{lem:coveringNumber-ne-top-of-totallyBounded} gives a finite $C_k \subseteq T$ covering
    $T$ with $|C_k| = N(D2^{-k}, T)$; convert with \texttt{Set.Finite.toFinset}
    (\texttt{Set.Finite.encard\_eq\_coe\_toFinset\_card}). Put $N_0 = \{t_0\}$. Define $\pi_k(t)$ by
    \texttt{Classical.choose} from the cover property (\texttt{Metric.IsCover}: some $c \in C_k$
    with $\mathrm{edist}\,t\,c \le D2^{-k}$, converted by \texttt{edist\_le\_ofReal}), and $\pi_0(t)
    = t_0$, using $d(t,t_0) \le D$. Outside $T$ the maps are arbitrary (e.g. $t_0$). -/)
  (title := "Existence of chaining nets")
  (latexEnv := "lemma")]
theorem exists_chainingNets {T : Set E} (hT : TotallyBounded T) {t₀ : E} (ht₀ : t₀ ∈ T) {D : ℝ}
    (hD : 0 < D) (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D) :
    Nonempty (ChainingNets T t₀ D) := by
  sorry_using [coveringNumber_ne_top_of_totallyBounded]

@[blueprint "def:linkSet"
  (statement := /-- For a chaining system $c$ (\cref{def:ChainingNets}) and $k \ge 1$, the link set
    $P_k$ is the set of pairs $(s, s') \in N_k \times N_{k-1}$ with $d(s,s') \le 3 D 2^{-k}$. -/)
  (title := "Links between consecutive nets")
  (latexEnv := "definition")]
noncomputable def linkSet {T : Set E} {t₀ : E} {D : ℝ} (c : ChainingNets T t₀ D) (k : ℕ) :
    Finset (E × E) :=
  (c.net k ×ˢ c.net (k - 1)).filter (fun p ↦ dist p.1 p.2 ≤ 3 * (D / 2 ^ k))

@[blueprint "lem:linkSet-props"
  (statement := /-- Let $c$ be a chaining system for $T$, $t_0$, $D$ and $k \ge 1$. Then $(\pi_k t,
    \pi_{k-1} t) \in P_k$ for every $t \in T$, every pair in $P_k$ lies in $T \times T$, and $|P_k|
    \le N(D 2^{-k}, T)^2$ (\cref{def:linkSet}). (BLM 2013, proof of Thm. 13.1.) -/)
  (proof := /-- Membership: $\pi_k t \in N_k$, $\pi_{k-1}t \in N_{k-1}$ (field \texttt{proj\_mem}),
    and $d(\pi_k t, \pi_{k-1} t) \le d(\pi_k t, t) + d(t, \pi_{k-1} t) \le D2^{-k} + D2^{-(k-1)} =
    3D2^{-k}$ (\texttt{dist\_triangle}, \texttt{dist\_comm}, field \texttt{dist\_proj\_le},
    \texttt{pow\_succ}); use \texttt{Finset.mem\_filter} and \texttt{Finset.mem\_product}. Pairs lie
    in $T$ by field \texttt{net\_subset}. Cardinality: \texttt{Finset.card\_filter\_le} and
    \texttt{Finset.card\_product} give $|P_k| \le |N_k|\,|N_{k-1}|$. Field \texttt{card\_net\_le}
    bounds $|N_k|$; for $k \ge 2$, $|N_{k-1}| \le N(D2^{-(k-1)}, T) \le N(D2^{-k}, T)$ by
    \cref{lem:coveringNumber-antitone-and-eq-one}; for $k = 1$, $|N_0| = 1 \le N(D/2, T)$ since
    $t_0 \in T$ (\texttt{Metric.coveringNumber\_pos\_iff}). Multiply in $\mathbb N_\infty$
    (\texttt{mul\_le\_mul'}, \texttt{sq}). -/)
  (title := "Properties of the link sets")
  (latexEnv := "lemma")]
theorem linkSet_props {T : Set E} {t₀ : E} {D : ℝ} (c : ChainingNets T t₀ D) {k : ℕ}
    (hk : 1 ≤ k) :
    (∀ t ∈ T, (c.proj k t, c.proj (k - 1) t) ∈ linkSet c k) ∧
      (∀ p ∈ linkSet c k, p.1 ∈ T ∧ p.2 ∈ T) ∧
      ((linkSet c k).card : ℕ∞) ≤ coveringNumber (D / 2 ^ k).toNNReal T ^ 2 := by
  sorry_using [coveringNumber_antitone_and_eq_one]

@[blueprint "lem:chaining-telescoping"
  (statement := /-- For a chaining system $c$ (\cref{def:ChainingNets}), any process $X$, $K \in
    \mathbb N$ and $t \in T$: $X_{\pi_K t} - X_{t_0} = \sum_{k=1}^{K} (X_{\pi_k t} - X_{\pi_{k-1}
    t})$ pointwise. (BLM 2013, proof of Thm. 13.1.) -/)
  (proof := /-- First $\pi_0 t = t_0$: $\pi_0 t \in N_0 = \{t_0\}$ (fields \texttt{proj\_mem},
    \texttt{net\_zero}, \texttt{Finset.mem\_singleton}). Then the sum telescopes: rewrite
    \texttt{Finset.Icc} $1\,K$ as the image of \texttt{Finset.range} $K$ under $k \mapsto k+1$
    (\texttt{Finset.sum\_Icc\_eq\_sum\_range} or \texttt{Finset.range\_eq\_Ico} with
    \texttt{Finset.sum\_Ico\_eq\_sum\_range}) and apply \texttt{Finset.sum\_range\_sub}; or induct
    on $K$ with \texttt{Finset.sum\_Icc\_succ\_top}. -/)
  (title := "Chaining telescoping identity")
  (latexEnv := "lemma")]
theorem chaining_telescoping {T : Set E} {t₀ : E} {D : ℝ} (c : ChainingNets T t₀ D)
    (X : E → Ω → ℝ) (K : ℕ) {t : E} (ht : t ∈ T) (ω : Ω) :
    X (c.proj K t) ω - X t₀ ω =
      ∑ k ∈ Finset.Icc 1 K, (X (c.proj k t) ω - X (c.proj (k - 1) t) ω) := by
  sorry_using []

@[blueprint "lem:integral-sup-chaining-level-le"
  (statement := /-- Let $\mu$ be a probability measure, $X$ a $\sigma$-sub-Gaussian process on $T$,
    $c$ a chaining system for $T$, $t_0$, $D > 0$, $K \in \mathbb N$ and $F \subseteq T$ finite and
    nonempty. With $\varepsilon_k = D2^{-k}$ and $h$ the Dudley integrand, $\mathbb E \max_{t\in
    F}(X_{\pi_K t} - X_{t_0}) \le 6\sigma\sum_{k=1}^K \varepsilon_k h(\varepsilon_k, T) \le 12\sigma
    J(T, D/2)$, the left side read through $x \mapsto x^+$ in $[0,\infty]$. (BLM 2013, proof of
    Thm. 13.1 and Cor. 13.2.) -/)
  (proof := /-- Pointwise, by \cref{lem:chaining-telescoping} and \cref{lem:linkSet-props}, for each
    $t \in F$: $X_{\pi_K t} - X_{t_0} = \sum_{k=1}^K (X_{\pi_k t} - X_{\pi_{k-1}t}) \le \sum_{k=1}^K
    M_k$ with $M_k = \max_{(s,s') \in P_k}(X_s - X_{s'})$ ($P_k \ni (\pi_k t, \pi_{k-1} t)$, so $P_k
    \neq \emptyset$; \texttt{Finset.le\_sup'}). So $\max_{t\in F} \le \sum_k M_k$
    (\texttt{Finset.sup'\_le}) and, all terms being integrable (finite maxima of integrable
    functions: \texttt{HasSubgaussianMGF.integrable}), $\mathbb E\max \le \sum_k \mathbb E M_k$
    (\texttt{integral\_mono}, \texttt{integral\_finsetSum}). If $T$'s covering numbers are
    infinite at some $\varepsilon_k$ the middle term is $\top$ (or $\sigma = 0$ and all increments
    vanish a.s.); otherwise, by \cref{lem:integral-sup-increment-le} with $\rho = 3\varepsilon_k$:
    $\mathbb E M_k \le 3\sigma\varepsilon_k\sqrt{2\log |P_k|} \le 3\sigma\varepsilon_k\sqrt{2\log
    N(\varepsilon_k)^2} = 6\sigma\varepsilon_k\sqrt{\log N(\varepsilon_k)}$ (\texttt{Real.log\_pow},
    monotonicity of $\log$; if $|P_k| = 1$ the bound is $0$, still fine). Convert to $[0,\infty]$
    with \texttt{ENNReal.ofReal\_le\_ofReal}, \texttt{ENNReal.ofReal\_sum\_of\_nonneg},
    \texttt{ENNReal.ofReal\_mul}. The second inequality is
    \cref{lem:sum-dyadic-le-dudleyIntegral} multiplied by $6\sigma$. -/)
  (title := "Finite-level chaining bound")
  (latexEnv := "lemma")]
theorem integral_sup_chaining_level_le [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) {t₀ : E} {D : ℝ} (hD : 0 < D)
    (c : ChainingNets T t₀ D) (K : ℕ) (F : Finset E) (hF : F.Nonempty) (hFT : (F : Set E) ⊆ T) :
    ENNReal.ofReal (∫ ω, F.sup' hF (fun t ↦ X (c.proj K t) ω - X t₀ ω) ∂μ) ≤
        ENNReal.ofReal (6 * σ) * ∑ k ∈ Finset.Icc 1 K,
          ENNReal.ofReal (D / 2 ^ k) * dudleyIntegrand T (D / 2 ^ k) ∧
      ENNReal.ofReal (∫ ω, F.sup' hF (fun t ↦ X (c.proj K t) ω - X t₀ ω) ∂μ) ≤
        ENNReal.ofReal (12 * σ) * dudleyIntegral T (D / 2) := by
  sorry_using [integral_sup_increment_le, linkSet_props, chaining_telescoping,
    sum_dyadic_le_dudleyIntegral]

@[blueprint "lem:integral-sup-finset-le"
  (statement := /-- Let $\mu$ be a probability measure, $X$ a $\sigma$-sub-Gaussian process on a
    totally bounded $T$, $t_0 \in T$, $D > 0$ with all pairwise distances in $T$ at most $D$, and $F
    \subseteq T$ finite and nonempty. Then $\mathbb E\max_{t\in F}(X_t - X_{t_0}) \le 12\sigma J(T,
    D/2)$ (left side read through $x\mapsto x^+$ in $[0,\infty]$). (BLM 2013, Thm. 13.1.) -/)
  (proof := /-- Fix a chaining system by \cref{lem:exists-chainingNets}. For each $K$: $X_t -
    X_{t_0} = (X_t - X_{\pi_K t}) + (X_{\pi_K t} - X_{t_0})$, so $\max_F(X_t - X_{t_0}) \le
    \max_F(X_t - X_{\pi_K t}) + \max_F(X_{\pi_K t} - X_{t_0})$ (\texttt{Finset.sup'\_le},
    \texttt{add\_le\_add}, \texttt{Finset.le\_sup'}). By \cref{lem:integral-sup-increment-le}
    applied to the pairs $\{(t, \pi_K t) : t \in F\}$ (\texttt{Finset.image}, at most $|F|$ of them,
    distances $\le D2^{-K}$), the first term has expectation at most $\sigma D
    2^{-K}\sqrt{2\log|F|}$; the second is bounded by \cref{lem:integral-sup-chaining-level-le}. If
    $J(T,D/2) = \top$ and $\sigma > 0$ there is nothing to prove. Otherwise let $K \to \infty$:
    $D2^{-K} \to 0$ (\texttt{tendsto\_pow\_atTop\_nhds\_zero\_of\_lt\_one}) and conclude with
    \texttt{ge\_of\_tendsto'} / \texttt{le\_of\_tendsto'} on the real inequality, then
    \texttt{ENNReal.ofReal\_le\_ofReal} and \texttt{ENNReal.ofReal\_toReal}. -/)
  (title := "Dudley's bound over finite sets")
  (latexEnv := "lemma")]
theorem integral_sup_finset_le [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E} {σ : ℝ≥0}
    (hX : IsSubgaussianProcess X T σ μ) (hT : TotallyBounded T) {t₀ : E} (ht₀ : t₀ ∈ T) {D : ℝ}
    (hD : 0 < D) (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D) (F : Finset E) (hF : F.Nonempty)
    (hFT : (F : Set E) ⊆ T) :
    ENNReal.ofReal (∫ ω, F.sup' hF (fun t ↦ X t ω - X t₀ ω) ∂μ) ≤
      ENNReal.ofReal (12 * σ) * dudleyIntegral T (D / 2) := by
  sorry_using [exists_chainingNets, integral_sup_increment_le, integral_sup_chaining_level_le]

@[blueprint "lem:integral-sup-finset-le-one-step"
  (statement := /-- \textbf{One-step discretization.} Let $\mu$ be a probability measure, $X$ a
    $\sigma$-sub-Gaussian process on $T$, $t_0 \in T$, $D$ a bound on all distances in $T$, $\delta
    \ge 0$ and $N \subseteq T$ a finite nonempty $\delta$-net of $T$. For every finite nonempty $F
    \subseteq T$: $\mathbb E\max_{t\in F}(X_t - X_{t_0}) \le \mathbb E\sup\{X_s - X_t : s, t \in
    T,\ d(s,t) \le \delta\} + \sigma D\sqrt{2\log|N|}$ (left side through $x \mapsto x^+$, the
    supremum as a lower integral in $[0,\infty]$). (Wainwright 2019, Prop. 5.17, one-sided form.)
    -/)
  (proof := /-- Choose for each $t \in F$ a point $\pi t \in N$ with $d(t, \pi t) \le \delta$
    (the net property; \texttt{Classical.choose}). Pointwise $X_t - X_{t_0} = (X_t - X_{\pi t}) +
    (X_{\pi t} - X_{t_0})$, so $\max_F(X_t - X_{t_0}) \le \max_F(X_t - X_{\pi t}) + \max_{s\in
    N}(X_s - X_{t_0})$ (\texttt{Finset.sup'\_le}, \texttt{Finset.le\_sup'},
    \texttt{add\_le\_add}). Integrate (finite maxima of integrable increments are integrable,
    \texttt{HasSubgaussianMGF.integrable}). The second term: \cref{lem:integral-sup-increment-le}
    with $S = N \times \{t_0\}$ ($|S| = |N|$, \texttt{Finset.card\_product}) and $\rho = D$.
    The first: $\mathrm{ofReal}(\mathbb E g) \le \int^-\mathrm{ofReal}\circ g$
    (\texttt{MeasureTheory.integral\_mono} against $g^+$, then
    \texttt{MeasureTheory.ofReal\_integral\_eq\_lintegral\_ofReal} and
    \texttt{ENNReal.ofReal\_max}) and each pair $(t, \pi t)$
    is admissible in the supremum (\texttt{le\_iSup₂}). Combine with
    \texttt{ENNReal.ofReal\_add}. -/)
  (title := "One-step discretization bound")
  (latexEnv := "lemma")]
theorem integral_sup_finset_le_one_step [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) {t₀ : E} (ht₀ : t₀ ∈ T) {D : ℝ}
    (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D) {δ : ℝ} (N : Finset E) (hN : N.Nonempty)
    (hNT : (N : Set E) ⊆ T) (hnet : ∀ t ∈ T, ∃ s ∈ N, dist t s ≤ δ) (F : Finset E)
    (hF : F.Nonempty) (hFT : (F : Set E) ⊆ T) :
    ENNReal.ofReal (∫ ω, F.sup' hF (fun t ↦ X t ω - X t₀ ω) ∂μ) ≤
      ∫⁻ ω, ⨆ s ∈ T, ⨆ t ∈ T, ⨆ (_ : dist s t ≤ δ), ENNReal.ofReal (X s ω - X t ω) ∂μ +
        ENNReal.ofReal (σ * D * Real.sqrt (2 * Real.log (N.card : ℝ))) := by
  sorry_using [integral_sup_increment_le]

@[blueprint "thm:integral-sup-finset-le-truncated"
  (statement := /-- \textbf{Truncated Dudley bound.} Let $\mu$ be a probability measure, $X$ a
    $\sigma$-sub-Gaussian process on a totally bounded $T$, $t_0 \in T$, $D > 0$ a bound on all
    distances in $T$ and $0 < \delta \le D$. For every finite nonempty $F \subseteq T$:
    $\mathbb E\max_{t\in F}(X_t - X_{t_0}) \le \mathbb E\sup\{X_s - X_t : s, t \in T,\ d(s,t) \le
    \delta\} + 12\sigma\int_{\delta/4}^{D/2} h(\varepsilon, T)\,d\varepsilon$ ($h$ the Dudley
    integrand; expectations of suprema as lower integrals in $[0,\infty]$). (Wainwright 2019, Thm.
    5.22, with the constants of our chaining: BLM 2013, proof of Thm. 13.1.) -/)
  (proof := /-- Fix a chaining system $c$ by \cref{lem:exists-chainingNets} and let $K \ge 1$ be
    the least integer with $\varepsilon_K = D2^{-K} \le \delta$ (\texttt{Nat.find}; it exists by
    \texttt{exists\_pow\_lt\_of\_lt\_one}); then $\varepsilon_{K-1} > \delta$, so
    $\varepsilon_{K+1} > \delta/4$. Pointwise $X_t - X_{t_0} = (X_t - X_{\pi_K t}) + (X_{\pi_K t}
    - X_{t_0})$ with $d(t, \pi_K t) \le \varepsilon_K \le \delta$ and $\pi_K t \in T$ (the
    chaining system's fields). The first maximum is bounded as in
    \cref{lem:integral-sup-finset-le-one-step}
    (\texttt{MeasureTheory.integral\_mono} against $g^+$, then
    \texttt{MeasureTheory.ofReal\_integral\_eq\_lintegral\_ofReal} and \texttt{ENNReal.ofReal\_max},
    \texttt{le\_iSup₂}). The second is at most $6\sigma\sum_{k=1}^K\varepsilon_k
    h(\varepsilon_k, T)$ by \cref{lem:integral-sup-chaining-level-le}, and, as in the proof of
    \cref{lem:sum-dyadic-le-dudleyIntegral} (antitone $h$ on each $(\varepsilon_{k+1},
    \varepsilon_k]$, \cref{lem:dudleyIntegrand-antitone}), this sum is at most
    $2\int_{(\varepsilon_{K+1},
    D/2]} h \le 2\int_{(\delta/4, D/2]} h$ (\texttt{MeasureTheory.lintegral\_mono\_set},
    \texttt{Set.Ioc\_subset\_Ioc\_left}). -/)
  (title := "Truncated Dudley bound")
  (latexEnv := "theorem")]
theorem integral_sup_finset_le_truncated [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) (hT : TotallyBounded T) {t₀ : E} (ht₀ : t₀ ∈ T)
    {D : ℝ} (hD : 0 < D) (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D) {δ : ℝ} (hδ : 0 < δ)
    (hδD : δ ≤ D) (F : Finset E) (hF : F.Nonempty) (hFT : (F : Set E) ⊆ T) :
    ENNReal.ofReal (∫ ω, F.sup' hF (fun t ↦ X t ω - X t₀ ω) ∂μ) ≤
      ∫⁻ ω, ⨆ s ∈ T, ⨆ t ∈ T, ⨆ (_ : dist s t ≤ δ), ENNReal.ofReal (X s ω - X t ω) ∂μ +
        ENNReal.ofReal (12 * σ) * ∫⁻ ε in Set.Ioc (δ / 4) (D / 2), dudleyIntegrand T ε := by
  sorry_using [exists_chainingNets, integral_sup_chaining_level_le, dudleyIntegrand_antitone,
    integral_sup_finset_le_one_step]

@[blueprint "thm:dudley-entropy-bound"
  (statement := /-- \textbf{Dudley's entropy bound.} Let $\mu$ be a probability measure and $X$ a
    $\sigma$-sub-Gaussian process on a totally bounded set $T$; let $t_0 \in T$ and $D > 0$ bound
    all pairwise distances in $T$. Assume separability: for some countable $T_0 \subseteq T$, almost
    surely $\sup_{t\in T}(X_t - X_{t_0})^+ = \sup_{t\in T_0}(X_t - X_{t_0})^+$. Then $\mathbb
    E\sup_{t\in T}(X_t - X_{t_0}) \le 12\sigma J(T, D/2)$ as a lower integral in $[0,\infty]$ (the
    entropy integral runs to half the diameter bound, as in BLM); no finiteness of $J$ is assumed.
    (Boucheron–Lugosi–Massart 2013, Cor. 13.2; Vershynin 2018, Thm. 8.1.3.) -/)
  (proof := /-- Replace the supremum over $T$ by the one over $T_0 \cup \{t_0\}$ a.s.
    (\texttt{MeasureTheory.lintegral\_congr\_ae}; adding $t_0$ changes nothing since its term is
    $0$). Enumerate the countable set (\texttt{Set.Countable.exists\_eq\_range} or an
    \texttt{Encodable} instance) and let $F_m$ be the finite sets of the first $m$ points together
    with $t_0$; they increase and their union is $T_0 \cup \{t_0\}$, so the suprema increase to the
    full supremum (\texttt{iSup\_iUnion}-style rewriting) and by monotone convergence
    (\texttt{MeasureTheory.lintegral\_iSup'} with a.e.-measurability of finite maxima,
    \texttt{Finset.measurable\_sup'}-style lemmas or \texttt{AEMeasurable} from
    \texttt{HasSubgaussianMGF.aemeasurable}) the lower integral is the supremum of those over $F_m$.
    For each $F_m$, since $t_0 \in F_m$ the maximum of $X_t - X_{t_0}$ is nonnegative, so $\int^-
    \max_{F_m}(\cdot)^+ = \mathrm{ofReal}(\mathbb E\max_{F_m}(\cdot))$
    (\texttt{MeasureTheory.ofReal\_integral\_eq\_lintegral\_ofReal}, \texttt{ENNReal.ofReal}
    commuting with finite maxima: \texttt{ENNReal.ofReal\_max}), which
    \cref{lem:integral-sup-finset-le} bounds. -/)
  (title := "Dudley's entropy bound")
  (latexEnv := "theorem")]
theorem dudley_entropy_bound [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E} {σ : ℝ≥0}
    (hX : IsSubgaussianProcess X T σ μ) (hT : TotallyBounded T) {t₀ : E} (ht₀ : t₀ ∈ T) {D : ℝ}
    (hD : 0 < D) (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D)
    (hsep : ∃ T₀ ⊆ T, T₀.Countable ∧ ∀ᵐ ω ∂μ, (⨆ t ∈ T, ENNReal.ofReal (X t ω - X t₀ ω)) =
      ⨆ t ∈ T₀, ENNReal.ofReal (X t ω - X t₀ ω)) :
    ∫⁻ ω, ⨆ t ∈ T, ENNReal.ofReal (X t ω - X t₀ ω) ∂μ ≤
      ENNReal.ofReal (12 * σ) * dudleyIntegral T (D / 2) := by
  sorry_using [integral_sup_finset_le]

@[blueprint "lem:exists-countable-dense-sup-eq"
  (statement := /-- Let $T$ be totally bounded and suppose almost every path $t \mapsto X_t(\omega)$
    is continuous on $T$. Then there is a countable $T_0 \subseteq T$ such that almost surely, for
    every continuous $\varphi : \mathbb R \to [0,\infty]$, $\sup_{t\in T}\varphi(X_t(\omega)) =
    \sup_{t\in T_0}\varphi(X_t(\omega))$. (Separability of continuous processes; Vershynin 2018,
    Remark 7.1.2 / BLM 2013, §13.1.) -/)
  (proof := /-- $T$ is separable (\texttt{TotallyBounded.isSeparable}), so it has a countable dense
    subset $T_0 \subseteq T$
    (\texttt{TopologicalSpace.IsSeparable.exists\_countable\_dense\_subset}: $T \subseteq
    \overline{T_0}$). Fix $\omega$ with continuous path and $\varphi$ continuous. The inequality
    $\ge$ is \texttt{biSup\_mono} from $T_0 \subseteq T$. For $\le$, fix $t \in T$; as $t \in
    \overline{T_0}$ and $s \mapsto \varphi(X_s(\omega))$ is continuous within $T \supseteq T_0$ at
    $t$ (\texttt{ContinuousOn.comp}), $\varphi(X_t(\omega))$ is a limit of values on $T_0$
    (\texttt{ContinuousWithinAt.mem\_closure\_image} or \texttt{mem\_closure\_iff\_seq\_limit}),
    hence at most their supremum (\texttt{le\_of\_tendsto'} with \texttt{le\_biSup}, or
    \texttt{ContinuousWithinAt.closure\_le}). -/)
  (title := "Separability from continuous paths")
  (latexEnv := "lemma")]
theorem exists_countable_dense_sup_eq {X : E → Ω → ℝ} {T : Set E} (hT : TotallyBounded T)
    (hcont : ∀ᵐ ω ∂μ, ContinuousOn (fun t ↦ X t ω) T) :
    ∃ T₀ ⊆ T, T₀.Countable ∧ ∀ᵐ ω ∂μ, ∀ φ : ℝ → ℝ≥0∞, Continuous φ →
      (⨆ t ∈ T, φ (X t ω)) = ⨆ t ∈ T₀, φ (X t ω) := by
  sorry_using []

@[blueprint "thm:dudley-entropy-bound-abs"
  (statement := /-- Let $\mu$ be a probability measure and $X$ a $\sigma$-sub-Gaussian process on a
    totally bounded $T$ with almost surely continuous paths on $T$; let $t_0 \in T$ and $D > 0$
    bound all distances in $T$. Then $\mathbb E\sup_{t\in T}|X_t - X_{t_0}| \le 24\sigma J(T,D/2)$
    (lower integral in $[0,\infty]$). (Vershynin 2018, Thm. 8.1.3 / Remark 8.1.5; BLM 2013, Cor.
    13.2.) -/)
  (proof := /-- $-X$ is again a $\sigma$-sub-Gaussian process on $T$
    (\cref{def:IsSubgaussianProcess}; \texttt{HasSubgaussianMGF.neg} and $(-X_s) - (-X_t) = -(X_s -
    X_t)$, \texttt{HasSubgaussianMGF.congr}). Apply \cref{lem:exists-countable-dense-sup-eq} once;
    with $\varphi(x) = \mathrm{ofReal}(\pm(x - X_{t_0}(\omega)))$ it yields the separability
    hypothesis of \cref{thm:dudley-entropy-bound} for both $X$ and $-X$ (the same $T_0$). Pointwise
    $\mathrm{ofReal}|a| \le \mathrm{ofReal}(a) + \mathrm{ofReal}(-a)$, so $\sup_T\mathrm{ofReal}|X_t
    - X_{t_0}| \le \sup_T \mathrm{ofReal}(X_t - X_{t_0}) + \sup_T\mathrm{ofReal}(X_{t_0} - X_t)$
    (\texttt{iSup\_add\_le}-style, \texttt{iSup₂\_le}). Integrate
    (\texttt{MeasureTheory.lintegral\_mono} and \texttt{MeasureTheory.lintegral\_add\_left'} using
    a.e.-measurability of the countable suprema), apply \cref{thm:dudley-entropy-bound} twice and
    add: $12\sigma J + 12\sigma J = 24\sigma J$ with $J = J(T, D/2)$ (\texttt{ENNReal.ofReal\_add},
    \texttt{add\_mul}). -/)
  (title := "Dudley's bound for absolute increments")
  (latexEnv := "theorem")]
theorem dudley_entropy_bound_abs [IsProbabilityMeasure μ] {X : E → Ω → ℝ} {T : Set E}
    {σ : ℝ≥0} (hX : IsSubgaussianProcess X T σ μ) (hT : TotallyBounded T) {t₀ : E} (ht₀ : t₀ ∈ T)
    {D : ℝ} (hD : 0 < D) (hdiam : ∀ s ∈ T, ∀ t ∈ T, dist s t ≤ D)
    (hcont : ∀ᵐ ω ∂μ, ContinuousOn (fun t ↦ X t ω) T) :
    ∫⁻ ω, ⨆ t ∈ T, ENNReal.ofReal |X t ω - X t₀ ω| ∂μ ≤
      ENNReal.ofReal (24 * σ) * dudleyIntegral T (D / 2) := by
  sorry_using [dudley_entropy_bound, exists_countable_dense_sup_eq]

end SLT
