import Blueprint.SLT.Subgaussian
import Mathlib.Analysis.Calculus.Gradient.Basic
import Mathlib.Analysis.Calculus.ContDiff.Basic
import Mathlib.Analysis.SpecialFunctions.Trigonometric.Basic
import Mathlib.MeasureTheory.Integral.IntervalIntegral.FundThmCalculus
import Mathlib.Probability.Moments.Variance
import Architect

/-!
# Gaussian Lipschitz concentration (layer D of the SLT blueprint)

Concentration of Lipschitz functions of a standard Gaussian vector, on
`EuclideanSpace ℝ (Fin n)` with Mathlib's `stdGaussian` (so "Lipschitz" is always with respect to
the Euclidean norm). The route is Gaussian interpolation: Stein's identity, rotation invariance of
`γ ⊗ γ`, and the covariance identity along the arc `Z_θ = X cos θ + Y sin θ`; this gives the sharp
variance proxy `L²` and, as a by-product, the Gaussian Poincaré inequality. The general Lipschitz
case follows by mollification. This route is the interpolation argument (the rotation
`X cos θ + Y sin θ`: Pisier 1986; the covariance identity: Houdré, Pérez-Abreu and Surgailis 1998;
Chatterjee 2014, ch. 2), not BLM's: BLM 2013 prove Thm. 5.6 from the Gaussian logarithmic Sobolev
inequality by Herbst's argument, the route stated in `Blueprint/SLT/Entropy.lean`.

Layer A (`Blueprint/SLT/Subgaussian.lean`) supplies the moment bounds used for integrability.

## Main statements

* `gaussian_stein_one_dim`, `gaussian_stein_coord`: Gaussian integration by parts.
* `stdGaussian_prod_rotation`: `γ ⊗ γ` is invariant under the rotation by `θ`.
* `arc_ftc`, `gaussian_covariance_identity`: the interpolation identity.
* `gaussian_poincare`: `Var f ≤ E ‖∇f‖²` (BLM 2013, Thm. 3.20).
* `gaussian_concentration_of_contDiff`, `gaussian_lipschitz_concentration`:
  `f - E f` is sub-Gaussian with variance proxy `L²` (BLM 2013, Thm. 5.6; Wainwright 2019,
  Thm. 2.26).
* `gaussian_lipschitz_concentration_pi`: the same for `Measure.pi` of standard normals on
  `Fin n → ℝ`, for functions that are Lipschitz for the Euclidean distance.

## References

* [S. Boucheron, G. Lugosi, P. Massart, *Concentration Inequalities*, 2013], §3.7 and §5.4.
* [M. J. Wainwright, *High-Dimensional Statistics*, 2019], §2.3.
* [R. Vershynin, *High-Dimensional Probability*, 2018], §5.2.
-/

open MeasureTheory ProbabilityTheory
open scoped ENNReal NNReal InnerProductSpace

namespace SLT

@[blueprint "lem:gaussian-stein-one-dim"
  (statement := /-- \textbf{Stein's identity.} Let $Z \sim N(0,1)$ and $h \in C^1(\mathbb R)$ with
    $|h(x)| + |h'(x)| \le C e^{C|x|}$ for all $x$. Then $\mathbb E[Z h(Z)] = \mathbb E[h'(Z)]$.
    (Vershynin 2018, Lemma 7.2.5 (Gaussian integration by parts); BLM 2013, §3.7.) -/)
  (proof := /-- For $v \ne 0$, \texttt{gaussianReal} has density \texttt{gaussianPDFReal} $0\ 1$
    (\texttt{integral\_gaussianReal\_eq\_integral\_smul}), and $\varphi'(x) = -x\varphi(x)$ for
    $\varphi$ the standard normal density (differentiate \texttt{gaussianPDFReal} via
    \texttt{Real.exp} chain rule). Integrate by parts on $\mathbb R$:
    \texttt{MeasureTheory.integral\_mul\_deriv\_eq\_deriv\_mul\_of\_integrable} (at some tags its
    derivative hypotheses are quantified over \texttt{tsupport}; wrap as \texttt{fun x \_ => h x})
    with $u = h$, $v = \varphi$ gives $\int h\varphi' = -\int h'\varphi$, i.e. $\int x
    h(x)\varphi(x) = \int h'(x)\varphi(x)$. The integrability side conditions ($h\varphi'$,
    $h'\varphi$, $h\varphi$) follow from the growth bound and $\int e^{C|x|}(1+|x|)\varphi(x)\,dx <
    \infty$ (\texttt{integrable\_exp\_mul\_gaussianReal} for $\pm C$, or the moment bounds of
    \cref{lem:integrable-exp-norm-stdGaussian} transported to $\mathbb R$). A compact-support
    version may exist as \texttt{gaussianReal\_ibp} in
    \texttt{Mathlib/Probability/Distributions/Gaussian/GaussianIntegrationByParts.lean} (unverified
    at the pinned tag). -/)
  (title := "Stein's identity in one dimension")
  (latexEnv := "lemma")]
