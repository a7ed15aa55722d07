import Lean
import Lean.Replay

/-!
# AuditModule: what a compiled module declares, read from its `.olean`, and a kernel replay

Run by `harness/gate/declared.py` as `lake env lean --run AuditModule.lean OLEAN` after the gate
compiled the merged file with `lean --json --root=DIR -o OLEAN FILE`. The program reads the
module's data directly and never imports the module itself: none of the candidate's code
(`initialize`, `elab`, macros, instances) runs here, and nothing the candidate elaborated can
change what this program prints (an `elab_rules` can rewrite `#print axioms` inside the file,
not this process).

Output, one compact JSON object per line on stdout:
* `{"module": M, "imports": [..], "isModule": b}` first;
* one `{"name", "kind", "unsafe", "partial", "type", "value"}` per constant the module adds
  (`ModuleData.constNames`/`constants`: everything, including auxiliary declarations; `type` and
  `value` are `Expr.hash`es, `value` only for definitions and opaque constants);
* one `{"ext": NAME, "entries": N}` per environment extension the module adds entries to
  (`ModuleData.entries`: instances, reducibility, simp sets, notation, macros, …);
* `{"kernel": "ok"}` or `{"kernel": "error", "message": …}`: every new constant sent to the
  kernel again, on top of the module's imports (`Lean.Environment.replay`, what `leanchecker`
  does), so `set_option debug.skipKernelTC true` (which makes `addDecl` call
  `addDeclWithoutChecking`: src/Lean/AddDecl.lean) or an elaborator that assigns an ill-typed
  term cannot produce a constant the kernel never checked. `replay` skips `unsafe` and
  `partial` constants; the harness rejects those separately (flags above);
* `{"done": N}` last, N the number of constant lines.

UNVERIFIED: no Lean toolchain was available where this was written; every API below was looked
up in leanprover/lean4's sources (cited per use; "file id" is the search index's id of the stored
version read), not compiled. A failure of this program is "cannot certify" (exit 3) in the
harness, never a pass.
-/

-- `lean --run` prints this file's own messages on stdout before `main` runs; any non-JSON line
-- voids the answer (`declared.py`), so no linter may speak.
set_option linter.all false

open Lean

namespace HarnessAudit

/-- `ConstantInfo` constructors: src/Lean/Declaration.lean. -/
def kindOf : ConstantInfo → String
  | .thmInfo _ => "theorem"
  | .defnInfo _ => "def"
  | .axiomInfo _ => "axiom"
  | .opaqueInfo _ => "opaque"
  | .quotInfo _ => "quot"
  | .inductInfo _ => "inductive"
  | .ctorInfo _ => "constructor"
  | .recInfo _ => "recursor"

/-- The value's hash for constants whose value is part of their meaning (a definition's body is
what statements using it mean); theorems' proofs are not compared, only checked. `Expr.hash`:
src/Lean/Expr.lean (`Expr.data.hash`, structural, the same in every run). -/
def valueHash : ConstantInfo → String
  | .defnInfo v => toString v.value.hash
  | .opaqueInfo v => toString v.value.hash
  | _ => ""

/-- `ConstantInfo.isUnsafe`, `ConstantInfo.isPartial` (a `partial def`, `safety = .partialDef`):
src/Lean/Declaration.lean (file id 68353626562). -/
def constLine (n : Name) (ci : ConstantInfo) : String :=
  (Json.mkObj [
    ("name", toJson (n.toString (escape := false))),
    ("kind", toJson (kindOf ci)),
    ("unsafe", toJson ci.isUnsafe),
    ("partial", toJson ci.isPartial),
    ("type", toJson (toString ci.type.hash)),
    ("value", toJson (valueHash ci))]).compress

end HarnessAudit

/-- `lean --run AuditModule.lean OLEAN`.
`readModuleData (fname : @& FilePath) : IO (ModuleData × CompactedRegion)` and the
`ModuleData` fields `isModule`, `imports`, `constNames`, `constants`, `entries`:
src/Lean/Environment.lean (module-system version, file id 13577889070). A `module` file keeps
private data in further `.olean.*` parts; we refuse it (fail closed) rather than read half.
`importModules (imports) (opts) (trustLevel := 0) … (loadExts := false)`: same file; without
`loadExts` no extension of the imports is loaded, and `[init]` code runs only after
`enableInitializersExecution`, which we never call — the replay needs only their constants.
`Lean.Environment.replay (newConstants : Std.HashMap Name ConstantInfo) (env : Environment) :
IO Environment` (src/Lean/Replay.lean; this `Environment` signature is the one of Lean 4.24
quoted in file id 71653537724 and of src/LeanChecker/Replay.lean at lean4@7ba979c5; lean4 PR
#14391, after v4.33, renamed it `Lean.Kernel.Environment.replay` over `Kernel.Environment`,
keeping a deprecated alias). It throws `IO.userError` when the kernel rejects a constant or a
constructor/recursor differs from the one the kernel generates. The same import-then-replay
pattern: `replayFromImports` in leanprover/lean4 src/LeanChecker.lean and
leanprover/lean4checker Main.lean. -/
unsafe def main (args : List String) : IO UInt32 := do
  if args.length != 1 then
    IO.eprintln "usage: lean --run AuditModule.lean OLEAN"
    return 2
  let some olean := args.head? | return 2
  initSearchPath (← findSysroot)
  let (mod, _region) ← readModuleData (System.FilePath.mk olean)
  let out ← IO.getStdout
  out.putStrLn (Json.mkObj [
    ("file", toJson olean),
    ("imports", toJson (mod.imports.map fun i => i.module.toString (escape := false))),
    ("isModule", toJson mod.isModule)]).compress
  if mod.isModule then
    IO.eprintln "AuditModule: a `module` file (Lean's module system) is not audited"
    return 3
  let mut newConsts : Std.HashMap Name ConstantInfo := {}
  let mut count := 0
  for name in mod.constNames, ci in mod.constants do
    newConsts := newConsts.insert name ci
    out.putStrLn (HarnessAudit.constLine name ci)
    count := count + 1
  for (ext, entries) in mod.entries do
    if entries.size > 0 then
      out.putStrLn (Json.mkObj [("ext", toJson (ext.toString (escape := false))),
                                ("entries", toJson entries.size)]).compress
  out.flush
  let env ← importModules mod.imports {} (trustLevel := 0) (loadExts := false)
  let verdict ← try
      discard <| Lean.Environment.replay newConsts env
      pure (Json.mkObj [("kernel", toJson "ok")])
    catch e =>
      pure (Json.mkObj [("kernel", toJson "error"), ("message", toJson e.toString)])
  out.putStrLn verdict.compress
  out.putStrLn (Json.mkObj [("done", toJson count)]).compress
  out.flush
  return 0
