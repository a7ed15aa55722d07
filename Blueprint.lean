import Blueprint.Demo
import Blueprint.SLT.Subgaussian
import Blueprint.SLT.Covering
import Blueprint.SLT.Chaining
import Blueprint.SLT.GaussianConcentration
import Blueprint.SLT.LeastSquares
import Blueprint.SLT.Entropy

/-!
# Blueprints

Root of the `Blueprint` library: LeanArchitect blueprints whose statements are fixed and whose
proofs may still be `sorry_using […]`.

* `Blueprint.Demo`: a small demonstration blueprint.
* `Blueprint.SLT.*`: the statistical learning theory development, one file per layer
  (A sub-Gaussian tools, B covering numbers, C chaining and Dudley, D Gaussian concentration,
  E the entropy method, F least squares). See `docs/slt.md`.
-/