theorem gaussian_stein_one_dim {h : ℝ → ℝ} (hh : ContDiff ℝ 1 h) {C : ℝ}
    (hC : ∀ x, |h x| + |deriv h x| ≤ C * Real.exp (C * |x|)) :
    ∫ x, x * h x ∂(gaussianReal 0 1) = ∫ x, deriv h x ∂(gaussianReal 0 1) := by
  sorry_using [integrable_exp_norm_stdGaussian]

@[blueprint "lem:gaussian-stein-coord"
  (statement := /-- Let $w \sim \gamma_n$ (standard Gaussian on $\mathbb R^n$ with the Euclidean
    structure) and $F \in C^1(\mathbb R^n)$ with $|F(x)| + \|DF(x)\| \le C e^{C\|x\|}$. Then for
    every coordinate $i$, $\mathbb E[w_i F(w)] = \mathbb E[\partial_i F(w)]$. (Vershynin 2018, Lemma
    7.2.5 in $n$ dimensions.) -/)
  (proof := /-- Transport $\gamma_n$ to the product $\bigotimes_j N(0,1)$ on \texttt{Fin n} $\to
    \mathbb R$ (\texttt{pi\_eq\_stdGaussian}, \texttt{integral\_map}). Split off coordinate $i$ with
    \texttt{MeasureTheory.measurePreserving\_piFinSuccAbove} and Fubini
    (\texttt{MeasureTheory.integral\_prod}); for fixed other coordinates, apply
    \cref{lem:gaussian-stein-one-dim} to $h(s) = F(\text{insert } s \text{ at } i)$, whose
    derivative is $\partial_i F$ (\texttt{HasFDerivAt.comp\_hasDerivAt} with the affine line $s
    \mapsto x + s e_i$, $e_i$ = \texttt{EuclideanSpace.single} $i\ 1$). The growth bound for $h$
    follows from the one for $F$ since $|s| \le \|x\|$. Integrability for Fubini comes from
    \cref{lem:integrable-exp-norm-stdGaussian}. -/)
  (title := "Stein's identity for a coordinate")
  (latexEnv := "lemma")]
theorem gaussian_stein_coord {n : ℕ} {F : EuclideanSpace ℝ (Fin n) → ℝ} (hF : ContDiff ℝ 1 F)
    {C : ℝ} (hC : ∀ x, |F x| + ‖fderiv ℝ F x‖ ≤ C * Real.exp (C * ‖x‖)) (i : Fin n) :
    ∫ w, w i * F w ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) =
      ∫ w, fderiv ℝ F w (EuclideanSpace.single i 1) ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [gaussian_stein_one_dim, integrable_exp_norm_stdGaussian]

@[blueprint "lem:stdGaussian-prod-rotation"
  (statement := /-- If $(X, Y) \sim \gamma_n \otimes \gamma_n$ and $\theta \in \mathbb R$, then
    $(X\cos\theta + Y\sin\theta,\ -X\sin\theta + Y\cos\theta) \sim \gamma_n \otimes \gamma_n$.
    (Rotation invariance; Vershynin 2018, Exercise 3.3.2; Pisier 1986, the rotation trick.) -/)
  (proof := /-- The map $R_\theta$ is a linear isometry of $\mathbb R^n \times \mathbb R^n$ with the
    $\ell^2$-product norm. Compare characteristic functions: both sides are finite measures on a
    product of inner product spaces, so by \texttt{MeasureTheory.Measure.ext\_of\_charFunDual} (or
    \texttt{Measure.ext\_of\_charFun} on \texttt{WithLp 2} of the product) it suffices that for all
    $(s,t)$, $\mathbb E e^{i(\langle s, X'\rangle + \langle t, Y'\rangle)}$ is unchanged. By
    \texttt{charFun\_stdGaussian} the product has characteristic function $e^{-(\|s\|^2 +
    \|t\|^2)/2}$, and $\langle s, X c + Y s_\theta\rangle + \langle t, -X s_\theta + Y c\rangle =
    \langle s c - t s_\theta, X\rangle + \langle s s_\theta + t c, Y\rangle$ with $\|sc -
    ts_\theta\|^2 + \|ss_\theta + tc\|^2 = \|s\|^2 + \|t\|^2$ (\texttt{Real.cos\_sq\_add\_sin\_sq},
    \texttt{norm\_add\_sq\_real}). Alternatively use that $\gamma_n \otimes \gamma_n$ is the
    standard Gaussian of the product space and \texttt{stdGaussian\_map} for linear isometry
    equivalences. -/)
  (title := "Rotation invariance of the Gaussian product")
  (latexEnv := "lemma")]
