import Lake
open Lake DSL

/-!
# SLT workspace

* `SLT`: the sorry-free statistical learning theory library (built with `--wfail` in CI).
* `Blueprint`: LeanArchitect blueprints (`@[blueprint]` nodes whose proofs may still be `sorry`).

The dependencies are pinned to the Lean release of `lean-toolchain` (LeanArchitect to its
`v4.32.0-rc1` tag, which is what public Mathlib `v4.32.0` projects use); `lake-manifest.json` holds
the exact revisions. `docs/slt.md` says where each revision was confirmed.

`mathlib` is required last on purpose: Lake resolves a package's requires in reverse order and the
first manifest to name a shared dependency wins (`Lake/Load/Resolve.lean`,
`Workspace.updateAndMaterializeCore`), so `batteries` and `Cli` come from Mathlib's manifest, not
from LeanArchitect's (which pins the `v4.32.0-rc1` `batteries` and a `Cli` fork).
-/

/-- Mathlib's own elaboration options (`pp.unicode.fun`, `autoImplicit`, `maxSynthPendingDepth`),
plus `relaxedAutoImplicit := false`. They change elaboration, so they apply to both libraries. -/
abbrev sltLeanOptions : Array LeanOption := #[
  ⟨`pp.unicode.fun, true⟩,
  ⟨`autoImplicit, false⟩,
  ⟨`relaxedAutoImplicit, false⟩,
  ⟨`maxSynthPendingDepth, .ofNat 3⟩
]

/-- Mathlib's standard linter set (long lines, header, docstrings, `cdot`, `multiGoal`, …), as
Mathlib recommends for downstream projects. `weak.` makes an option a no-op in files that do not
import the module declaring it (e.g. a root file with no imports). -/
abbrev sltLinters : Array LeanOption := #[
  ⟨`weak.linter.mathlibStandardSet, true⟩
]

package slt where
  leanOptions := sltLeanOptions

require LeanArchitect from git
  "https://github.com/hanwenzhu/LeanArchitect.git" @ "v4.32.0-rc1"

require REPL from git
  "https://github.com/leanprover-community/repl.git" @ "v4.32.0"

require mathlib from git
  "https://github.com/leanprover-community/mathlib4.git" @ "v4.32.0"

/-- The sorry-free library. Promoted modules must satisfy every standard linter, including the
Mathlib copyright-header check. -/
@[default_target]
lean_lib SLT where
  globs := #[.andSubmodules `SLT]
  leanOptions := sltLinters

/-- Blueprints: statements are final, proofs may be `sorry`/`sorry_using`. Node files carry only
the module docstring and the LaTeX docstrings of `@[blueprint]`, so the copyright-header check is
switched off here (and only here). -/
@[default_target]
lean_lib Blueprint where
  globs := #[.andSubmodules `Blueprint]
  leanOptions := sltLinters ++ #[⟨`weak.linter.style.header, false⟩]