theorem stdGaussian_prod_rotation {n : ℕ} (θ : ℝ) :
    ((stdGaussian (EuclideanSpace ℝ (Fin n))).prod (stdGaussian (EuclideanSpace ℝ (Fin n)))).map
        (fun p : EuclideanSpace ℝ (Fin n) × EuclideanSpace ℝ (Fin n) ↦
          (Real.cos θ • p.1 + Real.sin θ • p.2, -(Real.sin θ • p.1) + Real.cos θ • p.2)) =
      (stdGaussian (EuclideanSpace ℝ (Fin n))).prod (stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using []

@[blueprint "lem:arc-ftc"
  (statement := /-- For $g \in C^1(\mathbb R^n)$ and $x, y \in \mathbb R^n$, with $Z_\theta =
    x\cos\theta + y\sin\theta$ and $Z'_\theta = -x\sin\theta + y\cos\theta$: $g(y) - g(x) =
    \int_0^{\pi/2} Dg(Z_\theta)(Z'_\theta)\,d\theta$. (Fundamental theorem of calculus along the
    arc of the interpolation argument; Pisier 1986.) -/)
  (proof := /-- $\theta \mapsto Z_\theta$ has derivative $Z'_\theta$
    (\texttt{HasDerivAt.smul\_const}, \texttt{Real.hasDerivAt\_cos}, \texttt{Real.hasDerivAt\_sin},
    \texttt{HasDerivAt.add}), so $\theta \mapsto g(Z_\theta)$ has derivative
    $Dg(Z_\theta)(Z'_\theta)$ (\texttt{HasFDerivAt.comp\_hasDerivAt}, with
    \texttt{ContDiff.differentiable} and \texttt{DifferentiableAt.hasFDerivAt}). This derivative is
    continuous (\texttt{ContDiff.continuous\_fderiv}), hence interval integrable, and
    \texttt{intervalIntegral.integral\_eq\_sub\_of\_hasDerivAt} gives $g(Z_{\pi/2}) - g(Z_0) = g(y)
    - g(x)$ (\texttt{Real.cos\_pi\_div\_two}, \texttt{Real.sin\_pi\_div\_two},
    \texttt{Real.cos\_zero}, \texttt{Real.sin\_zero}). -/)
  (title := "Fundamental theorem of calculus along the arc")
  (latexEnv := "lemma")]
theorem arc_ftc {n : ℕ} {g : EuclideanSpace ℝ (Fin n) → ℝ} (hg : ContDiff ℝ 1 g)
    (x y : EuclideanSpace ℝ (Fin n)) :
    g y - g x = ∫ θ in (0 : ℝ)..(Real.pi / 2),
      fderiv ℝ g (Real.cos θ • x + Real.sin θ • y) (-(Real.sin θ • x) + Real.cos θ • y) := by
  sorry_using []

@[blueprint "lem:gaussian-covariance-identity"
  (statement := /-- \textbf{Gaussian covariance identity.} Let $f, g \in C^1(\mathbb R^n)$ with $|f|
    + \|Df\|$ and $|g| + \|Dg\|$ bounded by $C e^{C\|x\|}$. With $(X, Y) \sim \gamma_n\otimes
    \gamma_n$ and $Z_\theta = X\cos\theta + Y\sin\theta$: $\mathrm{Cov}(f(X), g(X)) = \int_0^{\pi/2}
    \sin\theta\; \mathbb E\langle \nabla f(X), \nabla g(Z_\theta)\rangle\, d\theta$. (The Gaussian
    covariance identity of Houdré, Pérez-Abreu and Surgailis 1998 in angular form, $\rho =
    \cos\theta$; Chatterjee 2014, ch. 2.) -/)
  (proof := /-- Write $\mathrm{Cov}(f(X), g(X)) = \mathbb E f(X)g(X) - \mathbb E f(X)\,\mathbb E
    g(Y) = -\mathbb E[f(X)(g(Y) - g(X))]$ (independence:
    \texttt{MeasureTheory.integral\_prod\_mul}). By \cref{lem:arc-ftc}, $g(Y) - g(X) =
    \int_0^{\pi/2} Dg(Z_\theta)(Z'_\theta)d\theta$; swap the $\theta$- and $\omega$-integrals
    (\texttt{MeasureTheory.integral\_integral\_swap} on $[0,\pi/2] \times (\mathbb R^n)^2$,
    integrable by the growth bounds and \cref{lem:integrable-exp-norm-stdGaussian}).
    For fixed $\theta$, by \cref{lem:stdGaussian-prod-rotation} $(Z_\theta, Z'_\theta) \sim
    \gamma_n\otimes\gamma_n$ and $X = Z_\theta\cos\theta - Z'_\theta\sin\theta$, so $\mathbb E[f(X)
    Dg(Z_\theta)(Z'_\theta)] = \mathbb E[f(U\cos\theta - V\sin\theta)\, \langle\nabla g(U),
    V\rangle]$ for $(U,V) \sim \gamma_n\otimes\gamma_n$. Expand $\langle \nabla g(U), V\rangle =
    \sum_i \partial_i g(U) V_i$ and apply \cref{lem:gaussian-stein-coord} in $V$ for fixed $U$
    (Fubini) to $F(v) = f(U\cos\theta - v\sin\theta)\,\partial_i g(U)$, whose $i$-th partial
    derivative is $-\sin\theta\,\partial_i f(X)\,\partial_i g(U)$. Summing, the $\theta$-integrand
    equals $-\sin\theta\,\mathbb E\langle\nabla f(X), \nabla g(Z_\theta)\rangle$ (map back with
    \cref{lem:stdGaussian-prod-rotation}); combine the signs. Gradients are related to
    \texttt{fderiv} by \texttt{gradient} $=$ \texttt{(toDual ℝ E).symm (fderiv ℝ f x)} and
    \texttt{InnerProductSpace.toDual\_symm\_apply}. No second derivatives are needed. -/)
  (title := "Gaussian covariance identity")
  (latexEnv := "lemma")]
theorem gaussian_covariance_identity {n : ℕ} {f g : EuclideanSpace ℝ (Fin n) → ℝ}
    (hf : ContDiff ℝ 1 f) (hg : ContDiff ℝ 1 g) {C : ℝ}
    (hfC : ∀ x, |f x| + ‖fderiv ℝ f x‖ ≤ C * Real.exp (C * ‖x‖))
    (hgC : ∀ x, |g x| + ‖fderiv ℝ g x‖ ≤ C * Real.exp (C * ‖x‖)) :
    ∫ x, f x * g x ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) -
        (∫ x, f x ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) *
          ∫ x, g x ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) =
      ∫ θ in (0 : ℝ)..(Real.pi / 2), Real.sin θ *
        ∫ p, ⟪gradient f p.1, gradient g (Real.cos θ • p.1 + Real.sin θ • p.2)⟫_ℝ
          ∂((stdGaussian (EuclideanSpace ℝ (Fin n))).prod
            (stdGaussian (EuclideanSpace ℝ (Fin n)))) := by
  sorry_using [gaussian_stein_coord, stdGaussian_prod_rotation, arc_ftc,
    integrable_exp_norm_stdGaussian]

@[blueprint "thm:gaussian-poincare"
  (statement := /-- \textbf{Gaussian Poincaré inequality.} For $f \in C^1(\mathbb R^n)$ with $|f| +
    \|Df\| \le C e^{C\|x\|}$: $\mathrm{Var}_{\gamma_n}(f) \le \mathbb E_{\gamma_n}\|\nabla f\|^2$.
    The growth condition is ours (it makes every integral of the interpolation proof finite); BLM
    2013, Thm. 3.20, assume only that $f$ is continuously differentiable, so this is a weaker
    statement than theirs. (Boucheron–Lugosi–Massart 2013, Thm. 3.20.) -/)
  (proof := /-- Apply \cref{lem:gaussian-covariance-identity} with $g = f$. For each $\theta$,
    $|\langle\nabla f(X), \nabla f(Z_\theta)\rangle| \le \tfrac12(\|\nabla f(X)\|^2 + \|\nabla
    f(Z_\theta)\|^2)$ (\texttt{real\_inner\_le\_norm}, \texttt{two\_mul\_le\_add\_sq}) and $Z_\theta
    \sim \gamma_n$ (first marginal of \cref{lem:stdGaussian-prod-rotation},
    \texttt{MeasureTheory.Measure.map\_map} with \texttt{Prod.fst}), so the inner expectation is at
    most $\mathbb E\|\nabla f\|^2$. Then $\int_0^{\pi/2}\sin\theta\,d\theta = 1$
    (\texttt{integral\_sin}, \texttt{Real.cos\_pi\_div\_two}). Finally $\mathrm{Var} = \mathbb E f^2
    - (\mathbb E f)^2$ (\texttt{ProbabilityTheory.variance\_eq\_sub} or \texttt{variance\_def'} with
    \texttt{MemLp} from the growth bound). If $\mathbb E\|\nabla f\|^2 = \infty$ in the sense of
    non-integrability, Lean's integral is $0$; the growth bound rules this out (integrable by
    \cref{lem:integrable-exp-norm-stdGaussian}). -/)
  (title := "Gaussian Poincaré inequality")
  (latexEnv := "theorem")]
theorem gaussian_poincare {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} (hf : ContDiff ℝ 1 f) {C : ℝ}
    (hfC : ∀ x, |f x| + ‖fderiv ℝ f x‖ ≤ C * Real.exp (C * ‖x‖)) :
    variance f (stdGaussian (EuclideanSpace ℝ (Fin n))) ≤
      ∫ x, ‖gradient f x‖ ^ 2 ∂(stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [gaussian_covariance_identity, stdGaussian_prod_rotation,
    integrable_exp_norm_stdGaussian]

@[blueprint "lem:lipschitz-bound-and-norm-fderiv-le"
  (statement := /-- If $f : \mathbb R^n \to \mathbb R$ is $L$-Lipschitz (Euclidean norm) then
    $|f(x)| \le |f(0)| + L\|x\|$ for all $x$, and $\|Df(x)\| \le L$ for all $x$ (where $Df(x) = 0$
    at points of non-differentiability, as for \texttt{fderiv}). -/)
  (proof := /-- The first claim is \texttt{LipschitzWith.dist\_le\_mul} with $y = 0$ and the
    triangle inequality (\texttt{abs\_sub\_abs\_le\_abs\_sub}, \texttt{Real.dist\_eq}). The second
    is \texttt{norm\_fderiv\_le\_of\_lipschitz} (or \texttt{norm\_fderiv\_le\_of\_lipschitzOn} with
    $s = $ \texttt{Set.univ} and \texttt{LipschitzWith.lipschitzOnWith}), which also covers
    non-differentiable points. -/)
  (title := "Growth and derivative bounds for Lipschitz functions")
  (latexEnv := "lemma")]
theorem lipschitz_bound_and_norm_fderiv_le {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ}
    {L : ℝ≥0} (hf : LipschitzWith L f) :
    (∀ x, |f x| ≤ |f 0| + L * ‖x‖) ∧ ∀ x, ‖fderiv ℝ f x‖ ≤ L := by
  sorry_using []

@[blueprint "lem:hasDerivAt-mgf-centered-lipschitz"
  (statement := /-- Let $f$ be $L$-Lipschitz on $\mathbb R^n$ and $\bar f = f - \mathbb E_{\gamma_n}
    f$. Then $e^{t\bar f}$ is $\gamma_n$-integrable for every $t$, and the moment generating
    function $F(\lambda) = \mathbb E e^{\lambda\bar f}$ is differentiable with $F'(\lambda) =
    \mathbb E[\bar f e^{\lambda\bar f}]$. (Differentiation under the integral, as in Herbst's
    argument; BLM 2013, §5.4 and §6.1.) -/)
  (proof := /-- By \cref{lem:lipschitz-bound-and-norm-fderiv-le}, $|t\bar f(x)| \le |t|(|f(0)| +
    |\mathbb E f| + L\|x\|)$, so $e^{t\bar f} \le e^{|t|(|f(0)| + |\mathbb E f|)} e^{|t|L\|x\|}$,
    integrable by \cref{lem:integrable-exp-norm-stdGaussian} and \texttt{Integrable.mono'}
    (measurability from continuity, \texttt{LipschitzWith.continuous}). Hence
    \texttt{ProbabilityTheory.integrableExpSet} is all of $\mathbb R$ and
    \texttt{ProbabilityTheory.hasDerivAt\_mgf} applies at every $\lambda$ (\texttt{interior\_univ}).
    -/)
  (title := "Differentiating the mgf of a Lipschitz function")
  (latexEnv := "lemma")]
theorem hasDerivAt_mgf_centered_lipschitz {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} {L : ℝ≥0}
    (hf : LipschitzWith L f) (l : ℝ) :
    (∀ t : ℝ, Integrable (fun x ↦ Real.exp (t * (f x -
        ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n))))))
      (stdGaussian (EuclideanSpace ℝ (Fin n)))) ∧
    HasDerivAt
      (mgf (fun x ↦ f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n))))
        (stdGaussian (EuclideanSpace ℝ (Fin n))))
      (∫ x, (f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) *
          Real.exp (l * (f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))))
        ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) l := by
  sorry_using [lipschitz_bound_and_norm_fderiv_le, integrable_exp_norm_stdGaussian]

@[blueprint "lem:le-exp-of-hasDerivAt-le"
  (statement := /-- Let $F : \mathbb R \to (0,\infty)$ be differentiable with $F(0) = 1$ and
    $F'(\lambda) \le \lambda L^2 F(\lambda)$ for $\lambda \ge 0$. Then $F(\lambda) \le e^{\lambda^2
    L^2/2}$ for all $\lambda \ge 0$. (The Herbst-type differential inequality; BLM 2013, proof of
    Thm. 5.5 / Prop. 6.1.) -/)
  (proof := /-- Let $\psi(\lambda) = \log F(\lambda) - \lambda^2L^2/2$; it is differentiable
    (\texttt{HasDerivAt.log} since $F > 0$) with $\psi'(\lambda) = F'(\lambda)/F(\lambda) - \lambda
    L^2 \le 0$ on $[0,\infty)$ (\texttt{div\_le\_iff₀}). So $\psi$ is antitone on $[0,\infty)$
    (\texttt{antitoneOn\_of\_deriv\_nonpos} on \texttt{Set.Ici 0} with \texttt{convex\_Ici}, or
    \texttt{antitoneOn\_of\_hasDerivWithinAt\_nonpos}), hence $\psi(\lambda) \le \psi(0) = 0$, i.e.
    $\log F(\lambda) \le \lambda^2L^2/2$; exponentiate (\texttt{Real.exp\_log},
    \texttt{Real.exp\_le\_exp}). -/)
  (title := "Differential inequality for the mgf")
  (latexEnv := "lemma")]
theorem le_exp_of_hasDerivAt_le {F F' : ℝ → ℝ} {L : ℝ} (hpos : ∀ l, 0 < F l)
    (hderiv : ∀ l, HasDerivAt F (F' l) l) (h0 : F 0 = 1)
    (hle : ∀ l, 0 ≤ l → F' l ≤ l * L ^ 2 * F l) {l : ℝ} (hl : 0 ≤ l) :
    F l ≤ Real.exp (l ^ 2 * L ^ 2 / 2) := by
  sorry_using []

@[blueprint "lem:gaussian-concentration-of-contDiff"
  (statement := /-- Let $f \in C^1(\mathbb R^n)$ be $L$-Lipschitz. Under $\gamma_n$, $f - \mathbb E
    f$ is sub-Gaussian with variance proxy $L^2$: $\mathbb E e^{\lambda(f - \mathbb E f)} \le
    e^{\lambda^2L^2/2}$ for all $\lambda$. (The statement of BLM 2013, Thm. 5.6, for $C^1$
    functions, proved here by interpolation (Houdré–Pérez-Abreu–Surgailis 1998); Wainwright 2019,
    Thm. 2.26.) -/)
  (proof := /-- Let $\bar f = f - \mathbb E f$ and $F(\lambda) = \mathbb E e^{\lambda\bar f}$,
    positive with $F(0) = 1$ and $F'(\lambda) = \mathbb E[\bar f e^{\lambda\bar f}]$ by
    \cref{lem:hasDerivAt-mgf-centered-lipschitz}. Note $F'(\lambda) = \mathrm{Cov}(\bar f,
    e^{\lambda \bar f}) = \mathrm{Cov}(f, e^{\lambda\bar f})$. Apply
    \cref{lem:gaussian-covariance-identity} to $f$ and $g = e^{\lambda\bar f}$ ($C^1$ with $\nabla g
    = \lambda g\nabla f$; growth bounds from \cref{lem:lipschitz-bound-and-norm-fderiv-le}):
    $F'(\lambda) = \lambda\int_0^{\pi/2}\sin\theta\,\mathbb E[e^{\lambda\bar f(Z_\theta)}
    \langle\nabla f(X), \nabla f(Z_\theta)\rangle]d\theta$. For $\lambda \ge 0$ bound the inner
    product by $L^2$ ($\|\nabla f\| \le L$ by \cref{lem:lipschitz-bound-and-norm-fderiv-le};
    \texttt{real\_inner\_le\_norm}), use $Z_\theta \sim \gamma_n$
    (\cref{lem:stdGaussian-prod-rotation}) to get $\mathbb E e^{\lambda\bar f(Z_\theta)} =
    F(\lambda)$, and $\int_0^{\pi/2}\sin = 1$: $F'(\lambda) \le \lambda L^2 F(\lambda)$.
    \cref{lem:le-exp-of-hasDerivAt-le} gives the bound for $\lambda \ge 0$; for $\lambda < 0$ apply
    the same to $-f$ (also $L$-Lipschitz, \texttt{LipschitzWith.neg}) since $\mathrm{mgf}(\bar
    f)(\lambda) = \mathrm{mgf}(-\bar f)(-\lambda)$. Integrability of every $e^{t\bar f}$ is part of
    \cref{lem:hasDerivAt-mgf-centered-lipschitz}; assemble \texttt{HasSubgaussianMGF} with its
    anonymous constructor. -/)
  (title := "Gaussian concentration for smooth Lipschitz functions")
  (latexEnv := "lemma")]
theorem gaussian_concentration_of_contDiff {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} {L : ℝ≥0}
    (hf : ContDiff ℝ 1 f) (hL : LipschitzWith L f) :
    HasSubgaussianMGF (fun x ↦ f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) (L ^ 2)
      (stdGaussian (EuclideanSpace ℝ (Fin n))) := by
  sorry_using [stdGaussian_prod_rotation, gaussian_covariance_identity,
    lipschitz_bound_and_norm_fderiv_le, hasDerivAt_mgf_centered_lipschitz,
    le_exp_of_hasDerivAt_le]

@[blueprint "lem:exists-contDiff-lipschitz-approx"
  (statement := /-- Let $f : \mathbb R^n \to \mathbb R$ be $L$-Lipschitz and $\varepsilon > 0$.
    There is $g \in C^1(\mathbb R^n)$, $L$-Lipschitz, with $|g - f| \le L\varepsilon$ everywhere.
    (Mollification, the usual reduction to smooth functions.) -/)
  (proof := /-- Take the normalised bump $\rho = $ \texttt{ContDiffBump.normed} of a
    \texttt{ContDiffBump} centred at $0$ with outer radius $\varepsilon$ (a smooth probability
    density supported in $B(0,\varepsilon)$), and $g = \rho \star f$
    (\texttt{MeasureTheory.convolution} with \texttt{ContinuousLinearMap.lsmul}). Smoothness:
    \texttt{HasCompactSupport.contDiff\_convolution\_left} ($f$ is continuous, hence locally
    integrable). Distance: \texttt{ContDiffBump.dist\_normed\_convolution\_le} gives $|g(x) - f(x)|
    \le \sup_{y \in B(x,\varepsilon)}|f(y) - f(x)| \le L\varepsilon$. Lipschitz: $g(x) - g(x') =
    \int\rho(z)(f(x - z) - f(x' - z))dz$ and $\int \rho = 1$
    (\texttt{ContDiffBump.integral\_normed}), so $|g(x) - g(x')| \le L\|x - x'\|$
    (\texttt{LipschitzWith.of\_le\_add\_mul}, \texttt{norm\_integral\_le\_of\_norm\_le}). -/)
  (title := "Smooth Lipschitz approximation")
  (latexEnv := "lemma")]
theorem exists_contDiff_lipschitz_approx {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} {L : ℝ≥0}
    (hf : LipschitzWith L f) {ε : ℝ} (hε : 0 < ε) :
    ∃ g : EuclideanSpace ℝ (Fin n) → ℝ, ContDiff ℝ 1 g ∧ LipschitzWith L g ∧
      ∀ x, |g x - f x| ≤ L * ε := by
  sorry_using []

@[blueprint "thm:gaussian-lipschitz-concentration"
  (statement := /-- \textbf{Gaussian concentration for Lipschitz functions.} Let $f : \mathbb R^n
    \to \mathbb R$ be $L$-Lipschitz for the Euclidean norm. Under $\gamma_n$, $f - \mathbb E f$ is
    sub-Gaussian with variance proxy $L^2$; hence for $t \ge 0$, $\gamma_n(f - \mathbb E f \ge t)
    \le e^{-t^2/(2L^2)}$ and $\gamma_n(|f - \mathbb E f| \ge t) \le 2e^{-t^2/(2L^2)}$.
    (Boucheron–Lugosi–Massart 2013, Thm. 5.6 (Tsirelson–Ibragimov–Sudakov); Wainwright 2019, Thm.
    2.26; Vershynin 2018, Thm. 5.2.2.) -/)
  (proof := /-- For $\varepsilon > 0$ take $g_\varepsilon$ from
    \cref{lem:exists-contDiff-lipschitz-approx}; by \cref{lem:gaussian-concentration-of-contDiff},
    $\mathbb E e^{\lambda(g_\varepsilon - \mathbb E g_\varepsilon)} \le e^{\lambda^2L^2/2}$. Since
    $|g_\varepsilon - f| \le L\varepsilon$, also $|\mathbb E g_\varepsilon - \mathbb E f| \le
    L\varepsilon$, so $\lambda(f - \mathbb E f) \le \lambda(g_\varepsilon - \mathbb E g_\varepsilon)
    + 2|\lambda|L\varepsilon$ and $\mathrm{mgf}(f - \mathbb Ef)(\lambda) \le
    e^{2|\lambda|L\varepsilon}e^{\lambda^2L^2/2}$ (\texttt{integral\_mono},
    \texttt{Real.exp\_le\_exp}). Let $\varepsilon \to 0$ (\texttt{le\_of\_tendsto'}, continuity of
    \texttt{Real.exp}). Integrability of every $e^{t(f - \mathbb E f)}$ is the first part of
    \cref{lem:hasDerivAt-mgf-centered-lipschitz}. The tail bounds are
    \cref{lem:subgaussian-tail-bounds} with $c = L^2$. -/)
  (title := "Gaussian Lipschitz concentration")
  (latexEnv := "theorem")]
theorem gaussian_lipschitz_concentration {n : ℕ} {f : EuclideanSpace ℝ (Fin n) → ℝ} {L : ℝ≥0}
    (hf : LipschitzWith L f) :
    HasSubgaussianMGF (fun x ↦ f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))) (L ^ 2)
        (stdGaussian (EuclideanSpace ℝ (Fin n))) ∧
      ∀ t : ℝ, 0 ≤ t →
        (stdGaussian (EuclideanSpace ℝ (Fin n))).real
            {x | t ≤ f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))} ≤
          Real.exp (-t ^ 2 / (2 * (L : ℝ) ^ 2)) ∧
        (stdGaussian (EuclideanSpace ℝ (Fin n))).real
            {x | t ≤ |f x - ∫ y, f y ∂(stdGaussian (EuclideanSpace ℝ (Fin n)))|} ≤
          2 * Real.exp (-t ^ 2 / (2 * (L : ℝ) ^ 2)) := by
  sorry_using [hasDerivAt_mgf_centered_lipschitz, exists_contDiff_lipschitz_approx,
    gaussian_concentration_of_contDiff, subgaussian_tail_bounds]

@[blueprint "thm:gaussian-lipschitz-concentration-pi"
  (statement := /-- Let $f : \mathbb R^n \to \mathbb R$ (as functions \texttt{Fin n} $\to \mathbb
    R$) be $L$-Lipschitz for the \emph{Euclidean} distance, and let $\mu_n = N(0,1)^{\otimes n}$
    (\texttt{Measure.pi}). Then $f - \mathbb E_{\mu_n} f$ is sub-Gaussian with variance proxy $L^2$
    under $\mu_n$. (BLM 2013, Thm. 5.6 in coordinates. The Lipschitz hypothesis is stated through
    \texttt{WithLp.ofLp}, so the sup-norm metric of \texttt{Fin n} $\to \mathbb R$ is never used.)
    -/)
  (proof := /-- By \texttt{pi\_eq\_stdGaussian}, $\mu_n$ mapped by \texttt{WithLp.toLp 2} is
    $\gamma_n$. Set $\tilde f = f \circ$ \texttt{WithLp.ofLp}, $L$-Lipschitz on
    \texttt{EuclideanSpace ℝ (Fin n)} by hypothesis, and apply
    \cref{thm:gaussian-lipschitz-concentration}. Transport back with
    \texttt{HasSubgaussianMGF.of\_map} (or \texttt{HasSubgaussianMGF.congr\_identDistrib}) along the
    measurable map \texttt{WithLp.toLp 2} (\texttt{MeasureTheory.integral\_map} for the centring
    constant, \texttt{WithLp.ofLp\_toLp}). -/)
  (title := "Gaussian concentration in coordinates")
  (latexEnv := "theorem")]
theorem gaussian_lipschitz_concentration_pi {n : ℕ} {f : (Fin n → ℝ) → ℝ} {L : ℝ≥0}
    (hf : LipschitzWith L (fun x : EuclideanSpace ℝ (Fin n) ↦ f (WithLp.ofLp x))) :
    HasSubgaussianMGF (fun x ↦ f x - ∫ y, f y ∂(Measure.pi fun _ : Fin n ↦ gaussianReal 0 1))
      (L ^ 2) (Measure.pi fun _ : Fin n ↦ gaussianReal 0 1) := by
  sorry_using [gaussian_lipschitz_concentration]

end SLT
